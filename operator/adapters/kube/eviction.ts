/**
 * Node and pod writes for termination and registration: taints/labels with an optimistic lock, the Eviction
 * API, finalizer removal via JSON Patch with a `test` op.
 */
import type { CoreV1Api } from "@kubernetes/client-node";
import type { Node, Pod } from "../../core/lifecycle/objects.ts";
import type { EvictionOutcome, NodePatch } from "../../ports/cluster.ts";
import { KubeApiError, NotFoundError, TooManyRequestsError, kube, kubeIgnoreNotFound, mergePatch } from "./client.ts";

/**
 * A JSON Patch removing `finalizer` from an object whose finalizers are `current`; undefined when it is
 * absent. The `test` op makes a concurrent change fail (422) instead of removing someone else's entry.
 */
export function finalizerRemoval(current: readonly string[], finalizer: string): object[] | undefined {
  const index = current.indexOf(finalizer);
  if (index < 0) return undefined;
  return [
    { op: "test", path: `/metadata/finalizers/${index}`, value: finalizer },
    { op: "remove", path: `/metadata/finalizers/${index}` },
  ];
}

/** Merge patch body for a Node, locked to the cached resourceVersion. */
export function nodeMergePatch(node: Node, patch: NodePatch): object {
  const metadata: Record<string, unknown> = { resourceVersion: node.metadata?.resourceVersion };
  if (patch.labels !== undefined) metadata["labels"] = nullRemoved(node.metadata?.labels, patch.labels);
  if (patch.annotations !== undefined)
    metadata["annotations"] = nullRemoved(node.metadata?.annotations, patch.annotations);
  if (patch.finalizers !== undefined) metadata["finalizers"] = patch.finalizers;
  if (patch.ownerReferences !== undefined) metadata["ownerReferences"] = patch.ownerReferences;
  return patch.taints === undefined ? { metadata } : { metadata, spec: { taints: patch.taints } };
}

/** In a merge patch a map is merged, so keys to drop must be sent as null. */
function nullRemoved(
  current: Readonly<Record<string, string>> | undefined,
  desired: Readonly<Record<string, string>>,
): Record<string, string | null> {
  const out: Record<string, string | null> = { ...desired };
  for (const key of Object.keys(current ?? {})) if (!(key in desired)) out[key] = null;
  return out;
}

/** Node and pod operations over CoreV1Api. */
export class NodeOperations {
  private readonly core: CoreV1Api;
  constructor(core: CoreV1Api) {
    this.core = core;
  }

  async patchNode(node: Node, patch: NodePatch): Promise<void> {
    const name = node.metadata?.name ?? "";
    await kube(`patching node ${name}`, () =>
      this.core.patchNode({ name, body: nodeMergePatch(node, patch) }, mergePatch),
    );
  }

  async removeNodeFinalizer(node: Node, finalizer: string): Promise<void> {
    const name = node.metadata?.name ?? "";
    const body = finalizerRemoval(node.metadata?.finalizers ?? [], finalizer);
    if (body === undefined) return;
    await kubeIgnoreNotFound(`removing finalizer from node ${name}`, () => this.core.patchNode({ name, body }));
  }

  async deleteNode(name: string): Promise<void> {
    await kubeIgnoreNotFound(`deleting node ${name}`, () => this.core.deleteNode({ name }));
  }

  async evictPod(pod: Pod): Promise<EvictionOutcome> {
    const name = pod.metadata?.name ?? "";
    const namespace = pod.metadata?.namespace ?? "";
    const body = {
      apiVersion: "policy/v1",
      kind: "Eviction",
      metadata: { name, namespace },
      deleteOptions: pod.metadata?.uid === undefined ? {} : { preconditions: { uid: pod.metadata.uid } },
    };
    try {
      await kube(`evicting pod ${namespace}/${name}`, () =>
        this.core.createNamespacedPodEviction({ name, namespace, body }),
      );
      return "evicted";
    } catch (error) {
      return evictionOutcome(error);
    }
  }

  async deletePod(pod: Pod, graceSeconds: number): Promise<void> {
    const name = pod.metadata?.name ?? "";
    const namespace = pod.metadata?.namespace ?? "";
    await kubeIgnoreNotFound(`deleting pod ${namespace}/${name}`, () =>
      this.core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: graceSeconds }),
    );
  }
}

/** 404 (or a uid precondition 409) → gone; 429 or the "multiple PDBs" 500 → blocked; the rest rethrown. */
export function evictionOutcome(error: unknown): EvictionOutcome {
  if (error instanceof NotFoundError) return "gone";
  if (error instanceof TooManyRequestsError) return "blocked";
  if (error instanceof KubeApiError && error.code === 409) return "gone";
  if (error instanceof KubeApiError && error.code === 500 && /multiple pod disruption budgets/i.test(error.message))
    return "blocked";
  throw error;
}

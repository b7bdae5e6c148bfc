/** EC2NodeClass finalizer writes over CustomObjectsApi (the NodeClassFinalizerWriter port). */
import { CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import type { FinalizedObject, NodeClassFinalizerWriter } from "../../ports/cluster.ts";
import { kube, kubeIgnoreNotFound, mergePatch } from "./client.ts";
import { finalizerRemoval } from "./eviction.ts";

const NODECLASSES = { group: "karpenter.k8s.aws", version: "v1", plural: "ec2nodeclasses" } as const;

/** Adds and removes EC2NodeClass finalizers. */
export class KubeNodeClassFinalizers implements NodeClassFinalizerWriter {
  private readonly custom: CustomObjectsApi;

  constructor(kubeConfig: KubeConfig) {
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  async addNodeClassFinalizer(nodeClass: FinalizedObject, finalizer: string): Promise<void> {
    const current = nodeClass.metadata?.finalizers ?? [];
    if (current.includes(finalizer)) return;
    const name = nodeClass.metadata?.name ?? "";
    // The whole list under the cached resourceVersion: a concurrent change to it conflicts instead of being lost.
    const body = {
      metadata: { resourceVersion: nodeClass.metadata?.resourceVersion, finalizers: [...current, finalizer] },
    };
    await kube(`adding finalizer ${finalizer} to ec2nodeclass ${name}`, () =>
      this.custom.patchClusterCustomObject({ ...NODECLASSES, name, body }, mergePatch),
    );
  }

  async removeNodeClassFinalizer(nodeClass: FinalizedObject, finalizer: string): Promise<void> {
    const name = nodeClass.metadata?.name ?? "";
    const body = finalizerRemoval(nodeClass.metadata?.finalizers ?? [], finalizer);
    if (body === undefined) return;
    await kubeIgnoreNotFound(`removing finalizer ${finalizer} from ec2nodeclass ${name}`, () =>
      this.custom.patchClusterCustomObject({ ...NODECLASSES, name, body }),
    );
  }
}

/**
 * Pure rules behind Karpenter's pod metrics (karpenter-behaviour.md §8; core's
 * pkg/controllers/metrics/pod): the label set of `karpenter_pods_state` and when
 * `karpenter_pods_startup_duration_seconds` observes a pod.
 */
import { Label } from "../../../policies/domain/labels.ts";
import type { Node, Pod } from "../lifecycle/objects.ts";
import { findCondition, timeMs } from "../lifecycle/objects.ts";

/** The labels of `karpenter_pods_state`, in Karpenter's order. */
export const POD_STATE_LABELS = [
  "name",
  "namespace",
  "owner",
  "node",
  "scheduled",
  "nodepool",
  "zone",
  "arch",
  "capacity_type",
  "instance_type",
  "phase",
  "ready",
  "managed",
] as const;

export type PodStateLabels = Readonly<Record<(typeof POD_STATE_LABELS)[number], string>>;

/** The Node labels the metric reads, by metric label. */
const NODE_LABELS = {
  nodepool: Label.nodePool,
  zone: Label.zone,
  arch: Label.arch,
  capacity_type: Label.capacityType,
  instance_type: Label.instanceType,
} as const;

/**
 * Karpenter's hand-made self link of the first owner reference ("" without one),
 * e.g. /apis/apps/v1/namespaces/web/replicasets/web-5d4f.
 */
export function ownerSelfLink(pod: Pod): string {
  const owner = pod.metadata?.ownerReferences?.[0];
  if (owner === undefined) return "";
  return (
    `/apis/${owner.apiVersion}/namespaces/${pod.metadata?.namespace ?? ""}/` +
    `${owner.kind.toLowerCase()}s/${owner.name}`
  );
}

/**
 * The `karpenter_pods_state` labels of a pod: its name, namespace, owner, node and phase, plus the
 * nodepool, zone, arch, capacity type and instance type labels of its Node (`node`: the Node named
 * by spec.nodeName if it exists). Anything unknown is "" — an unbound pod, a missing Node or label.
 * `scheduled` (bound to a node), `ready` (Ready=True) and `managed` (its Node has a NodePool label) are
 * "true"/"false", as Karpenter writes them.
 */
export function podStateLabels(pod: Pod, node: Node | undefined): PodStateLabels {
  const nodeLabels = node?.metadata?.labels ?? {};
  const fromNode = Object.fromEntries(
    Object.entries(NODE_LABELS).map(([metric, key]) => [metric, nodeLabels[key] ?? ""]),
  ) as Record<keyof typeof NODE_LABELS, string>;
  return {
    name: pod.metadata?.name ?? "",
    namespace: pod.metadata?.namespace ?? "",
    owner: ownerSelfLink(pod),
    node: pod.spec?.nodeName ?? "",
    phase: pod.status?.phase ?? "",
    ...fromNode,
    ...flags(pod, fromNode.nodepool),
  };
}

function flags(pod: Pod, nodePool: string): { scheduled: string; ready: string; managed: string } {
  return {
    scheduled: String((pod.spec?.nodeName ?? "") !== ""),
    ready: String(findCondition(pod.status?.conditions, "Ready")?.status === "True"),
    managed: String(nodePool !== ""),
  };
}

/**
 * A comparable digest of the Node labels `podStateLabels` reads (a Node change matters to its pods'
 * series only when this changes).
 */
export function nodeLabelDigest(node: Pick<Node, "metadata">): string {
  const labels = node.metadata?.labels ?? {};
  return Object.values(NODE_LABELS)
    .map((k) => labels[k] ?? "")
    .join("\u0000");
}

/** Whether two label sets name the same series. */
export function sameSeries(a: PodStateLabels, b: PodStateLabels): boolean {
  return POD_STATE_LABELS.every((k) => a[k] === b[k]);
}

/**
 * The startup tracking after one look at a pod: whether it stays remembered, and the
 * duration to observe now, if any.
 */
export interface StartupStep {
  readonly pending: boolean;
  readonly seconds?: number;
}

/**
 * Karpenter's startup rule: a pod seen in phase Pending is remembered; once it is Ready, the time
 * from its creation to its Ready transition is observed, once, and it is forgotten. A pod never
 * seen Pending is not observed (its start was before this process watched), nor is one that ends
 * (Succeeded/Failed) without becoming Ready.
 */
export function startupStep(pod: Pod, seenPending: boolean): StartupStep {
  const phase = pod.status?.phase;
  if (phase === "Pending") return { pending: true };
  if (!seenPending || phase === "Succeeded" || phase === "Failed") return { pending: false };
  const ready = findCondition(pod.status?.conditions, "Ready");
  const readyAt = ready?.status === "True" ? timeMs(ready.lastTransitionTime) : undefined;
  const created = timeMs(pod.metadata?.creationTimestamp);
  if (readyAt === undefined || created === undefined) return { pending: true };
  return { pending: false, seconds: Math.max(0, (readyAt - created) / 1000) };
}

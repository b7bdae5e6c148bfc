/** Pure decisions for NodeClaim registration: what a newly joined Node must carry once Karpenter has synced it. */
import type { Node, NodeClaim, OwnerReference, Taint } from "./objects.ts";

/** Karpenter's keys used by the lifecycle (karpenter-behaviour.md §10). */
export const Keys = {
  finalizer: "karpenter.sh/termination",
  unregisteredTaint: "karpenter.sh/unregistered",
  disruptedTaint: "karpenter.sh/disrupted",
  registeredLabel: "karpenter.sh/registered",
  initializedLabel: "karpenter.sh/initialized",
  doNotSyncTaintsLabel: "karpenter.sh/do-not-sync-taints",
  doNotDisrupt: "karpenter.sh/do-not-disrupt",
  terminationTimestamp: "karpenter.sh/nodeclaim-termination-timestamp",
  excludeFromLoadBalancers: "node.kubernetes.io/exclude-from-external-load-balancers",
} as const;

/** The Node fields registration writes, as a full desired value for each. */
export interface NodeSync {
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly Taint[];
  readonly finalizers: readonly string[];
  readonly ownerReferences: readonly OwnerReference[];
  /** The Node joined without karpenter.sh/unregistered (the user must see an event). */
  readonly unregisteredTaintMissing: boolean;
  /** Whether anything differs from the Node as it is. */
  readonly changed: boolean;
}

const sameTaint = (a: Taint, b: Taint): boolean => a.key === b.key && a.effect === b.effect;

function syncTaints(nodeClaim: NodeClaim, current: readonly Taint[], firstSync: boolean): Taint[] {
  const out = current.filter((t) => t.key !== Keys.unregisteredTaint);
  // Taints are copied once, at registration: afterwards they belong to the Node (startup
  // taints get removed by their owners).
  if (!firstSync || nodeClaim.metadata?.labels?.[Keys.doNotSyncTaintsLabel] === "true") return out;
  for (const t of [...(nodeClaim.spec?.taints ?? []), ...(nodeClaim.spec?.startupTaints ?? [])]) {
    if (!out.some((o) => sameTaint(o, t)))
      out.push({ key: t.key, effect: t.effect, ...(t.value === undefined ? {} : { value: t.value }) });
  }
  return out;
}

function ownerRef(nodeClaim: NodeClaim): OwnerReference {
  return {
    apiVersion: "karpenter.sh/v1",
    kind: "NodeClaim",
    name: nodeClaim.metadata?.name ?? "",
    uid: nodeClaim.metadata?.uid ?? "",
    blockOwnerDeletion: true,
  };
}

function desiredOwners(nodeClaim: NodeClaim, node: Node): readonly OwnerReference[] {
  const owners = node.metadata?.ownerReferences ?? [];
  const uid = nodeClaim.metadata?.uid ?? "";
  return owners.some((o) => o.uid === uid) ? owners : [...owners, ownerRef(nodeClaim)];
}

function differs(node: Node, sync: Omit<NodeSync, "changed" | "unregisteredTaintMissing">): boolean {
  const meta = node.metadata ?? {};
  return (
    JSON.stringify(sync.labels) !== JSON.stringify(meta.labels ?? {}) ||
    JSON.stringify(sync.taints) !== JSON.stringify(node.spec?.taints ?? []) ||
    sync.finalizers.length !== (meta.finalizers ?? []).length ||
    sync.ownerReferences.length !== (meta.ownerReferences ?? []).length
  );
}

/**
 * What the Node should look like after registration: NodeClaim labels + registered=true, taints
 * synced, finalizer and ownerRef.
 */
export function registrationSync(nodeClaim: NodeClaim, node: Node): NodeSync {
  const current = node.spec?.taints ?? [];
  const firstSync = node.metadata?.labels?.[Keys.registeredLabel] !== "true";
  const desired = {
    labels: { ...(node.metadata?.labels ?? {}), ...(nodeClaim.metadata?.labels ?? {}), [Keys.registeredLabel]: "true" },
    taints: syncTaints(nodeClaim, current, firstSync),
    finalizers: [...new Set([...(node.metadata?.finalizers ?? []), Keys.finalizer])],
    ownerReferences: desiredOwners(nodeClaim, node),
  };
  const unregisteredTaintMissing = firstSync && !current.some((t) => t.key === Keys.unregisteredTaint);
  return { ...desired, unregisteredTaintMissing, changed: differs(node, desired) };
}

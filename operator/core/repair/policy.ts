/**
 * Node repair (gate NodeRepair), as Karpenter's node.health controller decides it (pure; time is an argument).
 *
 * A Node whose condition matches a repair policy for longer than the policy's toleration has its NodeClaim
 * deleted, forcefully (the NodeClaim's termination timestamp is set to now), and the provisioner replaces
 * it. Repair stops when more than 20% of the NodePool's Nodes (rounded up, as a PodDisruptionBudget
 * rounds) are unhealthy, or, for a NodeClaim without a NodePool, of the cluster's Nodes: a pool-wide
 * problem (a bad AMI, a broken network) is not fixed by replacing every node at once.
 *
 * The policies are the AWS provider's for this controller (its `legacyRepairPolicies`): the kubelet's Ready
 * and the EKS node monitoring agent's conditions, every reason, each with its toleration.
 */
import { findCondition, timeMs, type Node, type NodeClaim } from "../lifecycle/objects.ts";

/** One unhealthy condition state and how long it is tolerated. */
export interface RepairPolicy {
  readonly conditionType: string;
  readonly conditionStatus: "False" | "Unknown";
  readonly tolerationMs: number;
}

const MINUTE = 60_000;

/** The AWS provider's repair policies (karpenter-provider-aws pkg/cloudprovider, legacy node repair). */
export const REPAIR_POLICIES: readonly RepairPolicy[] = Object.freeze([
  { conditionType: "Ready", conditionStatus: "False", tolerationMs: 30 * MINUTE },
  { conditionType: "Ready", conditionStatus: "Unknown", tolerationMs: 30 * MINUTE },
  { conditionType: "AcceleratedHardwareReady", conditionStatus: "False", tolerationMs: 10 * MINUTE },
  { conditionType: "StorageReady", conditionStatus: "False", tolerationMs: 30 * MINUTE },
  { conditionType: "NetworkingReady", conditionStatus: "False", tolerationMs: 30 * MINUTE },
  { conditionType: "KernelReady", conditionStatus: "False", tolerationMs: 30 * MINUTE },
  { conditionType: "ContainerRuntimeReady", conditionStatus: "False", tolerationMs: 30 * MINUTE },
]);

/** Karpenter's allowedUnhealthyPercent. */
export const ALLOWED_UNHEALTHY_PERCENT = 20;

/** How long a blocked repair waits before looking again (Karpenter's 5 minutes). */
export const BLOCKED_RECHECK_MS = 5 * MINUTE;

const NODEPOOL_LABEL = "karpenter.sh/nodepool";

/** The condition a repair would act on and when it becomes due. */
export interface UnhealthyCondition {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  /** lastTransitionTime + the policy's toleration (ms). */
  readonly dueAt: number;
}

/** The matching condition due first (Karpenter requeues on the nearest), or undefined for a healthy Node. */
export function unhealthyCondition(
  node: Node,
  policies: readonly RepairPolicy[] = REPAIR_POLICIES,
): UnhealthyCondition | undefined {
  let found: UnhealthyCondition | undefined;
  for (const policy of policies) {
    const condition = findCondition(node.status?.conditions, policy.conditionType);
    if (condition?.status !== policy.conditionStatus) continue;
    // A condition without a transition time counts from the epoch, as Go's zero time does: it is due.
    const dueAt = (timeMs(condition.lastTransitionTime) ?? 0) + policy.tolerationMs;
    if (found === undefined || dueAt < found.dueAt) {
      found = { type: condition.type, status: condition.status, reason: condition.reason ?? "", dueAt };
    }
  }
  return found;
}

/** Whether any policy matches the Node now, whatever its toleration (what the 20% rule counts). */
export function isUnhealthy(node: Node, policies: readonly RepairPolicy[] = REPAIR_POLICIES): boolean {
  return unhealthyCondition(node, policies) !== undefined;
}

/** How many of `total` Nodes may be unhealthy: 20%, rounded up (3 nodes: 1; 10 nodes: 2; 11 nodes: 3). */
export function unhealthyThreshold(total: number): number {
  return Math.floor((ALLOWED_UNHEALTHY_PERCENT * total + 99) / 100);
}

/** What the repair controller does with one Node. */
export type RepairDecision =
  | { readonly action: "none" }
  | { readonly action: "wait"; readonly requeueAfterMs: number }
  | {
      readonly action: "blocked";
      readonly requeueAfterMs: number;
      readonly message: string;
      /** The NodePool whose health blocks it; undefined: the cluster's (a NodeClaim without a NodePool). */
      readonly nodePool: string | undefined;
    }
  | { readonly action: "repair"; readonly condition: UnhealthyCondition };

export interface RepairInput {
  readonly node: Node;
  /** The Node's NodeClaim; undefined: not Karpenter's, never repaired. */
  readonly nodeClaim: NodeClaim | undefined;
  /** Every Node of the cluster (the 20% rule reads its NodePool's, or all for a NodeClaim without one). */
  readonly nodes: readonly Node[];
  readonly now: number;
  readonly policies?: readonly RepairPolicy[];
}

/** The decision for one Node: nothing, wait for the toleration, blocked by the 20% rule, or repair. */
export function repairDecision(input: RepairInput): RepairDecision {
  const policies = input.policies ?? REPAIR_POLICIES;
  if (input.nodeClaim === undefined || input.nodeClaim.metadata?.deletionTimestamp !== undefined)
    return { action: "none" };
  const condition = unhealthyCondition(input.node, policies);
  if (condition === undefined) return { action: "none" };
  if (input.now < condition.dueAt) return { action: "wait", requeueAfterMs: condition.dueAt - input.now };
  const pool = input.nodeClaim.metadata?.labels?.[NODEPOOL_LABEL];
  const counted =
    pool === undefined ? input.nodes : input.nodes.filter((n) => n.metadata?.labels?.[NODEPOOL_LABEL] === pool);
  const unhealthy = counted.filter((n) => isUnhealthy(n, policies)).length;
  if (unhealthy <= unhealthyThreshold(counted.length)) return { action: "repair", condition };
  const scope = pool === undefined ? "cluster" : "nodepool";
  return {
    action: "blocked",
    requeueAfterMs: BLOCKED_RECHECK_MS,
    nodePool: pool,
    message: `more than ${ALLOWED_UNHEALTHY_PERCENT}% nodes are unhealthy in the ${scope}`,
  };
}

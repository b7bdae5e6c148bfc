/**
 * The disruption controller's plan as data (behaviour §4): candidates, why the others are not,
 * per-pool budgets, and the one command a pass executes. Built by plan.ts, executed by
 * controllers/disruption; nothing here does I/O.
 */
import type { DisruptionReason } from "../../../policies/domain/budgets.ts";
import type { NodeClaim, Node, Pod } from "../lifecycle/objects.ts";
import type { PlannedNodeClaim } from "../scheduling/types.ts";

export type { DisruptionReason } from "../../../policies/domain/budgets.ts";

/**
 * The methods in v1.14's order, after kerf's scheduled-off (kerf.dev/off-schedule: the nodes of a pool off now go
 * first, under its budgets); the first that yields a command wins the pass.
 */
export const METHODS = [
  "scheduled-off",
  "emptiness",
  "static-drift",
  "drift",
  "multi-node-consolidation",
  "single-node-consolidation",
] as const;
export type Method = (typeof METHODS)[number];

/** What keeps a node out of voluntary disruption; the kind names the Event's blocker. */
export type BlockerKind =
  | "budget"
  | "pdb"
  | "do-not-disrupt"
  | "nominated"
  | "not-initialized"
  | "in-flight"
  | "no-nodepool"
  | "unconsolidatable"
  | "unschedulable";

export interface Blocker {
  readonly kind: BlockerKind;
  readonly message: string;
}

/** A NodeClaim with a Node the controller may disrupt, with what it knows about it. */
export interface Candidate {
  readonly nodeClaim: NodeClaim;
  readonly node: Node;
  readonly name: string;
  readonly nodeName: string;
  readonly nodePool: string;
  readonly instanceType: string;
  readonly capacityType: string;
  readonly zone: string;
  readonly pricePerHour: number;
  /** Pods that would move (not DaemonSet, mirror, terminal or terminating). */
  readonly pods: readonly Pod[];
  readonly createdAt: number;
  readonly consolidatable: boolean;
  /** Whether the NodePool's kerf.dev/consolidate-empty-after has passed (emptiness may take it if empty). */
  readonly emptyAfterPassed: boolean;
  /** The Drifted condition's reason when True. */
  readonly driftReason?: string | undefined;
  /** When the Drifted condition turned True (ms; drift takes the earliest first). */
  readonly driftedAt?: number | undefined;
  /** A pod-level blocker (PDB, pod do-not-disrupt): blocks every method except drift with a terminationGracePeriod. */
  readonly podBlocker?: Blocker | undefined;
  /** Karpenter's disruption cost: rescheduling cost × remaining-lifetime fraction. */
  readonly disruptionCost: number;
  /** Karpenter's RescheduleDisruptionCost: 1 + the positive eviction costs of `pods` (ordering: price / this). */
  readonly rescheduleCost: number;
}

/** One decision to execute: delete the candidates, after launching the replacements (if any). */
export interface Command {
  readonly method: Method;
  readonly reason: DisruptionReason;
  readonly decision: "delete" | "replace";
  readonly candidates: readonly Candidate[];
  readonly replacements: readonly PlannedNodeClaim[];
  readonly savingsPerHour: number;
}

/** Per pool and reason: what the budgets allow now, after nodes already disrupting. */
export interface PoolBudget {
  readonly nodePool: string;
  readonly reason: DisruptionReason;
  /** Initialized, managed nodes (the base of percentages). */
  readonly nodes: number;
  /** Nodes deleting, NotReady or in an executing command. */
  readonly disrupting: number;
  /** max(min over active budgets − disrupting, 0). */
  readonly allowed: number;
  readonly explanation: string;
}

/** Why a node was looked at and not disrupted (Unconsolidatable / DisruptionBlocked Events). */
export interface Skipped {
  readonly nodeClaim: NodeClaim;
  readonly node?: Node | undefined;
  readonly blocker: Blocker;
}

/** The result of one pass. */
export interface DisruptionPlan {
  readonly command?: Command | undefined;
  /** The method that produced the command, or the last one tried. */
  readonly method?: Method | undefined;
  readonly budgets: readonly PoolBudget[];
  /** Eligible candidates per reason (karpenter_voluntary_disruption_eligible_nodes). */
  readonly eligible: Readonly<Record<DisruptionReason, number>>;
  readonly blocked: readonly Skipped[];
  readonly unconsolidatable: readonly Skipped[];
  /** Where single-node consolidation stopped when its evaluation bound was reached (resume point). */
  readonly resumeAfter?: string | undefined;
  /** Where drift stopped when the same bound was reached (its resume point). */
  readonly driftResumeAfter?: string | undefined;
  /** Active pods of managed nodes whose do-not-disrupt value is invalid, ignored (InvalidDoNotDisruptAnnotation). */
  readonly invalidDoNotDisrupt?: readonly InvalidDoNotDisrupt[] | undefined;
}

/** A pod whose `karpenter.sh/do-not-disrupt` does not parse, and why. */
export interface InvalidDoNotDisrupt {
  readonly pod: { readonly namespace: string; readonly name: string; readonly uid?: string | undefined };
  readonly message: string;
}

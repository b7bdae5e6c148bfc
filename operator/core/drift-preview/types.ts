/**
 * The data a drift preview returns (`kerf check --diff`): per changed NodePool and EC2NodeClass, whether
 * the change replaces nodes, why (the operator's drift reasons), and how the pools' Drifted budgets pace it.
 * Plain data: the CLI renders it as text or JSON; instants are ISO strings.
 */
import type { DriftReason } from "../disruption/drift.ts";
import type { NodeClaim } from "../lifecycle/objects.ts";

export type PreviewKind = "NodePool" | "EC2NodeClass";

/** One object of either side, as the apiserver would store it (the caller applies the CRD defaults). */
export interface PreviewInput {
  readonly kind: PreviewKind;
  readonly value: Readonly<Record<string, unknown>>;
  /** Where the new (or, for a removed object, the old) version stands; echoed back untouched. */
  readonly source?: { readonly file: string; readonly line: number } | undefined;
}

/** What the cluster says, when the preview is run with `--cluster`. */
export interface LiveState {
  readonly nodeClaims: readonly NodeClaim[];
  /** Live NodePools: budgets and nodeClassRefs of pools the files do not hold. */
  readonly nodePools: readonly Readonly<Record<string, unknown>>[];
  /** The cluster's CA bundle (the kubeconfig's, the operator's default): part of the EC2NodeClass hash. */
  readonly caBundle?: string | undefined;
}

/** One changed field, values as the user wrote them ("(unset)" when absent). */
export interface FieldChange {
  readonly path: string;
  readonly before: string;
  readonly after: string;
}

/** One way the change drifts nodes. `certain`: every node stamped by kerf; otherwise only some, or maybe. */
export interface DriftCause {
  readonly reason: DriftReason;
  readonly scope: "every node" | "some nodes" | "maybe";
  /** A sentence naming the nodes affected. */
  readonly detail: string;
  readonly fields: readonly FieldChange[];
}

/**
 * "all": every node is replaced; "some": nodes whose labels fall outside; "maybe":
 * depends on what selectors resolve to.
 */
export type Replacement = "all" | "some" | "maybe" | "none" | "removes";

/** One Drifted budget of a pool, evaluated at `now`. `index` -1 is the API default ({nodes: "10%"}). */
export interface BudgetState {
  readonly index: number;
  readonly nodes: string;
  readonly schedule?: string;
  readonly duration?: string;
  readonly active: boolean;
  /** Next instant after now the window opens; when it is active, when it closes (absent: never, in effect). */
  readonly opensAt?: string;
  readonly closesAt?: string;
  /** A budget that cannot be evaluated allows 0 (fails closed). */
  readonly error?: string;
}

/** How a pool's budgets pace a Drifted rollout. */
export interface PoolPacing {
  readonly nodePool: string;
  readonly timeZone: string;
  /** The budgets that apply to the Drifted reason (all of them when none lists reasons). */
  readonly budgets: readonly BudgetState[];
  /** What the active budgets allow now: "2 nodes", "10% of the pool's nodes (rounded up)", "unlimited", min(...). */
  readonly allowedNow: string;
  /** An active budget allows 0 now. */
  readonly blocked: boolean;
  /** When the blocking windows close (absent when blocked by a budget that is always active, or not blocked). */
  readonly blockedUntil?: string;
  /**
   * With a known node count: how many waves the drifting nodes take, each of at most `perWave` nodes;
   * `startsAt` when a window blocks now. For a "maybe" change `drifting` is every NodeClaim (the worst case).
   */
  readonly waves?:
    | {
        readonly nodes: number;
        readonly drifting: number;
        readonly perWave: number;
        readonly waves: number;
        readonly startsAt?: string;
        /** With `kerf.dev/drift-rollout: waves`: each wave's size (1, 2, 4, …), each waiting for the one before. */
        readonly sizes?: readonly number[];
      }
    | undefined;
  /** Why no wave estimate: unknown node count, or a budget that never allows any. */
  readonly wavesNote?: string;
}

/** Live NodeClaims of one pool measured against the new objects (`--cluster`). */
export interface LiveCount {
  readonly nodePool: string;
  readonly nodeClaims: number;
  /** Initialized and not terminating: what budget percentages are of. */
  readonly budgetNodes: number;
  /** NodeClaims the new objects drift, by reason. */
  readonly drifting: number;
  readonly byReason: Readonly<Partial<Record<DriftReason, number>>>;
  /** Stamped with another hash version (Karpenter's, an older kerf): re-stamped, never drifted by hash. */
  readonly otherHashVersion: number;
  /** Already Drifted=True before the change. */
  readonly alreadyDrifted: number;
}

/** The preview of one changed object. */
export interface ObjectPreview {
  readonly kind: PreviewKind;
  readonly name: string;
  readonly change: "added" | "removed" | "modified";
  readonly source?: { readonly file: string; readonly line: number } | undefined;
  readonly replaces: Replacement;
  /** One sentence: the verdict. */
  readonly summary: string;
  readonly causes: readonly DriftCause[];
  /** Changed fields that replace no node (disruption, limits, weight, widened requirements, ...). */
  readonly unhashed: readonly FieldChange[];
  /** The NodePools whose nodes the change concerns (for an EC2NodeClass: those referencing it). */
  readonly nodePools: readonly string[];
  readonly pacing: readonly PoolPacing[];
  readonly live?: readonly LiveCount[] | undefined;
}

export interface DriftPreview {
  readonly now: string;
  readonly changed: readonly ObjectPreview[];
  /** Objects present on both sides and identical (after defaults). */
  readonly unchanged: number;
}

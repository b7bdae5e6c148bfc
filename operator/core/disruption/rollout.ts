/**
 * The NodePool's drift rollout as a condition (kerf extension; Karpenter users ask for one, core#3071):
 * `Drifted` is True while any of its NodeClaims is drifted, with how far the rollout is and what its
 * budget allows now ("7 of 40 NodeClaims drifted (2 being replaced); budget allows 4 now"), False
 * once every NodeClaim matches the NodePool and its EC2NodeClass. Argo CD and people read progress
 * from it; reason RolloutBlocked says the budget allows nothing at the moment.
 */
import type { Condition, Node, NodeClaim, Pod } from "../lifecycle/objects.ts";
import { findCondition } from "../lifecycle/objects.ts";
import { driftWaves } from "./drift-waves.ts";
import { poolBudgets, waveExplanation, type PoolObject } from "./pool-budgets.ts";

export const ROLLOUT_CONDITION = "Drifted";

const drifted = (c: NodeClaim): boolean => findCondition(c.status?.conditions, "Drifted")?.status === "True";

/** What the condition reads besides the pool: its NodeClaims (deleting ones included), the Nodes and the pods. */
export interface RolloutView {
  readonly claims: readonly NodeClaim[];
  readonly nodes: readonly Node[];
  /** The cluster's pods, for a rollout in waves (a wave waits for its pods); absent, they are not waited for. */
  readonly pods?: readonly Pod[] | undefined;
}

/** The condition for `pool` at `now`. */
export function rolloutCondition(
  pool: PoolObject,
  view: RolloutView,
  now: Date,
): Omit<Condition, "lastTransitionTime"> {
  const { claims, nodes, pods } = view;
  const live = claims.filter((c) => c.metadata?.deletionTimestamp === undefined);
  const replacing = claims.filter((c) => c.metadata?.deletionTimestamp !== undefined && drifted(c)).length;
  const waiting = live.filter(drifted).length;
  if (waiting + replacing === 0) {
    return {
      type: ROLLOUT_CONDITION,
      status: "False",
      reason: "NotDrifted",
      message: `all ${live.length} NodeClaims match the NodePool and its EC2NodeClass`,
    };
  }
  const budget = poolBudgets({ now, nodePools: [pool], nodeClaims: claims, nodes, pods, inFlight: new Set() }).find(
    (b) => b.reason === "Drifted",
  );
  const allowed = budget?.allowed ?? 0;
  const waves = driftWaves({ pool, claims, nodes, pods });
  const message =
    `${waiting + replacing} of ${live.length + replacing} NodeClaims drifted (${replacing} being replaced); ` +
    `budget allows ${allowed} now${waves === undefined ? "" : `; ${waveExplanation(waves)}`}`;
  // A wave waiting for its nodes to settle is progress, not a blocked rollout.
  const settling = waves !== undefined && waves.startable === 0 && waves.inProgress > 0;
  if (waiting > 0 && allowed === 0 && !settling) {
    return {
      type: ROLLOUT_CONDITION,
      status: "True",
      reason: "RolloutBlocked",
      message: `${message}: ${budget?.explanation ?? ""}`,
    };
  }
  return { type: ROLLOUT_CONDITION, status: "True", reason: "RolloutInProgress", message };
}

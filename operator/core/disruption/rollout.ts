/**
 * The NodePool's drift rollout as a condition (kerf extension; Karpenter users ask for one, core#3071):
 * `Drifted` is True while any of its NodeClaims is drifted, with how far the rollout is and what its
 * budget allows now ("7 of 40 NodeClaims drifted (2 being replaced); budget allows 4 now"), False
 * once every NodeClaim matches the NodePool and its EC2NodeClass. Argo CD and people read progress
 * from it; reason RolloutBlocked says the budget allows nothing at the moment.
 */
import type { Condition, Node, NodeClaim } from "../lifecycle/objects.ts";
import { findCondition } from "../lifecycle/objects.ts";
import { poolBudgets, type PoolObject } from "./pool-budgets.ts";

export const ROLLOUT_CONDITION = "Drifted";

const drifted = (c: NodeClaim): boolean => findCondition(c.status?.conditions, "Drifted")?.status === "True";

/** The condition for `pool`, given its NodeClaims (deleting ones included) and the cluster's Nodes. */
export function rolloutCondition(pool: PoolObject, claims: readonly NodeClaim[], nodes: readonly Node[], now: Date): Omit<Condition, "lastTransitionTime"> {
  const live = claims.filter((c) => c.metadata?.deletionTimestamp === undefined);
  const replacing = claims.filter((c) => c.metadata?.deletionTimestamp !== undefined && drifted(c)).length;
  const waiting = live.filter(drifted).length;
  if (waiting + replacing === 0) {
    return { type: ROLLOUT_CONDITION, status: "False", reason: "NotDrifted", message: `all ${live.length} NodeClaims match the NodePool and its EC2NodeClass` };
  }
  const budget = poolBudgets({ now, nodePools: [pool], nodeClaims: claims, nodes, inFlight: new Set() }).find((b) => b.reason === "Drifted");
  const allowed = budget?.allowed ?? 0;
  const message = `${waiting + replacing} of ${live.length + replacing} NodeClaims drifted (${replacing} being replaced); budget allows ${allowed} now`;
  const blocked = waiting > 0 && allowed === 0;
  return { type: ROLLOUT_CONDITION, status: "True", reason: blocked ? "RolloutBlocked" : "RolloutInProgress", message: blocked ? `${message}: ${budget?.explanation ?? ""}` : message };
}

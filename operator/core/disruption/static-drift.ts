/**
 * StaticDrift (Karpenter v1.8+, behaviour §4.1): a drifted node of a static NodePool (`spec.replicas`)
 * is replaced one for one by a NodeClaim launched from the pool's template, so the pool keeps its
 * count. No simulation: the replacement is the pool's static NodeClaim (core/nodepool/static.ts), not
 * what the node's pods need. Per pool, under the Drifted budget:
 * - nothing while the pool has more NodeClaims than replicas (active + pending disruption > replicas):
 *   scale-down goes first;
 * - nothing when `limits.nodes` leaves no room for the replacement next to the node it replaces
 *   (Karpenter's TerminateFirstDrift gate, off by default and not in kerf, would delete first): the
 *   candidates are reported blocked;
 * - pod-level blockers hold a candidate unless its NodeClaim has a terminationGracePeriod (eventual, as
 *   drift).
 * kerf plans one command per pass, as for every method; Karpenter returns one command per candidate
 * the budget allows and runs them together. Candidates go in drift order (empty first, earliest drifted).
 */
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import type { NodeClaim } from "../lifecycle/objects.ts";
import { nodeLimitOf, replicasOf, staticClaim, staticCounts } from "../nodepool/static.ts";
import type { NodePoolObject } from "../provisioning/cluster-view.ts";
import { hasGracePeriod } from "./candidates.ts";
import { driftOrder, type MethodContext } from "./methods.ts";
import type { Candidate, Command } from "./types.ts";

export interface StaticDriftInput {
  readonly nodePools: readonly NodePoolObject[];
  readonly nodeClaims: readonly NodeClaim[];
  /** Instance types per NodePool name (a static pool missing here is left alone). */
  readonly instanceTypes: ReadonlyMap<string, readonly InstanceType[]>;
}

const blocked = (c: Candidate, message: string): MethodContext["budgetBlocked"][number] => ({
  nodeClaim: c.nodeClaim,
  node: c.node,
  blocker: { kind: "budget", message },
});

const BUDGET_SPENT = "the NodePool's disruption budget for Drifted allows no more disruptions now";
const AT_LIMIT = "static NodePool is at its node limit and cannot stage a replacement";

/** Why the pool cannot replace a drifted node now (a message for DisruptionBlocked), "" when it waits silently. */
function held(ctx: MethodContext, input: StaticDriftInput, pool: NodePoolObject): string | undefined {
  const name = pool.metadata?.name ?? "";
  const counts = staticCounts(name, input.nodeClaims);
  const present = counts.active.length + counts.pendingDisruption.length;
  if (present > (replicasOf(pool) ?? 0)) return "";
  if (ctx.ledger.remaining(name, "Drifted") <= 0) return BUDGET_SPENT;
  if (present + counts.deleting.length >= nodeLimitOf(pool)) return AT_LIMIT;
  return undefined;
}

function poolCommand(
  ctx: MethodContext,
  input: StaticDriftInput,
  pool: NodePoolObject,
  drifted: readonly Candidate[],
): Command | undefined {
  const name = pool.metadata?.name ?? "";
  const why = held(ctx, input, pool);
  if (why !== undefined) {
    if (why !== "") for (const c of drifted) ctx.budgetBlocked.push(blocked(c, why));
    return undefined;
  }
  const replacement = staticClaim(pool, input.instanceTypes.get(name) ?? []);
  if (replacement === undefined) return undefined;
  for (const c of drifted) {
    if (c.podBlocker !== undefined && !hasGracePeriod(c.nodeClaim)) {
      ctx.skipped.push({ nodeClaim: c.nodeClaim, node: c.node, blocker: c.podBlocker });
      continue;
    }
    ctx.ledger.take(name, "Drifted");
    return {
      method: "static-drift",
      reason: "Drifted",
      decision: "replace",
      candidates: [c],
      replacements: [replacement],
      savingsPerHour: c.pricePerHour - replacement.launch.pricePerHour,
    };
  }
  return undefined;
}

/** The first static pool's (by name) drift replacement, or undefined. `candidates`: static pools' only. */
export function staticDrift(
  ctx: MethodContext,
  input: StaticDriftInput,
  candidates: readonly Candidate[],
): Command | undefined {
  const pools = [...input.nodePools]
    .filter((p) => replicasOf(p) !== undefined && input.instanceTypes.has(p.metadata?.name ?? ""))
    .sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
  for (const pool of pools) {
    const drifted = driftOrder(candidates.filter((c) => c.nodePool === pool.metadata?.name));
    if (drifted.length === 0) continue;
    const command = poolCommand(ctx, input, pool, drifted);
    if (command !== undefined) return command;
  }
  return undefined;
}

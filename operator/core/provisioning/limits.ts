/**
 * NodePool limits left for a new batch (behaviour §1.16): the limit minus what the pool's NodeClaims
 * already hold — the launched capacity, or for a claim not launched yet the largest capacity among
 * its options (Karpenter's pessimistic subtractMax) — and minus one node per claim. Because claims
 * in flight count, batches that follow each other cannot overshoot the limit together.
 */
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { Label } from "../../../policies/domain/labels.ts";
import { addResources, parseResourceList, type ResourceList } from "../../../policies/domain/quantity.ts";
import type { NodeClaim } from "../lifecycle/objects.ts";
import { claimOptions } from "./cluster-view.ts";

function largest(lists: readonly ResourceList[]): ResourceList {
  const out: Record<string, number> = {};
  for (const l of lists) for (const [k, v] of Object.entries(l)) out[k] = Math.max(out[k] ?? 0, v);
  return out;
}

/** What one NodeClaim counts against its pool's limits. */
export function claimUsage(claim: NodeClaim, types: ReadonlyMap<string, InstanceType>): ResourceList {
  const launched = claim.status?.capacity;
  return launched === undefined
    ? largest(claimOptions(claim, types).map((t) => t.capacity))
    : parseResourceList(launched);
}

/** The pool's limits with its NodeClaims' usage taken off; undefined when the pool sets no limits. */
export function remainingLimits(
  pool: string,
  limits: ResourceList | undefined,
  claims: readonly NodeClaim[],
  types: ReadonlyMap<string, InstanceType>,
): ResourceList | undefined {
  if (limits === undefined) return undefined;
  const own = claims.filter((c) => c.metadata?.labels?.[Label.nodePool] === pool);
  const used = addResources(...own.map((c) => claimUsage(c, types)), { nodes: own.length });
  return Object.fromEntries(Object.entries(limits).map(([k, v]) => [k, v - (used[k] ?? 0)]));
}

/**
 * Expiration (behaviour §4.11): a NodeClaim older than its `spec.expireAfter` is deleted, forcefully —
 * no disruption budget and no do-not-disrupt or PDB gates the start (draining still honours PDBs
 * until the terminationGracePeriod). The age counts from creation; "Never" disables it; an absent
 * value is the CRD's default, 720h.
 */
import { NEVER, tryParseDuration } from "../../../policies/domain/duration.ts";
import type { NodeClaim } from "./objects.ts";
import { timeMs } from "./objects.ts";

/** The NodeClaim CRD's default for spec.expireAfter. */
export const DEFAULT_EXPIRE_AFTER = "720h";

export type ExpirationDecision =
  | { readonly action: "none" }
  | { readonly action: "wait"; readonly requeueAfterMs: number }
  | { readonly action: "delete"; readonly expiredAt: number };

/** Whether `nodeClaim` has expired at `now`, or how long until it does. */
export function expirationDecision(nodeClaim: NodeClaim, now: Date): ExpirationDecision {
  if (nodeClaim.metadata?.deletionTimestamp !== undefined) return { action: "none" };
  const ttl = tryParseDuration(nodeClaim.spec?.expireAfter ?? DEFAULT_EXPIRE_AFTER);
  const created = timeMs(nodeClaim.metadata?.creationTimestamp);
  // An unreadable duration cannot come through the CRD's pattern; acting on a guess would delete nodes.
  if (ttl === undefined || ttl === NEVER || created === undefined) return { action: "none" };
  const expiredAt = created + ttl;
  const left = expiredAt - now.getTime();
  return left <= 0 ? { action: "delete", expiredAt } : { action: "wait", requeueAfterMs: left };
}

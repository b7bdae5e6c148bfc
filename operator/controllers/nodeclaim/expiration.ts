/**
 * The expiration controller: deletes NodeClaims past their expireAfter (forceful: no budgets),
 * else comes back at the deadline.
 */
import { expirationDecision } from "../../core/lifecycle/expiration.ts";
import { disrupted } from "../../observability/events.ts";
import type { Result } from "../runtime.ts";
import { poolLabels, type NodeClaimDeps } from "./deps.ts";

/** Re-checked at least this often, so a far deadline survives clock steps and never overflows a timer. */
const MAX_WAIT_MS = 60 * 60_000;

export async function reconcileExpiration(deps: NodeClaimDeps, name: string): Promise<Result> {
  const nodeClaim = deps.cluster.nodeClaim(name);
  if (nodeClaim === undefined) return {};
  const decision = expirationDecision(nodeClaim, deps.clock.now());
  if (decision.action === "none") return {};
  if (decision.action === "wait") return { requeueAfter: Math.min(decision.requeueAfterMs, MAX_WAIT_MS) };
  deps.events.publish(disrupted(nodeClaim, "expired"));
  deps.metrics.nodeClaimsDisrupted.inc({ reason: "expired", ...poolLabels(nodeClaim) });
  deps.logger.info(
    {
      nodeclaim: name,
      expireAfter: nodeClaim.spec?.expireAfter,
      expiredAt: new Date(decision.expiredAt).toISOString(),
    },
    "deleting expired nodeclaim",
  );
  await deps.cluster.deleteNodeClaim(name);
  return {};
}

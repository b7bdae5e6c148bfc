/**
 * Liveness: deletes NodeClaims that did not launch within the launch timeout or register within the
 * registration timeout, so the pods get a new attempt.
 */
import { livenessDecision } from "../../core/lifecycle/liveness.ts";
import type { NodeClaim } from "../../core/lifecycle/objects.ts";
import { disrupted } from "../../observability/events.ts";
import { poolLabels, type NodeClaimDeps, type StepResult } from "./deps.ts";

/** Runs the liveness check; asks to be requeued at the deadline. */
export async function checkLiveness(deps: NodeClaimDeps, nodeClaim: NodeClaim): Promise<StepResult> {
  const decision = livenessDecision(nodeClaim, deps.clock.now(), deps.timeouts);
  if (decision.action === "none") return undefined;
  if (decision.action === "wait") return { requeueAfter: decision.requeueAfterMs };
  deps.events.publish(disrupted(nodeClaim, decision.reason));
  deps.metrics.nodeClaimsDisrupted.inc({ reason: decision.reason, ...poolLabels(nodeClaim) });
  deps.logger.info({ nodeclaim: nodeClaim.metadata?.name, reason: decision.reason }, "deleting nodeclaim");
  await deps.cluster.deleteNodeClaim(nodeClaim.metadata?.name ?? "");
  return {};
}

/** Pure decision for NodeClaim liveness: delete claims that did not launch (5 min) or register (15 min) in time. */
import type { NodeClaim } from "./objects.ts";
import { findCondition, isTrue, timeMs } from "./objects.ts";

/** The two deadlines, in milliseconds. */
export interface LivenessTimeouts {
  readonly launchMs: number;
  readonly registrationMs: number;
}

/** Karpenter's defaults. */
export const DEFAULT_TIMEOUTS: LivenessTimeouts = { launchMs: 5 * 60_000, registrationMs: 15 * 60_000 };

export type LivenessDecision =
  | { readonly action: "none" }
  | { readonly action: "wait"; readonly requeueAfterMs: number }
  | { readonly action: "delete"; readonly reason: "launch_timeout" | "registration_timeout" };

function countdown(leftMs: number, reason: "launch_timeout" | "registration_timeout"): LivenessDecision {
  return leftMs <= 0 ? { action: "delete", reason } : { action: "wait", requeueAfterMs: leftMs };
}

/** Launch is timed from creation; registration from the Launched transition (falling back to creation). */
export function livenessDecision(
  nodeClaim: NodeClaim,
  now: Date,
  timeouts: LivenessTimeouts = DEFAULT_TIMEOUTS,
): LivenessDecision {
  const conditions = nodeClaim.status?.conditions;
  if (isTrue(conditions, "Registered") || nodeClaim.metadata?.deletionTimestamp !== undefined)
    return { action: "none" };
  const created = timeMs(nodeClaim.metadata?.creationTimestamp) ?? now.getTime();
  if (!isTrue(conditions, "Launched")) return countdown(created + timeouts.launchMs - now.getTime(), "launch_timeout");
  const launched = timeMs(findCondition(conditions, "Launched")?.lastTransitionTime) ?? created;
  return countdown(launched + timeouts.registrationMs - now.getTime(), "registration_timeout");
}

/**
 * The `Consolidatable` condition (behaviour §4.3): True once now − lastPodEventTime (else the time
 * the NodeClaim initialized) ≥ the NodePool's `consolidateAfter`; `Never` removes the condition.
 * A NodeClaim that is not initialized yet is left alone. Pod events are deduplicated at 10 s, so a
 * busy node does not turn every pod churn into a status write.
 */
import { NEVER, tryParseDuration } from "../../../policies/domain/duration.ts";
import type { Condition, NodeClaim } from "../lifecycle/objects.ts";
import { findCondition, timeMs } from "../lifecycle/objects.ts";

export const POD_EVENT_DEDUPE_MS = 10_000;

export type ConsolidatableDecision =
  | { readonly action: "none"; readonly requeueAfterMs?: number }
  | { readonly action: "set"; readonly condition: Omit<Condition, "lastTransitionTime"> }
  | { readonly action: "clear"; readonly requeueAfterMs?: number };

/** The pool's consolidateAfter in ms, "Never", or undefined when unreadable (then nothing changes). */
export function consolidateAfterOf(pool: {
  readonly spec?: Readonly<Record<string, unknown>> | undefined;
}): number | typeof NEVER | undefined {
  const disruption = (pool.spec?.["disruption"] ?? {}) as { consolidateAfter?: unknown };
  // kerf's webhook defaults an absent value to 0s, as Karpenter's newest CRDs do.
  return tryParseDuration(disruption.consolidateAfter ?? "0s");
}

/** What the Consolidatable condition should be at `now`. */
export function consolidatableDecision(
  claim: NodeClaim,
  consolidateAfter: number | typeof NEVER | undefined,
  now: number,
): ConsolidatableDecision {
  const conditions = claim.status?.conditions;
  const current = findCondition(conditions, "Consolidatable");
  const initialized = findCondition(conditions, "Initialized");
  if (consolidateAfter === undefined || initialized?.status !== "True") return { action: "none" };
  if (consolidateAfter === NEVER) return current === undefined ? { action: "none" } : { action: "clear" };
  const left = quietSince(claim, initialized) + consolidateAfter - now;
  if (left <= 0)
    return current?.status === "True"
      ? { action: "none" }
      : { action: "set", condition: { type: "Consolidatable", status: "True", reason: "Consolidatable" } };
  return current === undefined ? { action: "none", requeueAfterMs: left } : { action: "clear", requeueAfterMs: left };
}

/**
 * Whether an initialized NodeClaim has been quiet (no pod event, and initialized) for `delayMs` at
 * `now`: the NodePool's kerf.dev/consolidate-empty-after, which lets emptiness act before
 * consolidateAfter.
 */
export function quietFor(claim: NodeClaim, delayMs: number, now: number): boolean {
  const initialized = findCondition(claim.status?.conditions, "Initialized");
  return initialized?.status === "True" && quietSince(claim, initialized) + delayMs <= now;
}

/** The last pod event, else the initialization (Karpenter's timeToCheck: pods may bind from then on). */
export function quietSince(claim: NodeClaim, initialized: Condition): number {
  return timeMs(claim.status?.lastPodEventTime) ?? timeMs(initialized.lastTransitionTime) ?? 0;
}

/**
 * Karpenter's IsUnderConsolidateAfter: an initialized NodeClaim of a pool with a consolidateAfter
 * above 0 whose last pod event (else its initialization) is more recent than that. A consolidation
 * moves no pod onto such a node: it is receiving work.
 */
export function underConsolidateAfter(
  claim: NodeClaim,
  consolidateAfter: number | typeof NEVER | undefined,
  now: number,
): boolean {
  if (typeof consolidateAfter !== "number" || consolidateAfter <= 0) return false;
  const initialized = findCondition(claim.status?.conditions, "Initialized");
  return initialized?.status === "True" && now - quietSince(claim, initialized) < consolidateAfter;
}

/** Whether a pod event at `at` should be written to status.lastPodEventTime (deduplicated). */
export function shouldRecordPodEvent(claim: NodeClaim, at: number): boolean {
  const last = timeMs(claim.status?.lastPodEventTime);
  return last === undefined || at - last >= POD_EVENT_DEDUPE_MS;
}

/** How recent a Consolidatable transition is news (a watch event trails the write by little). */
export const FRESH_CONSOLIDATABLE_MS = 5_000;

/**
 * Whether the NodeClaim turned Consolidatable within FRESH_CONSOLIDATABLE_MS of `now`: the disruption pass
 * looks at once instead of at its next 10 s tick (an emptied node goes up to 10 s sooner).
 */
export function justConsolidatable(claim: NodeClaim, now: number): boolean {
  const c = findCondition(claim.status?.conditions, "Consolidatable");
  const at = timeMs(c?.lastTransitionTime);
  return c?.status === "True" && at !== undefined && now - at <= FRESH_CONSOLIDATABLE_MS;
}

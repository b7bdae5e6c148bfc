/**
 * When a disruption pass may be skipped (Karpenter's IsConsolidated, consolidation.go, with its
 * 5-minute re-arm): while nothing the pass reads has changed since the last pass that found nothing
 * to do, the pass would find nothing again. The controller summarises what the pass reads as a
 * digest (a change counter over the cached objects plus the other inputs); a fruitless pass records
 * it with the earliest instant at which time alone can change the answer (nextTimeChange: a
 * kerf.dev/consolidate-empty-after running out, a pod's do-not-disrupt duration ending, a budget
 * window or a kerf.dev/off-schedule window opening or closing), which Karpenter leaves to the 5-minute re-arm.
 */
import { budgetWindow, type BudgetSpec } from "../../../policies/domain/budgets.ts";
import { tryParseDuration } from "../../../policies/domain/duration.ts";
import { emptyAfterOf } from "../../../policies/domain/empty-after.ts";
import { poolOffState } from "../../../policies/domain/off-schedule.ts";
import { Label } from "../../../policies/domain/labels.ts";
import { findCondition, timeMs } from "../lifecycle/objects.ts";
import type { ClusterView } from "../provisioning/cluster-view.ts";
import { quietSince } from "./consolidatable.ts";
import { DO_NOT_DISRUPT } from "./pod-blockers.ts";
import { budgetsOf, timeZoneOf } from "./pool-budgets.ts";

/** Karpenter re-runs consolidation at least this often even when nothing changed. */
export const REARM_MS = 5 * 60_000;

/** The last fruitless pass: what it read, when it ran, and when time alone could change its answer. */
export interface FruitlessPass {
  readonly digest: string;
  readonly at: number;
  /** The earliest instant after `at` at which a time-dependent input flips (undefined: none known). */
  readonly wakeAt?: number | undefined;
}

/** Whether the pass at `now`, reading `digest`, may be skipped after `last`. */
export function skipPass(
  last: FruitlessPass | undefined,
  digest: string,
  now: number,
  rearmMs: number = REARM_MS,
): boolean {
  if (last === undefined || last.digest !== digest) return false;
  if (now - last.at >= rearmMs || now < last.at) return false;
  return last.wakeAt === undefined || now < last.wakeAt;
}

/**
 * Whether a pass that found nothing ends a round: single-node consolidation and drift evaluate at most
 * `bound` candidates per pass and resume where they stopped, so while nothing changes the passes at
 * one digest look at every candidate once in ceil(candidates / bound) passes. `streak` counts the
 * fruitless passes at this digest, this one included; `stoppedAtBound`: this pass left candidates for
 * the next one.
 */
export function roundDone(
  stoppedAtBound: boolean,
  streak: number,
  candidates: { readonly consolidating: number; readonly drifted: number },
  bound: number,
): boolean {
  if (!stoppedAtBound) return true;
  const passes = Math.max(1, Math.ceil(candidates.consolidating / bound), Math.ceil(candidates.drifted / bound));
  return streak >= passes;
}

/** What the gate keeps after a pass: the pass itself when it was fruitless, else nothing (the next pass runs). */
export function afterPass(
  fruitless: boolean,
  digest: string,
  at: number,
  wakeAt: number | undefined,
): FruitlessPass | undefined {
  return fruitless ? { digest, at, wakeAt } : undefined;
}

function earliest(a: number | undefined, b: number): number {
  return a === undefined || b < a ? b : a;
}

/** When each do-not-disrupt duration ends (counted from creation and from start: either wakes the pass). */
function doNotDisruptEnds(view: ClusterView, now: number, wake: number | undefined): number | undefined {
  let out = wake;
  for (const pod of view.pods) {
    const value = pod.metadata?.annotations?.[DO_NOT_DISRUPT];
    if (value === undefined) continue;
    const ms = tryParseDuration(value);
    if (typeof ms !== "number") continue;
    const started = timeMs((pod.status as { startTime?: string } | undefined)?.startTime);
    for (const from of [timeMs(pod.metadata?.creationTimestamp), started]) {
      if (from !== undefined && from + ms > now) out = earliest(out, from + ms);
    }
  }
  return out;
}

function emptyDelays(view: ClusterView): Map<string, number> {
  const delays = new Map<string, number>();
  for (const p of view.nodePools) {
    const d = emptyAfterOf(p.metadata?.annotations);
    if (d.kind === "set") delays.set(p.metadata?.name ?? "", d.ms);
  }
  return delays;
}

/** When kerf.dev/consolidate-empty-after runs out for a NodeClaim of a pool that sets it. */
function emptyAfterEnds(view: ClusterView, now: number, wake: number | undefined): number | undefined {
  const delays = emptyDelays(view);
  if (delays.size === 0) return wake;
  let out = wake;
  for (const claim of view.nodeClaims) {
    const delay = delays.get(claim.metadata?.labels?.[Label.nodePool] ?? "");
    const initialized = findCondition(claim.status?.conditions, "Initialized");
    if (delay === undefined || initialized?.status !== "True") continue;
    const at = quietSince(claim, initialized) + delay;
    if (at > now) out = earliest(out, at);
  }
  return out;
}

/** The next opening and closing of a scheduled budget's window ([] for an unreadable one: budgets report it). */
function windowEdges(budget: BudgetSpec, now: number, timeZone: string | undefined): (number | undefined)[] {
  try {
    const w = budgetWindow(budget, new Date(now), timeZone);
    return [w?.opensAt?.getTime(), w?.closesAt?.getTime()];
  } catch {
    return [];
  }
}

/** When a scheduled budget window opens or closes. */
function budgetEdges(view: ClusterView, now: number, wake: number | undefined): number | undefined {
  let out = wake;
  for (const pool of view.nodePools) {
    const scheduled = (budgetsOf(pool) ?? []).filter((b) => b.schedule !== undefined);
    const edges = scheduled.flatMap((b) => windowEdges(b, now, timeZoneOf(pool)));
    for (const edge of edges) if (edge !== undefined && edge > now) out = earliest(out, edge);
  }
  return out;
}

/** When a pool's kerf.dev/off-schedule turns it off or on again. */
function offScheduleEdges(view: ClusterView, now: number, wake: number | undefined): number | undefined {
  let out = wake;
  for (const pool of view.nodePools) {
    const state = poolOffState(pool.metadata?.annotations, new Date(now));
    const edge = (state?.off === true ? state.until : state?.nextOff)?.getTime();
    if (edge !== undefined && edge > now) out = earliest(out, edge);
  }
  return out;
}

/** The earliest instant after `now` at which time alone changes what a pass over `view` can decide. */
export function nextTimeChange(view: ClusterView, now: number): number | undefined {
  const wake = budgetEdges(view, now, emptyAfterEnds(view, now, doNotDisruptEnds(view, now, undefined)));
  return offScheduleEdges(view, now, wake);
}

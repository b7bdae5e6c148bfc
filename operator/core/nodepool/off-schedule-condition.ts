/**
 * The NodePool status condition of kerf's scheduled capacity (kerf.dev/off-schedule, policies/domain/off-schedule.ts):
 * True while a window is open (the pool launches nothing, its nodes are removed), False while the pool is on or the
 * annotation is unusable (the operator then ignores it and says so here). Its type is under kerf's prefix, so it
 * cannot clash with a condition Karpenter adds; Karpenter's Ready does not depend on it.
 */
import {
  describeOff,
  OFF_SCHEDULE_ANNOTATION,
  offScheduleOf,
  offStateAt,
} from "../../../policies/domain/off-schedule.ts";
import type { Condition, Meta } from "../lifecycle/objects.ts";

export const OFF_SCHEDULE_CONDITION = "kerf.dev/ScheduledOff";

export interface OffScheduleStatus {
  /** The condition to set; undefined: the pool has no annotation, and the condition is removed. */
  readonly condition?: Omit<Condition, "lastTransitionTime"> | undefined;
  /** When the condition changes by time alone (the next window edge), ms. */
  readonly wakeAt?: number | undefined;
}

/** The pool's scheduled-capacity condition at `now`. */
export function offScheduleStatus(pool: { readonly metadata?: Meta | undefined }, now: Date): OffScheduleStatus {
  const schedule = offScheduleOf(pool.metadata?.annotations);
  if (schedule.kind === "absent") return {};
  const type = OFF_SCHEDULE_CONDITION;
  if (schedule.kind === "invalid") {
    const message = `annotation ${OFF_SCHEDULE_ANNOTATION} is ignored: ${schedule.message}`;
    return { condition: { type, status: "False", reason: "InvalidOffSchedule", message } };
  }
  const state = offStateAt(schedule, now);
  const wakeAt = (state.off ? state.until : state.nextOff)?.getTime();
  const message = state.off
    ? `${describeOff(state)}: the NodePool launches nothing and its nodes are removed under its disruption budgets`
    : `${describeOff(state)}: no ${OFF_SCHEDULE_ANNOTATION} window is open`;
  const [status, reason] = state.off ? ["True", "WindowOpen"] : ["False", "WindowClosed"];
  return { condition: { type, status, reason, message }, wakeAt };
}

/** `conditions` without the condition of `type` (a NodePool whose annotation was removed). */
export function withoutCondition(conditions: readonly Condition[], type: string): Condition[] {
  return conditions.filter((c) => c.type !== type);
}

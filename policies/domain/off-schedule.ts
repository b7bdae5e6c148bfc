/**
 * kerf extension, scheduled capacity (karpenter core#1177): the NodePool annotation `kerf.dev/off-schedule`
 * lists cron windows in the disruption budgets' syntax, a JSON list of `{"schedule": "...", "duration": "..."}`
 * (one object alone is read as a list of one). While a window is open the pool is off: it launches nothing and
 * its nodes are removed under its budgets for the disruption reason KerfScheduledOff, without replacements.
 *
 * Windows are evaluated by budgets.ts (the one cron evaluator): the same robfig syntax, the same half-open
 * [hit, hit + duration) windows, read in the pool's `kerf.dev/budget-timezone` (UTC without it), so clock
 * changes behave as they do for budgets. The webhook denies an unusable value; the operator ignores one (the
 * pool stays on: a typo must not drain a production pool), as it ignores kerf's other unusable annotations.
 */
import { BUDGET_TIMEZONE_ANNOTATION, budgetWindow, isValidTimeZone, ScheduleError } from "./budgets.ts";
import { parseSchedule } from "./cron.ts";
import { NEVER, tryParseDuration } from "./duration.ts";

export const OFF_SCHEDULE_ANNOTATION = "kerf.dev/off-schedule";

/** One window: a cron schedule opening it and how long it stays open (a Go duration, > 0). */
export interface OffWindow {
  readonly schedule: string;
  readonly duration: string;
}

export type OffSchedule =
  | { readonly kind: "absent" }
  | { readonly kind: "set"; readonly windows: readonly OffWindow[]; readonly timeZone: string }
  | { readonly kind: "invalid"; readonly message: string };

/** Whether the pool is off at an instant, and the instant that changes it. */
export interface OffState {
  readonly off: boolean;
  /** While off: when every open window (and any window they run into) has closed; undefined: never. */
  readonly until?: Date | undefined;
  /** While on: when the next window opens. */
  readonly nextOff?: Date | undefined;
}

/** How many windows running into each other `offStateAt` follows before it calls the pool off for good. */
const MAX_CHAINED_WINDOWS = 1000;
const FIELDS = new Set(["schedule", "duration"]);

function invalid(message: string): OffSchedule {
  return { kind: "invalid", message };
}

function readJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** The problem with one window, or undefined when schedule and duration are usable. */
function windowProblem(item: unknown, index: number): string | undefined {
  const at = `window ${index}`;
  if (typeof item !== "object" || item === null || Array.isArray(item)) {
    return `${at} is not an object with schedule and duration`;
  }
  const fields = item as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((k) => !FIELDS.has(k));
  if (unknown.length > 0) return `${at} has unknown field(s) ${unknown.join(", ")}; expected schedule and duration`;
  const { schedule, duration } = fields;
  if (typeof schedule !== "string") return `${at} needs a schedule, a cron expression such as "0 20 * * 1-5"`;
  if (typeof duration !== "string") return `${at} needs a duration, a Go duration such as "12h"`;
  try {
    parseSchedule(schedule);
  } catch (error) {
    if (error instanceof ScheduleError) return `${at}: ${error.message}`;
    throw error;
  }
  const ms = tryParseDuration(duration);
  if (ms === undefined || ms === NEVER || ms <= 0) {
    return `${at}: duration "${duration}" is not a Go duration above 0 such as "12h"`;
  }
  return undefined;
}

/** The annotation read from a NodePool's annotations (the time zone from kerf.dev/budget-timezone). */
export function offScheduleOf(annotations: Readonly<Record<string, unknown>> | undefined): OffSchedule {
  const value = annotations?.[OFF_SCHEDULE_ANNOTATION];
  if (value === undefined) return { kind: "absent" };
  if (typeof value !== "string") return invalid(`${JSON.stringify(value)} is not a string`);
  const parsed = readJson(value);
  const example = '[{"schedule": "0 20 * * 1-5", "duration": "12h"}]';
  if (parsed instanceof Error) return invalid(`not JSON (${parsed.message}); expected a list such as ${example}`);
  const list: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
  if (list.length === 0) return invalid(`the list of windows is empty; expected a list such as ${example}`);
  for (const [i, item] of list.entries()) {
    const problem = windowProblem(item, i);
    if (problem !== undefined) return invalid(problem);
  }
  const zone = annotations?.[BUDGET_TIMEZONE_ANNOTATION];
  const timeZone = typeof zone === "string" ? zone : "UTC";
  if (!isValidTimeZone(timeZone)) {
    const hint = 'is not an IANA time zone such as "Europe/Berlin"';
    return invalid(`time zone "${timeZone}" (${BUDGET_TIMEZONE_ANNOTATION}) ${hint}`);
  }
  return { kind: "set", windows: list as OffWindow[], timeZone };
}

/** Every window open at `at`, with when it closes (undefined: it never does). */
function openAt(schedule: Extract<OffSchedule, { kind: "set" }>, at: Date): { closesAt: Date | undefined }[] {
  const out: { closesAt: Date | undefined }[] = [];
  for (const w of schedule.windows) {
    const state = budgetWindow(w, at, schedule.timeZone);
    if (state?.active === true) out.push({ closesAt: state.closesAt });
  }
  return out;
}

/**
 * Whether the pool is off at `now`. A window that opens at or before the moment another closes continues it,
 * so `until` is when the pool is really on again.
 */
export function offStateAt(schedule: Extract<OffSchedule, { kind: "set" }>, now: Date): OffState {
  let open = openAt(schedule, now);
  if (open.length === 0) {
    const opens = schedule.windows
      .map((w) => budgetWindow(w, now, schedule.timeZone)?.opensAt?.getTime())
      .filter((t): t is number => t !== undefined);
    return { off: false, nextOff: opens.length === 0 ? undefined : new Date(Math.min(...opens)) };
  }
  for (let i = 0; i < MAX_CHAINED_WINDOWS; i++) {
    if (open.some((w) => w.closesAt === undefined)) return { off: true };
    const until = new Date(Math.max(...open.map((w) => w.closesAt?.getTime() ?? 0)));
    open = openAt(schedule, until);
    if (open.length === 0) return { off: true, until };
  }
  return { off: true };
}

/** The state for a pool's annotations at `now`: undefined when the annotation is absent or unusable. */
export function poolOffState(
  annotations: Readonly<Record<string, unknown>> | undefined,
  now: Date,
): OffState | undefined {
  const schedule = offScheduleOf(annotations);
  return schedule.kind === "set" ? offStateAt(schedule, now) : undefined;
}

/** A sentence for Events and conditions: "off until 2026-11-28T06:00:00.000Z" or "off with no end". */
export function describeOff(state: OffState): string {
  if (!state.off) return state.nextOff === undefined ? "on" : `on until ${state.nextOff.toISOString()}`;
  if (state.until === undefined) return "off with no end (its windows keep running into each other)";
  return `off until ${state.until.toISOString()}`;
}

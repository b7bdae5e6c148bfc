// Disruption budgets as Karpenter v1.14 evaluates them (karpenter-v1-api.md §8), shared by the operator's disruption
// controller and the webhook's budget-schedule policy, plus kerf's per-NodePool time zone for schedules.
//
// Schedules go through cron.ts's parseSchedule (robfig ParseStandard checks, the same the webhook applies) and are
// iterated with cron-parser. In a time zone (kerf extension, annotation kerf.dev/budget-timezone; Karpenter is
// UTC-only) a schedule fires at every minute whose local wall-clock time matches (zoned-schedule.ts): a time skipped
// when clocks go forward does not fire that day, one repeated when they go back fires twice, as robfig/cron does.
// A duration is real elapsed time: "0 22 * * *" for 8h closes at 06:00 local time, but at 05:00 on the night clocks
// go back and at 07:00 on the night they go forward.
//
// Deliberate divergence: a schedule that never fires ("0 0 30 2 *") is a parse error here, so it fails closed; robfig
// accepts it, Next returns the zero time and Karpenter then treats the budget as always active.
import { parseSchedule, ScheduleError } from "./cron.ts";
import { NEVER, parseDuration } from "./duration.ts";
import { isValidTimeZone, offsetTransitions, TRANSITION_MARGIN_MS } from "./time-zone.ts";
import { hitsAfter } from "./zoned-schedule.ts";
import type { Hits } from "./zoned-schedule.ts";

export { isValidTimeZone, ScheduleError };

/** Karpenter's disruption reasons, the ones a budget's `reasons` may list (the CRD's enum). */
export type KarpenterDisruptionReason = "Empty" | "Drifted" | "Underutilized";
export const DISRUPTION_REASONS: readonly KarpenterDisruptionReason[] = ["Empty", "Drifted", "Underutilized"];

/**
 * kerf's reason for removing the nodes of a pool off under kerf.dev/off-schedule (off-schedule.ts). Prefixed so it
 * cannot clash with a reason Karpenter adds; the CRD's enum keeps it out of a budget's `reasons`, so only budgets
 * without `reasons` (which apply to every reason) limit it.
 */
export const SCHEDULED_OFF_REASON = "KerfScheduledOff";
export type DisruptionReason = KarpenterDisruptionReason | typeof SCHEDULED_OFF_REASON;
export const ALL_DISRUPTION_REASONS: readonly DisruptionReason[] = [...DISRUPTION_REASONS, SCHEDULED_OFF_REASON];

/** NodePool annotation making budget schedules local time in an IANA zone (kerf extension; Karpenter is UTC-only). */
export const BUDGET_TIMEZONE_ANNOTATION = "kerf.dev/budget-timezone";

/**
 * One item of spec.disruption.budgets. `reasons` undefined applies to every reason; an empty list applies to none
 * (Karpenter tests `Reasons == nil`, and `reasons: []` survives the apiserver as a non-nil empty slice).
 */
export interface BudgetSpec {
  readonly nodes?: string;
  readonly schedule?: string;
  readonly duration?: string;
  readonly reasons?: readonly string[];
}

/** The apiserver's default for a budget's `nodes`. */
export const DEFAULT_BUDGET_NODES = "10%";

/** The default when spec.disruption.budgets is omitted: [{ nodes: "10%" }]. */
export const DEFAULT_BUDGETS: readonly BudgetSpec[] = [{ nodes: DEFAULT_BUDGET_NODES }];

/** What an inactive budget, or no budget, allows (Go's math.MaxInt32). */
export const MAX_INT32 = 2_147_483_647;

/** A budget field that cannot be evaluated (nodes, duration, time zone); schedules throw ScheduleError. */
export class BudgetError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "BudgetError";
  }
}

/** A budget ready to evaluate: its robfig-equivalent expression, its window length and the zone it is read in. */
interface Compiled {
  readonly schedule: string;
  readonly expression: string;
  readonly durationMs: number;
  readonly zone: string;
}

function budgetDurationMs(duration: string | undefined): number {
  // Karpenter reads a missing duration as 0: the budget is then never active (CEL refuses the pairing anyway).
  if (duration === undefined) return 0;
  const value = parseDuration(duration);
  if (value === NEVER)
    throw new BudgetError(`parsing budget duration "${duration}": expected a Go duration such as "8h"`);
  return value;
}

/** Undefined for a budget without schedule and duration (always active); throws what cannot be evaluated. */
function compile(budget: BudgetSpec, timeZone: string): Compiled | undefined {
  const { schedule, duration } = budget;
  if (schedule === undefined && duration === undefined) return undefined;
  // Karpenter parses "TZ=UTC " + "" here, which robfig refuses: the budget fails closed.
  if (schedule === undefined) throw new ScheduleError("", `duration "${duration ?? ""}" is set without a schedule`);
  if (!isValidTimeZone(timeZone))
    throw new BudgetError(`reading time zone "${timeZone}": not an IANA time zone this runtime knows`);
  const { expression } = parseSchedule(schedule);
  return { schedule, expression, durationMs: budgetDurationMs(duration), zone: timeZone };
}

/** The schedule's hits strictly after `afterMs`, with cron-parser's failures turned into ScheduleErrors. */
function hits(compiled: Compiled, afterMs: number): Hits {
  const wrap = (error: unknown): ScheduleError =>
    new ScheduleError(compiled.schedule, `evaluating in ${compiled.zone}: ${(error as Error).message}`, {
      cause: error,
    });
  let walk: Hits;
  try {
    walk = hitsAfter(compiled, afterMs);
  } catch (error) {
    throw wrap(error);
  }
  return () => {
    try {
      return walk();
    } catch (error) {
      throw wrap(error);
    }
  };
}

/** The first hit strictly after `afterMs` (robfig's Next: hits fall on whole minutes). */
function nextHit(compiled: Compiled, afterMs: number): number {
  return hits(compiled, afterMs)();
}

/**
 * Whether the budget is active at `now`: no schedule → always; else the next schedule hit after now − duration is
 * ≤ now, with the schedule read in `timeZone` (default "UTC"). Throws ScheduleError, DurationError or BudgetError
 * when schedule, duration or timeZone cannot be evaluated.
 */
export function isBudgetActive(budget: BudgetSpec, now: Date, timeZone = "UTC"): boolean {
  const compiled = compile(budget, timeZone);
  if (compiled === undefined) return true;
  return nextHit(compiled, now.getTime() - compiled.durationMs) <= now.getTime();
}

/** The budget's node count for `numNodes` nodes: an integer, or a percentage rounded UP (20% of 19 = 4). */
export function budgetNodes(nodes: string | undefined, numNodes: number): number {
  const value = nodes ?? DEFAULT_BUDGET_NODES;
  // Karpenter: strconv.Atoi first (a count), else intstr's percentage with roundUp=true.
  const match = /^([+-]?\d+)(%?)$/.exec(value);
  const amount = Number(match?.[1]);
  if (match === null || !Number.isSafeInteger(amount)) {
    throw new BudgetError(
      `parsing budget nodes "${value}": expected a count such as "5" or a percentage such as "10%"`,
    );
  }
  return match[2] === "%" ? Math.ceil((amount * numNodes) / 100) : amount;
}

export interface AllowedDisruptions {
  /** Minimum over active budgets that list `reason` or list no reasons; MAX_INT32 when none is active; 0 from a
   * budget that fails to parse (fail closed). Consumption NOT subtracted here. */
  readonly allowed: number;
  /** Index in the budgets list of the budget that set the minimum (undefined when none active). */
  readonly limitingBudget?: number;
  /** A human sentence for events/logs. */
  readonly explanation: string;
}

function describe(budget: BudgetSpec, index: number, timeZone: string, defaulted: boolean): string {
  const parts = [`nodes "${budget.nodes ?? DEFAULT_BUDGET_NODES}"`];
  if (budget.schedule !== undefined)
    parts.push(`schedule "${budget.schedule}" for ${budget.duration ?? "0s"} in ${timeZone}`);
  if (budget.reasons !== undefined) parts.push(`reasons [${budget.reasons.join(", ")}]`);
  return `${defaulted ? "default budget" : `budget ${index}`} (${parts.join(", ")})`;
}

function appliesTo(budget: BudgetSpec, reason: DisruptionReason): boolean {
  return budget.reasons === undefined || budget.reasons.includes(reason);
}

/** One budget's contribution for a reason: undefined when it does not apply or is inactive. */
function contribution(
  budget: BudgetSpec,
  at: { index: number; numNodes: number; now: Date; timeZone: string; defaulted: boolean },
): { value: number; text: string } | undefined {
  const name = describe(budget, at.index, at.timeZone, at.defaulted);
  try {
    if (!isBudgetActive(budget, at.now, at.timeZone)) return undefined;
    const value = budgetNodes(budget.nodes, at.numNodes);
    const nodes = budget.nodes ?? DEFAULT_BUDGET_NODES;
    const scaled = nodes.endsWith("%") ? ` (${nodes} of ${at.numNodes} nodes, rounded up)` : "";
    return { value, text: `${name} allows ${value}${scaled}` };
  } catch (error) {
    return { value: 0, text: `${name} fails to parse: ${(error as Error).message}, allowing 0 (fails closed)` };
  }
}

/**
 * Karpenter's GetAllowedDisruptionsByReason before subtracting consumed nodes. `budgets` undefined → DEFAULT_BUDGETS.
 * Five parameters: the operator's disruption controller codes against exactly this signature.
 */
// eslint-disable-next-line max-params
export function allowedDisruptions(
  budgets: readonly BudgetSpec[] | undefined,
  reason: DisruptionReason,
  numNodes: number,
  now: Date,
  timeZone = "UTC",
): AllowedDisruptions {
  const defaulted = budgets === undefined;
  const list = budgets ?? DEFAULT_BUDGETS;
  let best: { value: number; text: string; index: number } | undefined;
  list.forEach((budget, index) => {
    if (!appliesTo(budget, reason)) return;
    const found = contribution(budget, { index, numNodes, now, timeZone, defaulted });
    if (found !== undefined && (best === undefined || found.value < best.value)) best = { ...found, index };
  });
  if (best === undefined) {
    return {
      allowed: MAX_INT32,
      explanation: `no active budget limits ${reason} disruptions (${list.length} budget(s))`,
    };
  }
  return { allowed: best.value, limitingBudget: best.index, explanation: best.text };
}

/**
 * Every budget that cannot be evaluated, whatever its reasons (Karpenter logs these as
 * "detected disruption budget errors").
 */
export function budgetErrors(
  budgets: readonly BudgetSpec[] | undefined,
  now: Date,
  timeZone = "UTC",
): { readonly index: number; readonly message: string }[] {
  const out: { index: number; message: string }[] = [];
  (budgets ?? DEFAULT_BUDGETS).forEach((budget, index) => {
    try {
      if (isBudgetActive(budget, now, timeZone)) budgetNodes(budget.nodes, 0);
    } catch (error) {
      out.push({ index, message: (error as Error).message });
    }
  });
  return out;
}

/** How many overlapping windows budgetWindow follows before it reports an active window as not closing. */
const MAX_WINDOW_STEPS = 2000;

/**
 * When the window active at `nowMs` ends: from the first hit in (now − duration, now], every hit no later than the
 * current end (a hit exactly at the end reopens at once) pushes the end out. Undefined: not within MAX_WINDOW_STEPS.
 */
function windowEnd(compiled: Compiled, nowMs: number): number | undefined {
  const walk = hits(compiled, nowMs - compiled.durationMs);
  let end = walk() + compiled.durationMs;
  for (let i = 0; i < MAX_WINDOW_STEPS; i++) {
    const hit = walk();
    if (hit > end) return end;
    end = hit + compiled.durationMs;
  }
  return undefined;
}

/**
 * Next instant (> now) when the budget's window opens, and when the current window (if active) closes — for
 * "how budgets pace a rollout" previews; undefined for always-active budgets. An active window whose successors
 * keep overlapping it for 2,000 hits has no closesAt (it is, in effect, always active).
 */
export function budgetWindow(
  budget: BudgetSpec,
  now: Date,
  timeZone = "UTC",
): { readonly active: boolean; readonly opensAt?: Date; readonly closesAt?: Date } | undefined {
  const compiled = compile(budget, timeZone);
  if (compiled === undefined) return undefined;
  const nowMs = now.getTime();
  const opensAt = new Date(nextHit(compiled, nowMs));
  const active = nextHit(compiled, nowMs - compiled.durationMs) <= nowMs;
  if (!active) return { active, opensAt };
  const end = windowEnd(compiled, nowMs);
  return end === undefined ? { active, opensAt } : { active, opensAt, closesAt: new Date(end) };
}

/** Shortest and longest gaps between consecutive hits of a schedule read in a zone (ms). */
export interface SchedulePeriods {
  /** Real time, clock changes included: a daily 02:00 in Europe/Berlin is 1h apart once a year (02:00 twice). */
  readonly minPeriodMs: number;
  readonly maxPeriodMs: number;
  /** On the wall clock, as in UTC: what the schedule's fields alone say (24h for any daily schedule). */
  readonly clockMinPeriodMs: number;
  readonly clockMaxPeriodMs: number;
}

/** The years whose daylight-saving transitions schedulePeriods examines (the zone rules as this runtime knows them). */
const REFERENCE_FROM_MS = Date.UTC(2026, 0, 1);
const REFERENCE_TO_MS = Date.UTC(2028, 0, 1);
const DAY_MS = 86_400_000;
const periodCache = new Map<string, SchedulePeriods | Error>();

/** The gaps between hits around one offset transition, from a hit a longest period (plus a day) before it. */
function gapsAround(compiled: Compiled, transitionMs: number, maxPeriodMs: number): number[] {
  const walk = hits(compiled, transitionMs - TRANSITION_MARGIN_MS - maxPeriodMs - DAY_MS);
  const gaps: number[] = [];
  for (let previous = walk(); previous <= transitionMs + TRANSITION_MARGIN_MS;) {
    const hit = walk();
    gaps.push(hit - previous);
    previous = hit;
  }
  return gaps;
}

function computePeriods(schedule: string, timeZone: string): SchedulePeriods {
  const { minPeriodMs, maxPeriodMs } = parseSchedule(schedule);
  const utc = { minPeriodMs, maxPeriodMs, clockMinPeriodMs: minPeriodMs, clockMaxPeriodMs: maxPeriodMs };
  if (timeZone === "UTC") return utc;
  const compiled = compile({ schedule, duration: "0s" }, timeZone);
  if (compiled === undefined) return utc;
  // Between clock changes a zone is UTC shifted by a constant, so the UTC walk's gaps hold; only gaps that straddle
  // a change stretch or shrink.
  const gaps = offsetTransitions(timeZone, REFERENCE_FROM_MS, REFERENCE_TO_MS).flatMap((t) =>
    gapsAround(compiled, t, maxPeriodMs),
  );
  return { ...utc, minPeriodMs: Math.min(minPeriodMs, ...gaps), maxPeriodMs: Math.max(maxPeriodMs, ...gaps) };
}

/**
 * The schedule's periods read in `timeZone`: cron.ts's UTC periods, widened by the gaps around the zone's clock
 * changes in 2026–2027 (a daily 09:00 in Europe/Berlin is 23h apart once a year and 25h once). Memoised; throws
 * like isBudgetActive.
 */
export function schedulePeriods(schedule: string, timeZone = "UTC"): SchedulePeriods {
  const key = `${timeZone} ${schedule}`;
  let result = periodCache.get(key);
  if (result === undefined) {
    try {
      result = computePeriods(schedule, timeZone);
    } catch (error) {
      result = error as Error;
    }
    if (periodCache.size > 1000) periodCache.clear();
    periodCache.set(key, result);
  }
  if (result instanceof Error) throw result;
  return result;
}

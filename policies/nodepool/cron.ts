// Budget schedules as Karpenter parses them: robfig/cron ParseStandard, "TZ=UTC " prefixed, 5 fields or @ macros.
import { CronExpressionParser } from "cron-parser";

/** robfig's descriptors ParseStandard accepts (the CRD pattern already refuses "@every"). */
const MACROS: Readonly<Record<string, string>> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};
const FIELD_NAMES = ["minute", "hour", "day of month", "month", "day of week"] as const;
const MONTHS = "jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec";
const DAYS = "sun|mon|tue|wed|thu|fri|sat";
/** One comma-separated part in robfig syntax: * or ? or value[-value], optional /step; names only for month and weekday. No L, W, # or H. */
const part = (value: string): RegExp => new RegExp(`^(\\*|\\?|(${value})(-(${value}))?)(\\/[0-9]+)?$`, "i");
const PARTS: readonly RegExp[] = [part("\\d+"), part("\\d+"), part("\\d+"), part(`\\d+|${MONTHS}`), part(`\\d+|${DAYS}`)];
/** A fixed reference instant: pure code never reads the clock, and a period does not depend on "now". */
const EPOCH = new Date(Date.UTC(2001, 0, 1));
const SAMPLES = 400;

/** A parsed schedule: its 5-field form and the shortest and longest gaps between consecutive hits (ms). */
export interface Schedule {
  readonly expression: string;
  readonly minPeriodMs: number;
  readonly maxPeriodMs: number;
}

/** A schedule robfig/cron would refuse; Karpenter then fails the budget closed (0 disruptions allowed). */
export class ScheduleError extends Error {
  constructor(schedule: string, reason: string) {
    super(`parsing schedule "${schedule}": ${reason}`);
    this.name = "ScheduleError";
  }
}

function checkFields(schedule: string, fields: string[]): void {
  if (fields.length !== 5) throw new ScheduleError(schedule, `expected exactly 5 fields, found ${fields.length}`);
  fields.forEach((field, i) => {
    for (const piece of field.split(",")) {
      if (!(PARTS[i] as RegExp).test(piece)) throw new ScheduleError(schedule, `invalid ${FIELD_NAMES[i] ?? "field"} "${piece}"`);
    }
  });
  // robfig bounds day of week to 0-6 (cron-parser would also accept 7 as Sunday).
  if (/(^|[,-])7(\/|,|-|$)/.test(fields[4] ?? "")) throw new ScheduleError(schedule, "day of week 7 is above the maximum (6)");
}

function periods(expression: string, schedule: string): { minPeriodMs: number; maxPeriodMs: number } {
  let previous: number | undefined;
  let best = Number.POSITIVE_INFINITY;
  let worst = 0;
  try {
    const cron = CronExpressionParser.parse(expression, { currentDate: EPOCH, tz: "UTC" });
    for (let i = 0; i < SAMPLES && cron.hasNext(); i++) {
      const at = cron.next().getTime();
      if (previous !== undefined) {
        best = Math.min(best, at - previous);
        worst = Math.max(worst, at - previous);
      }
      previous = at;
    }
  } catch (error) {
    throw new ScheduleError(schedule, (error as Error).message);
  }
  if (previous === undefined) throw new ScheduleError(schedule, "the schedule never fires");
  return { minPeriodMs: best, maxPeriodMs: worst };
}

const cache = new Map<string, Schedule | ScheduleError>();

/** Parses a budget schedule the way Karpenter does (UTC); throws ScheduleError. Results are memoised. */
export function parseSchedule(schedule: string): Schedule {
  let result = cache.get(schedule);
  if (result === undefined) {
    result = compute(schedule);
    if (cache.size > 1000) cache.clear();
    cache.set(schedule, result);
  }
  if (result instanceof ScheduleError) throw result;
  return result;
}

function compute(schedule: string): Schedule | ScheduleError {
  try {
    const expression = schedule.startsWith("@") ? MACROS[schedule] : schedule;
    if (expression === undefined) throw new ScheduleError(schedule, `unrecognized descriptor ${schedule}`);
    checkFields(schedule, expression.trim().split(/\s+/));
    return { expression, ...periods(expression, schedule) };
  } catch (error) {
    return error instanceof ScheduleError ? error : new ScheduleError(schedule, String(error));
  }
}

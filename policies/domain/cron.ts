// Budget schedules as Karpenter parses them: robfig/cron ParseStandard, "TZ=UTC " prefixed, 5 fields or @ macros.
import { CronExpressionParser } from "cron-parser";
import { BoundedMemo } from "../memo.ts";

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
/**
 * One comma-separated part in robfig syntax: * or ? or value[-value], optional /step; names only for
 * month and weekday. No L, W, # or H.
 */
const part = (value: string): RegExp => new RegExp(`^(\\*|\\?|(${value})(-(${value}))?)(\\/[0-9]+)?$`, "i");
const PARTS: readonly RegExp[] = [
  part("\\d+"),
  part("\\d+"),
  part("\\d+"),
  part(`\\d+|${MONTHS}`),
  part(`\\d+|${DAYS}`),
];
/** A fixed reference instant: pure code never reads the clock, and a period does not depend on "now". */
const EPOCH = new Date(Date.UTC(2001, 0, 1));
/** Matching days the period walk visits (400 covers 1,600 years of 29 February, so 2100 and its 8-year gap). */
const SAMPLES = 400;

/** A parsed schedule: its 5-field form and the shortest and longest gaps between consecutive hits (ms). */
export interface Schedule {
  /** The 5-field form, rewritten so cron-parser reads it as robfig does (see robfigForCronParser). */
  readonly expression: string;
  readonly minPeriodMs: number;
  readonly maxPeriodMs: number;
}

/** A schedule robfig/cron would refuse; Karpenter then fails the budget closed (0 disruptions allowed). */
export class ScheduleError extends Error {
  constructor(schedule: string, reason: string, options?: ErrorOptions) {
    super(`parsing schedule "${schedule}": ${reason}`, options);
    this.name = "ScheduleError";
  }
}

function checkFields(schedule: string, fields: string[]): void {
  if (fields.length !== 5) throw new ScheduleError(schedule, `expected exactly 5 fields, found ${fields.length}`);
  fields.forEach((field, i) => {
    for (const piece of field.split(",")) {
      if (!(PARTS[i] as RegExp).test(piece))
        throw new ScheduleError(schedule, `invalid ${FIELD_NAMES[i] ?? "field"} "${piece}"`);
    }
  });
  // robfig bounds day of week to 0-6 (cron-parser would also accept 7 as Sunday).
  if (/(^|[,-])7(\/|,|-|$)/.test(fields[4] ?? ""))
    throw new ScheduleError(schedule, "day of week 7 is above the maximum (6)");
}

/** robfig's upper bound per field, for "N/step" (robfig reads it as N-max/step; names keep names in the range). */
const FIELD_MAX: readonly [string, string][] = [
  ["59", "59"],
  ["23", "23"],
  ["31", "31"],
  ["12", "dec"],
  ["6", "sat"],
];

/**
 * Rewrites robfig syntax whose meaning cron-parser does not share into an equivalent cron-parser reads the same way:
 * "?" is "*" in every field; "N/step" runs to the field's maximum (cron-parser's day of week runs to 7, so "1/2"
 * would add Sunday); a lone "*\/1" is "*" (robfig keeps its star bit, which decides whether day of month and day of
 * week combine with AND rather than OR; cron-parser would treat it as a restriction and OR the two).
 */
function robfigForCronParser(fields: readonly string[]): string {
  return fields
    .map((field, i) => {
      const [numberMax, nameMax] = FIELD_MAX[i] ?? ["", ""];
      const parts = field.split(",").map((piece) => {
        const part = piece.replace(/^\?/, "*");
        const single = /^([0-9]+|[a-z]+)\/([0-9]+)$/i.exec(part);
        if (single === null) return part;
        const start = single[1] ?? "";
        return `${start}-${/^[0-9]+$/.test(start) ? numberMax : nameMax}/${single[2] ?? ""}`;
      });
      return parts.length === 1 && parts[0] === "*/1" ? "*" : parts.join(",");
    })
    .join(" ");
}

/** The parsed fields the period walk needs (cron-parser's own parse, so acceptance and messages stay cron-parser's). */
interface Fields {
  readonly minutes: readonly number[];
  readonly hours: readonly number[];
  readonly months: readonly number[];
  readonly days: ReadonlySet<number>;
  readonly weekdays: ReadonlySet<number>;
  readonly dayWildcard: boolean;
  readonly weekdayWildcard: boolean;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/**
 * Every firing schedule fires again within 8 years (29 February across a skipped leap year);
 * none at all within 10 means never.
 */
const MAX_GAP_YEARS = 10;

function numbers(values: readonly unknown[]): number[] {
  return values.filter((v): v is number => typeof v === "number").sort((a, b) => a - b);
}

function parseFields(expression: string): Fields {
  const { fields } = CronExpressionParser.parse(expression, { currentDate: EPOCH, tz: "UTC" });
  return {
    minutes: numbers(fields.minute.values),
    hours: numbers(fields.hour.values),
    months: numbers(fields.month.values),
    days: new Set(numbers(fields.dayOfMonth.values)),
    weekdays: new Set(numbers(fields.dayOfWeek.values)),
    dayWildcard: fields.dayOfMonth.isWildcard,
    weekdayWildcard: fields.dayOfWeek.isWildcard,
  };
}

/** cron-parser's day rule: both fields restricted → either matches; otherwise the restricted one (or any day). */
function dayMatches(f: Fields, day: number, weekday: number): boolean {
  if (!f.dayWildcard && !f.weekdayWildcard) return f.days.has(day) || f.weekdays.has(weekday);
  return f.weekdayWildcard ? f.days.has(day) : f.weekdays.has(weekday);
}

/** A walk in progress: the schedule, the midnights of the matching days found so far and how many are wanted. */
interface Walk {
  readonly fields: Fields;
  readonly out: number[];
  readonly limit: number;
}

/** Appends one month's matching days; answers whether any day of it matched. */
function walkMonth(walk: Walk, year: number, month: number): boolean {
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const before = walk.out.length;
  for (let day = 1; day <= daysInMonth && walk.out.length < walk.limit; day++) {
    const midnight = Date.UTC(year, month - 1, day);
    const weekday = (Math.floor(midnight / DAY_MS) + 4) % 7; // 1970-01-01 was a Thursday
    if (dayMatches(walk.fields, day, weekday)) walk.out.push(midnight);
  }
  return walk.out.length > before;
}

/**
 * The midnights of the first `limit` matching days from EPOCH, in UTC calendar order;
 * fewer when the schedule stops.
 */
function matchingDays(fields: Fields, limit: number): number[] {
  const walk: Walk = { fields, out: [], limit };
  let lastYear = EPOCH.getUTCFullYear();
  for (let year = lastYear; walk.out.length < limit && year - lastYear <= MAX_GAP_YEARS; year++) {
    for (const month of fields.months) {
      if (walkMonth(walk, year, month)) lastYear = year;
    }
  }
  return walk.out;
}

/**
 * Shortest and longest gaps between hits. Every matching day fires at the same times, so the gaps are those inside
 * one day and those from one matching day's last hit to the next one's first, over SAMPLES matching days (counting
 * days, not hits: "* * 1 * *" must reach the gap between two months, not stop after 400 minutes).
 */
function periods(expression: string, schedule: string): { minPeriodMs: number; maxPeriodMs: number } {
  let fields: Fields;
  try {
    fields = parseFields(expression);
  } catch (error) {
    throw new ScheduleError(schedule, (error as Error).message);
  }
  const days = matchingDays(fields, SAMPLES);
  if (days.length === 0) throw new ScheduleError(schedule, "the schedule never fires");
  const times = fields.hours.flatMap((hour) => fields.minutes.map((minute) => hour * HOUR_MS + minute * MINUTE_MS));
  const first = times[0] ?? 0;
  const last = times[times.length - 1] ?? 0;
  const gaps = [
    ...times.slice(1).map((t, i) => t - (times[i] as number)),
    ...days.slice(1).map((midnight, i) => midnight + first - ((days[i] as number) + last)),
  ];
  return { minPeriodMs: Math.min(...gaps), maxPeriodMs: Math.max(...gaps) };
}

/** Schedules are short (the CRD pattern); a long string is parsed every time rather than kept. */
const cache = new BoundedMemo<Schedule | ScheduleError>({
  maxEntries: 1000,
  maxKeyLength: 256,
  maxTotalLength: 256 * 1000,
});

/** Parses a budget schedule the way Karpenter does (UTC); throws ScheduleError. Results are memoised. */
export function parseSchedule(schedule: string): Schedule {
  let result = cache.get(schedule);
  if (result === undefined) {
    result = compute(schedule);
    cache.set(schedule, result);
  }
  if (result instanceof ScheduleError) throw result;
  return result;
}

function compute(schedule: string): Schedule | ScheduleError {
  try {
    const expression = schedule.startsWith("@") ? MACROS[schedule] : schedule;
    if (expression === undefined) throw new ScheduleError(schedule, `unrecognized descriptor ${schedule}`);
    const fields = expression.trim().split(/\s+/);
    checkFields(schedule, fields);
    const normalised = robfigForCronParser(fields);
    return { expression: normalised, ...periods(normalised, schedule) };
  } catch (error) {
    return error instanceof ScheduleError ? error : new ScheduleError(schedule, String(error));
  }
}

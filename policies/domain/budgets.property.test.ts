// Properties: isBudgetActive and budgetWindow agree with a brute-force, minute-by-minute reading of robfig's cron
// semantics, for random 5-field schedules, durations, days and zones (daylight-saving days included).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { budgetWindow, isBudgetActive, ScheduleError } from "./budgets.ts";

const MINUTE = 60_000;
const DAY = 86_400_000;
const BLOCK = 15 * MINUTE; // every offset change since 1970 falls on a quarter hour
const MONTH_NAMES = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DAY_NAMES = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

/** A generated cron field: its text and the set robfig expands it to; `star` is robfig's star bit. */
interface Field {
  readonly text: string;
  readonly values: ReadonlySet<number>;
  readonly star: boolean;
}

interface Bounds {
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
  readonly nameBase?: number;
}
const BOUNDS: readonly Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTH_NAMES, nameBase: 1 },
  { min: 0, max: 6, names: DAY_NAMES, nameBase: 0 },
];

function range(from: number, to: number, stepBy: number): number[] {
  const out: number[] = [];
  for (let v = from; v <= to; v += stepBy) out.push(v);
  return out;
}

function valueText(bounds: Bounds, value: number, asName: boolean): string {
  return asName && bounds.names !== undefined
    ? (bounds.names[value - (bounds.nameBase ?? 0)] ?? String(value))
    : String(value);
}

/** One comma-separated part: N, A-B, A-B/S or N/S (robfig: N to the field's maximum, every S). */
function part(bounds: Bounds): fc.Arbitrary<Field> {
  const value = fc.integer({ min: bounds.min, max: bounds.max });
  const span = bounds.max - bounds.min + 1;
  return fc
    .tuple(
      value,
      value,
      fc.integer({ min: 1, max: span }),
      fc.constantFrom("single", "range", "rangeStep", "startStep"),
      fc.boolean(),
    )
    .map(([a, b, s, kind, names]) => {
      const [lo, hi] = a <= b ? [a, b] : [b, a];
      const t = (v: number): string => valueText(bounds, v, names);
      if (kind === "single") return { text: t(a), values: new Set([a]), star: false };
      if (kind === "range") return { text: `${t(lo)}-${t(hi)}`, values: new Set(range(lo, hi, 1)), star: false };
      if (kind === "rangeStep")
        return { text: `${t(lo)}-${t(hi)}/${s}`, values: new Set(range(lo, hi, s)), star: false };
      return { text: `${t(a)}/${s}`, values: new Set(range(a, bounds.max, s)), star: false };
    });
}

function field(bounds: Bounds): fc.Arbitrary<Field> {
  const all = new Set(range(bounds.min, bounds.max, 1));
  const span = bounds.max - bounds.min + 1;
  const list = fc
    .array(part(bounds), { minLength: 1, maxLength: 3 })
    // Overlapping parts are valid robfig but cron-parser refuses duplicates (the webhook denies them too).
    .filter(
      (parts) => parts.reduce((n, p) => n + p.values.size, 0) === new Set(parts.flatMap((p) => [...p.values])).size,
    )
    .map((parts) => ({
      text: parts.map((p) => p.text).join(","),
      values: new Set(parts.flatMap((p) => [...p.values])),
      star: false,
    }));
  // Lists weigh most: sparse hits are where a misplaced offset change shows.
  return fc.oneof(
    { arbitrary: fc.constant({ text: "*", values: all, star: true }), weight: 2 },
    { arbitrary: fc.constant({ text: "?", values: all, star: true }), weight: 1 },
    {
      arbitrary: fc
        .oneof(fc.constant(1), fc.integer({ min: 2, max: span }))
        .map((s) => ({ text: `*/${s}`, values: new Set(range(bounds.min, bounds.max, s)), star: s === 1 })),
      weight: 2,
    },
    { arbitrary: list, weight: 5 },
  );
}

type Schedule = readonly [Field, Field, Field, Field, Field];
const schedule: fc.Arbitrary<Schedule> = fc.tuple(
  field(BOUNDS[0] as Bounds),
  field(BOUNDS[1] as Bounds),
  field(BOUNDS[2] as Bounds),
  field(BOUNDS[3] as Bounds),
  field(BOUNDS[4] as Bounds),
);

/** robfig's dayMatches: with a star in either day field both must match, else either. */
function matches(s: Schedule, wall: Date): boolean {
  const [minute, hour, dom, month, dow] = s;
  const domOk = dom.values.has(wall.getUTCDate());
  const dowOk = dow.values.has(wall.getUTCDay());
  const dayOk = dom.star || dow.star ? domOk && dowOk : domOk || dowOk;
  return (
    dayOk &&
    minute.values.has(wall.getUTCMinutes()) &&
    hour.values.has(wall.getUTCHours()) &&
    month.values.has(wall.getUTCMonth() + 1)
  );
}

/** Whether any date exists for the schedule: only day-of-month restricted with a star day of week can miss them all. */
function everFires(s: Schedule): boolean {
  const [, , dom, month, dow] = s;
  if (!dow.star || dom.star) return true;
  const longest = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return [...month.values].some((m) => [...dom.values].some((d) => d <= (longest[m - 1] ?? 0)));
}

function offsetMinutesAt(format: Intl.DateTimeFormat, instant: number): number {
  const name = format.formatToParts(instant).find((p) => p.type === "timeZoneName")?.value ?? "GMT";
  const m = /GMT([+-])(\d\d):(\d\d)/.exec(name);
  return m === null ? 0 : (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

/** Whole-minute instants in [fromMs, toMs) whose wall-clock time in `zone` matches: the brute force. */
function matchingMinutes(s: Schedule, zone: string, fromMs: number, toMs: number): number[] {
  const format = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" });
  const out: number[] = [];
  const first = Math.ceil(fromMs / MINUTE) * MINUTE;
  for (let block = Math.floor(first / BLOCK) * BLOCK; block < toMs; block += BLOCK) {
    const offset = offsetMinutesAt(format, block) * MINUTE;
    for (let m = Math.max(block, first); m < block + BLOCK && m < toMs; m += MINUTE)
      if (matches(s, new Date(m + offset))) out.push(m);
  }
  return out;
}

const ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Asia/Kathmandu", "Australia/Lord_Howe"];
const FIRST_DAY = Date.UTC(2026, 0, 1) / DAY;
/** Days whose clocks change (the day before the change in UTC is included by the 2-day brute-force range). */
const CHANGES: readonly [string, string][] = [
  ["Europe/Berlin", "2026-03-29"],
  ["Europe/Berlin", "2026-10-25"],
  ["America/New_York", "2026-03-08"],
  ["America/New_York", "2026-11-01"],
  ["Australia/Lord_Howe", "2026-04-05"],
  ["Australia/Lord_Howe", "2026-10-04"],
  ["Europe/Berlin", "2027-03-28"],
  ["America/New_York", "2027-11-07"],
];
/** A zone and a day: any zone on any day of 2026–2030, or a zone on (or just after) one of its clock changes. */
const zoneDay = fc.oneof(
  fc.tuple(fc.constantFrom(...ZONES), fc.integer({ min: FIRST_DAY, max: FIRST_DAY + 5 * 365 })),
  fc
    .tuple(fc.constantFrom(...CHANGES), fc.integer({ min: 0, max: 1 }))
    .map(([[zone, date], after]) => [zone, Date.parse(date) / DAY + after] as const),
);
const durationMinutes = fc.oneof(
  fc.integer({ min: 0, max: 24 }).map((h) => h * 60),
  fc.integer({ min: 0, max: 1440 }),
);
const durationText = (minutes: number): string =>
  minutes % 60 === 0
    ? `${minutes / 60}h`
    : minutes < 60
      ? `${minutes}m`
      : `${Math.floor(minutes / 60)}h${minutes % 60}m`;

void describe("isBudgetActive against a minute-by-minute brute force", () => {
  void it("agrees for random schedules, durations, days and zones", () => {
    fc.assert(
      fc.property(
        schedule,
        durationMinutes,
        zoneDay,
        fc.array(fc.integer({ min: 0, max: DAY - 1 }), { minLength: 16, maxLength: 16 }),
        (s, minutes, [zone, dayIndex], offsets) => {
          const cron = s.map((f) => f.text).join(" ");
          const budget = { nodes: "0", schedule: cron, duration: durationText(minutes) };
          const dayStart = dayIndex * DAY;
          if (!everFires(s)) {
            assert.throws(() => isBudgetActive(budget, new Date(dayStart), zone), ScheduleError);
            return;
          }
          const durationMs = minutes * MINUTE;
          const hits = matchingMinutes(s, zone, dayStart - DAY - MINUTE, dayStart + DAY);
          // Active at t iff some hit h has t − duration < h ≤ t.
          const expected = (t: number): boolean => hits.some((h) => h > t - durationMs && h <= t);
          // Random instants in the day, plus the edges of a few windows that open within it.
          const opening = hits.filter((h) => h >= dayStart);
          const picks = [0, 1, 2, 3, 4, 5]
            .map((k) => opening[Math.floor((k * opening.length) / 6)])
            .filter((h): h is number => h !== undefined);
          const instants = [
            ...offsets.map((o) => dayStart + o),
            ...picks.flatMap((h) => [h - 1, h, h + durationMs - 1, h + durationMs]),
          ];
          for (const t of instants.filter((i) => i < dayStart + DAY)) {
            assert.equal(
              isBudgetActive(budget, new Date(t), zone),
              expected(t),
              `"${cron}" for ${budget.duration} at ${new Date(t).toISOString()} in ${zone}`,
            );
          }
        },
      ),
      { numRuns: 250 },
    );
  });
});

/** The end of the window open at `t` from the brute-force hits: later hits no later than the end extend it. */
function windowEndOf(
  hits: readonly number[],
  t: number,
  durationMs: number,
): { end: number; hits: number } | undefined {
  const from = hits.findIndex((h) => h > t - durationMs);
  if (from < 0 || (hits[from] as number) > t) return undefined;
  let end = (hits[from] as number) + durationMs;
  let count = 1;
  for (const h of hits.slice(from + 1)) {
    if (h > end) return { end, hits: count };
    end = h + durationMs;
    count++;
  }
  return { end: Number.POSITIVE_INFINITY, hits: count }; // still open where the brute force stops
}

void describe("budgetWindow against a minute-by-minute brute force", () => {
  void it("opens at the next hit and closes where the brute force's windows stop overlapping", () => {
    fc.assert(
      fc.property(
        schedule,
        durationMinutes,
        zoneDay,
        fc.integer({ min: 0, max: DAY - 1 }),
        (s, minutes, [zone, dayIndex], offset) => {
          fc.pre(everFires(s));
          const cron = s.map((f) => f.text).join(" ");
          const durationMs = minutes * MINUTE;
          const t = dayIndex * DAY + offset;
          const horizon = t + 3 * DAY;
          const hits = matchingMinutes(s, zone, t - DAY - MINUTE, horizon);
          const window = budgetWindow({ schedule: cron, duration: durationText(minutes) }, new Date(t), zone);
          const label = `"${cron}" for ${durationText(minutes)} at ${new Date(t).toISOString()} in ${zone}`;
          assert.ok(window !== undefined, label);
          const open = windowEndOf(hits, t, durationMs);
          assert.equal(window.active, open !== undefined, label);
          const next = hits.find((h) => h > t);
          if (next !== undefined) assert.equal(window.opensAt?.getTime(), next, label);
          else assert.ok((window.opensAt?.getTime() ?? 0) >= horizon, label);
          if (open === undefined) return assert.equal(window.closesAt, undefined, label);
          if (window.closesAt === undefined)
            return assert.ok(open.end === Number.POSITIVE_INFINITY || open.hits > 2000, label);
          if (open.end < horizon) assert.equal(window.closesAt.getTime(), open.end, label);
        },
      ),
      { numRuns: 100 },
    );
  });
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { CronExpressionParser } from "cron-parser";
import { parseSchedule, ScheduleError } from "./cron.ts";

const HOUR = 3_600_000;

void describe("budget schedules (robfig/cron standard syntax, UTC)", () => {
  const valid: [string, number, number][] = [
    ["@daily", 24 * HOUR, 24 * HOUR],
    ["@midnight", 24 * HOUR, 24 * HOUR],
    ["@hourly", HOUR, HOUR],
    ["0 9 * * mon-fri", 24 * HOUR, 72 * HOUR],
    ["*/15 * * * *", HOUR / 4, HOUR / 4],
    ["0 0 * * 0", 168 * HOUR, 168 * HOUR],
    ["30 2 ? * SUN", 168 * HOUR, 168 * HOUR],
    // robfig semantics cron-parser alone gets wrong: "*/1" keeps the star bit (the 1st AND any weekday: monthly),
    // and "1/2" in day of week is 1-6/2 (Monday, Wednesday, Friday; cron-parser would add Sunday as 7).
    ["0 0 1 * */1", 28 * 24 * HOUR, 31 * 24 * HOUR],
    ["0 0 * * 1/2", 48 * HOUR, 72 * HOUR],
    ["0 0 * * mon/2", 48 * HOUR, 72 * HOUR],
    ["0 0 ?/2 * *", 24 * HOUR, 48 * HOUR],
    // Dense hits on few days: the longest gap is between days, far beyond the first 400 hits.
    ["* * 1 * *", HOUR / 60, 720 * HOUR + HOUR / 60],
    ["*/10 * * 1 *", HOUR / 6, 336 * 24 * HOUR - 23 * HOUR - 50 * (HOUR / 60)],
  ];
  for (const [schedule, min, max] of valid) {
    void it(`parses "${schedule}" with periods ${min / HOUR}h..${max / HOUR}h`, () => {
      const parsed = parseSchedule(schedule);
      assert.equal(parsed.minPeriodMs, min);
      assert.equal(parsed.maxPeriodMs, max);
    });
  }

  const invalid: [string, string][] = [
    ["* * * * * *", "expected exactly 5 fields, found 6"],
    ["* * * *", "expected exactly 5 fields, found 4"],
    ["@dailyX", "unrecognized descriptor"],
    ["0 25 * * *", "25"],
    ["0 0 * * 7", "day of week 7"],
    ["0 0 L * *", "invalid day of month"],
    ["0 0 * * 1#2", "invalid day of week"],
    ["TZ=Europe/Paris 0 9 * *", "invalid minute"],
  ];
  for (const [schedule, reason] of invalid) {
    void it(`rejects "${schedule}"`, () => {
      assert.throws(
        () => parseSchedule(schedule),
        (e: unknown) => e instanceof ScheduleError && e.message.includes(reason),
      );
    });
  }

  // parseSchedule walks the calendar itself (cron-parser's iterator costs ~100 ms per schedule): the
  // periods must be exactly those of 400 cron-parser firings from the same instant, in UTC.
  const reference = (expression: string): { min: number; max: number } => {
    const cron = CronExpressionParser.parse(expression, { currentDate: new Date(Date.UTC(2001, 0, 1)), tz: "UTC" });
    const hits = cron.take(400).map((d) => d.getTime());
    const gaps = hits.slice(1).map((t, i) => t - (hits[i] as number));
    return { min: Math.min(...gaps), max: Math.max(...gaps) };
  };
  const compared = [
    "0 0 29 2 *",
    "0 0 29 2 1",
    "0 0 13 * 5",
    "0 0 31 * *",
    "*/7 1-5 * * *",
    "15,45 */6 1-7 * mon",
    "0 12 1 jan-mar/2 *",
    "5 4 ? * sat,sun",
    "0 0 1 1 *",
  ];
  for (const expression of compared) {
    void it(`computes the periods of "${expression}" as cron-parser's iteration`, () => {
      const { min, max } = reference(expression);
      const parsed = parseSchedule(expression);
      assert.deepEqual([parsed.minPeriodMs, parsed.maxPeriodMs], [min, max]);
    });
  }

  void it("rejects a schedule that never fires", () => {
    assert.throws(
      () => parseSchedule("0 0 30 2 *"),
      (e: unknown) => e instanceof ScheduleError && /never fires|Invalid/.test(e.message),
    );
  });
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
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
      assert.throws(() => parseSchedule(schedule), (e: unknown) => e instanceof ScheduleError && e.message.includes(reason));
    });
  }
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { BUDGET_TIMEZONE_ANNOTATION } from "./budgets.ts";
import { describeOff, OFF_SCHEDULE_ANNOTATION, offScheduleOf, offStateAt, poolOffState } from "./off-schedule.ts";

const annotations = (windows: unknown, timeZone?: string): Record<string, string> => ({
  [OFF_SCHEDULE_ANNOTATION]: JSON.stringify(windows),
  ...(timeZone === undefined ? {} : { [BUDGET_TIMEZONE_ANNOTATION]: timeZone }),
});

const NIGHTLY = { schedule: "0 20 * * *", duration: "10h" };
const WEEKNIGHTS = { schedule: "0 20 * * 1-5", duration: "12h" };
const WEEKENDS = { schedule: "0 0 * * 6,0", duration: "24h" };

void describe("offStateAt: whether a pool is off at an instant and until when", () => {
  // [title, windows, time zone, now, off, until (off) or next opening (on)]
  const cases: [string, unknown, string | undefined, string, boolean, string | undefined][] = [
    [
      "a nightly UTC window is off at night until it closes",
      [NIGHTLY],
      undefined,
      "2026-11-27T21:00:00Z",
      true,
      "2026-11-28T06:00:00.000Z",
    ],
    [
      "a nightly UTC window is on at noon until the evening",
      [NIGHTLY],
      undefined,
      "2026-11-27T12:00:00Z",
      false,
      "2026-11-27T20:00:00.000Z",
    ],
    [
      "a window is off from the instant it opens",
      [NIGHTLY],
      undefined,
      "2026-11-27T20:00:00Z",
      true,
      "2026-11-28T06:00:00.000Z",
    ],
    [
      "a window is on again at the instant it closes (half-open)",
      [NIGHTLY],
      undefined,
      "2026-11-28T06:00:00Z",
      false,
      "2026-11-28T20:00:00.000Z",
    ],
    [
      "one object alone reads as a list of one",
      NIGHTLY,
      undefined,
      "2026-11-27T23:00:00Z",
      true,
      "2026-11-28T06:00:00.000Z",
    ],
    [
      "a Friday night window runs into the weekend's and ends Monday",
      [WEEKNIGHTS, WEEKENDS],
      undefined,
      "2026-11-27T21:00:00Z",
      true,
      "2026-11-30T00:00:00.000Z",
    ],
    [
      "on Monday night the weekday window alone decides",
      [WEEKNIGHTS, WEEKENDS],
      undefined,
      "2026-11-30T21:00:00Z",
      true,
      "2026-12-01T08:00:00.000Z",
    ],
    [
      "a Berlin window is read in Berlin's wall clock (CET, UTC+1)",
      [{ schedule: "0 22 * * *", duration: "8h" }],
      "Europe/Berlin",
      "2026-11-26T22:30:00Z",
      true,
      "2026-11-27T05:00:00.000Z",
    ],
    [
      "a Berlin window is on before 22:00 local",
      [{ schedule: "0 22 * * *", duration: "8h" }],
      "Europe/Berlin",
      "2026-11-26T20:30:00Z",
      false,
      "2026-11-26T21:00:00.000Z",
    ],
    [
      "the night clocks go back, 8h of real time end at 05:00 local",
      [{ schedule: "0 22 * * *", duration: "8h" }],
      "Europe/Berlin",
      "2026-10-24T21:00:00Z",
      true,
      "2026-10-25T04:00:00.000Z",
    ],
    [
      "a wall time skipped when clocks go forward does not open that day",
      [{ schedule: "30 2 * * *", duration: "1h" }],
      "Europe/Berlin",
      "2026-03-29T01:45:00Z",
      false,
      "2026-03-30T00:30:00.000Z",
    ],
    [
      "windows that always run into each other are off with no end",
      [{ schedule: "* * * * *", duration: "1m" }],
      undefined,
      "2026-11-27T12:00:30Z",
      true,
      undefined,
    ],
  ];
  for (const [title, windows, zone, now, off, edge] of cases) {
    void it(title, () => {
      const schedule = offScheduleOf(annotations(windows, zone));
      assert.equal(schedule.kind, "set", JSON.stringify(schedule));
      if (schedule.kind !== "set") return;
      const state = offStateAt(schedule, new Date(now));
      assert.equal(state.off, off, describeOff(state));
      assert.equal((off ? state.until : state.nextOff)?.toISOString(), edge, describeOff(state));
    });
  }

  void it("is off at every instant of a window and on at the instant it ends (any time of day)", () => {
    const schedule = offScheduleOf(annotations([{ schedule: "0 20 * * *", duration: "10h" }]));
    assert.ok(schedule.kind === "set");
    const start = Date.UTC(2026, 10, 1);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 30 * 86_400_000 }), (offset) => {
        const now = new Date(start + offset);
        const state = offStateAt(schedule, now);
        const hour = now.getUTCHours();
        assert.equal(state.off, hour >= 20 || hour < 6);
        if (state.until !== undefined) {
          assert.ok(state.until > now);
          assert.equal(offStateAt(schedule, state.until).off, false);
        }
      }),
    );
  });
});

void describe("offScheduleOf: reading the kerf.dev/off-schedule annotation", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["refuses a value that is not JSON", { [OFF_SCHEDULE_ANNOTATION]: "0 20 * * * for 10h" }, "not JSON"],
    ["refuses an empty list", annotations([]), "the list of windows is empty"],
    ["refuses a window that is not an object", annotations(["0 20 * * *"]), "window 0 is not an object"],
    [
      "refuses an unknown field (a typo would be lost)",
      annotations([{ ...NIGHTLY, nodes: "0" }]),
      "unknown field(s) nodes",
    ],
    ["refuses a window without a schedule", annotations([{ duration: "1h" }]), "window 0 needs a schedule"],
    [
      "refuses a window without a duration",
      annotations([NIGHTLY, { schedule: "0 1 * * *" }]),
      "window 1 needs a duration",
    ],
    [
      "refuses a cron expression robfig refuses",
      annotations([{ schedule: "0 25 * * *", duration: "1h" }]),
      'parsing schedule "0 25 * * *"',
    ],
    [
      "refuses a schedule that never fires",
      annotations([{ schedule: "0 0 30 2 *", duration: "1h" }]),
      'parsing schedule "0 0 30 2 *"',
    ],
    [
      "refuses a duration that is not a Go duration",
      annotations([{ schedule: "0 20 * * *", duration: "10 hours" }]),
      'duration "10 hours"',
    ],
    [
      "refuses a zero duration (the window would never open)",
      annotations([{ schedule: "0 20 * * *", duration: "0s" }]),
      'duration "0s"',
    ],
    ["refuses Never as a duration", annotations([{ schedule: "0 20 * * *", duration: "Never" }]), 'duration "Never"'],
    ["refuses an unknown time zone", annotations([NIGHTLY], "Mars/Olympus"), 'time zone "Mars/Olympus"'],
    ["refuses a value that is not a string", { [OFF_SCHEDULE_ANNOTATION]: 42 }, "42 is not a string"],
  ];
  for (const [title, given, message] of cases) {
    void it(title, () => {
      const got = offScheduleOf(given);
      assert.equal(got.kind, "invalid");
      assert.ok(got.kind === "invalid" && got.message.includes(message), JSON.stringify(got));
    });
  }

  void it("reads a pool without the annotation as absent, and poolOffState as undefined", () => {
    assert.deepEqual(offScheduleOf({ other: "x" }), { kind: "absent" });
    assert.equal(poolOffState(undefined, new Date()), undefined);
  });

  void it("reads an unusable annotation as no state: the operator leaves the pool on", () => {
    assert.equal(poolOffState({ [OFF_SCHEDULE_ANNOTATION]: "[" }, new Date("2026-11-27T21:00:00Z")), undefined);
  });
});

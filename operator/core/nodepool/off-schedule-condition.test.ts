import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { OFF_SCHEDULE_CONDITION, offScheduleStatus, withoutCondition } from "./off-schedule-condition.ts";

const NIGHTLY = JSON.stringify([{ schedule: "0 20 * * *", duration: "10h" }]);
const poolWith = (value?: string): { metadata: { name: string; annotations?: Record<string, string> } } => ({
  metadata: { name: "dev", ...(value === undefined ? {} : { annotations: { "kerf.dev/off-schedule": value } }) },
});

void describe("the kerf.dev/ScheduledOff NodePool condition", () => {
  // [title, annotation, now, status, reason, message fragment, wake at]
  const cases: [
    string,
    string | undefined,
    string,
    string | undefined,
    string | undefined,
    string,
    string | undefined,
  ][] = [
    [
      "is True while a window is open, until it closes",
      NIGHTLY,
      "2026-11-27T23:00:00Z",
      "True",
      "WindowOpen",
      "off until 2026-11-28T06:00:00.000Z",
      "2026-11-28T06:00:00.000Z",
    ],
    [
      "is False while no window is open, until the next opens",
      NIGHTLY,
      "2026-11-27T12:00:00Z",
      "False",
      "WindowClosed",
      "on until 2026-11-27T20:00:00.000Z",
      "2026-11-27T20:00:00.000Z",
    ],
    [
      "is False and says the annotation is ignored when it is unusable",
      "nightly",
      "2026-11-27T23:00:00Z",
      "False",
      "InvalidOffSchedule",
      "is ignored: not JSON",
      undefined,
    ],
    ["is absent without the annotation", undefined, "2026-11-27T23:00:00Z", undefined, undefined, "", undefined],
  ];
  for (const [title, value, now, status, reason, message, wake] of cases) {
    void it(title, () => {
      const got = offScheduleStatus(poolWith(value), new Date(now));
      assert.equal(got.condition?.type, status === undefined ? undefined : OFF_SCHEDULE_CONDITION);
      assert.equal(got.condition?.status, status);
      assert.equal(got.condition?.reason, reason);
      assert.ok((got.condition?.message ?? "").includes(message), got.condition?.message);
      assert.equal(got.wakeAt === undefined ? undefined : new Date(got.wakeAt).toISOString(), wake);
    });
  }

  void it("is removed from a condition list when the annotation goes", () => {
    const list = [
      { type: "Ready", status: "True" },
      { type: OFF_SCHEDULE_CONDITION, status: "True" },
    ];
    assert.deepEqual(withoutCondition(list, OFF_SCHEDULE_CONDITION), [{ type: "Ready", status: "True" }]);
  });
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { budgetIssues } from "./budgets.ts";
import { defaultPolicyConfig } from "../config.ts";
import { builtinCatalog } from "../domain/catalog/builtin.ts";
import type { Issue } from "../types.ts";

const context = { catalog: builtinCatalog(), config: defaultPolicyConfig() };

function issues(budgets: unknown[], annotations?: Record<string, unknown>): Issue[] {
  const metadata = annotations === undefined ? { name: "p" } : { name: "p", annotations };
  const object = { apiVersion: "karpenter.sh/v1", kind: "NodePool", metadata, spec: { disruption: { budgets } } };
  return budgetIssues({ kind: "NodePool", operation: "CREATE", object, oldObject: undefined, context });
}

const ANNOTATION = "kerf.dev/budget-timezone";
const PATH = "metadata.annotations.kerf.dev/budget-timezone";

void describe("the budget-schedule policy's time zone annotation", () => {
  const zones: [string, unknown, string | undefined][] = [
    ["accepts an IANA zone", "Europe/Berlin", undefined],
    ["accepts UTC", "UTC", undefined],
    [
      "denies an unknown zone",
      "Europe/Berlim",
      'unknown time zone "Europe/Berlim"; expected an IANA zone such as "Europe/Berlin"',
    ],
    ["denies a zone in the wrong case and suggests the spelling", "europe/berlin", '("Europe/Berlin"?)'],
    ["denies a numeric offset", "+01:00", 'unknown time zone "+01:00"'],
    ["denies an empty value", "", 'unknown time zone ""'],
  ];
  for (const [title, zone, message] of zones) {
    void it(title, () => {
      const found = issues([{ nodes: "1" }], { [ANNOTATION]: zone }).filter((i) => i.path === PATH);
      if (message === undefined) return assert.deepEqual(found, []);
      assert.equal(found.length, 1);
      assert.ok(found[0]?.message.includes(message), found[0]?.message);
      assert.ok(found[0]?.message.startsWith(`annotation ${ANNOTATION}:`));
      assert.notEqual(found[0]?.advisory, true);
    });
  }
});

void describe("the budget-schedule policy's period warnings", () => {
  /** [title, budget, zone, path of the expected issue (undefined: none), text in its message] */
  const cases: [string, Record<string, unknown>, string | undefined, string | undefined, string][] = [
    [
      "a business-hours window is fine in UTC",
      { nodes: "0", schedule: "0 9 * * mon-fri", duration: "8h" },
      undefined,
      undefined,
      "",
    ],
    [
      "a business-hours window is fine in Berlin",
      { nodes: "0", schedule: "0 9 * * mon-fri", duration: "8h" },
      "Europe/Berlin",
      undefined,
      "",
    ],
    [
      "an hourly schedule for 2h never ends",
      { nodes: "1", schedule: "@hourly", duration: "2h" },
      undefined,
      "duration",
      "never becomes inactive",
    ],
    [
      "a daily schedule for 25h overlaps in UTC",
      { nodes: "1", schedule: "0 9 * * *", duration: "25h" },
      undefined,
      "duration",
      "never becomes inactive",
    ],
    // Daily 09:00 for 24h abuts in UTC (always active) but leaves an hour open the night Berlin's clocks go back.
    [
      "a daily 24h window is always active in UTC",
      { nodes: "0", schedule: "0 9 * * *", duration: "24h" },
      undefined,
      "nodes",
      "blocks every disruption reason permanently",
    ],
    [
      "a daily 24h window in Berlin overlaps only on the spring change",
      { nodes: "0", schedule: "0 9 * * *", duration: "24h" },
      "Europe/Berlin",
      "duration",
      "23h0m0s between two hits on a day Europe/Berlin changes its clocks",
    ],
    [
      "a daily 02:30 window in Berlin overlaps itself the night 02:30 happens twice",
      { nodes: "0", schedule: "30 2 * * *", duration: "2h" },
      "Europe/Berlin",
      "duration",
      "1h0m0s between two hits",
    ],
    [
      "a daily 02:30 window is fine in UTC",
      { nodes: "0", schedule: "30 2 * * *", duration: "2h" },
      undefined,
      undefined,
      "",
    ],
    [
      "a daily 02:30 window is fine in Tokyo, which keeps its clocks",
      { nodes: "0", schedule: "30 2 * * *", duration: "2h" },
      "Asia/Tokyo",
      undefined,
      "",
    ],
    [
      "a weekday window longer than a day overlaps",
      { nodes: "0", schedule: "0 9 * * mon-fri", duration: "30h" },
      "Europe/Berlin",
      "duration",
      "exceeds the schedule's period (24h0m0s): consecutive windows overlap",
    ],
    [
      "every minute of the 1st for 5m overlaps but ends each month",
      { nodes: "0", schedule: "* * 1 * *", duration: "5m" },
      undefined,
      "duration",
      "(1m0s): consecutive windows overlap",
    ],
    [
      "a bad cron fails closed whatever the zone",
      { nodes: "1", schedule: "0 9 * * * *", duration: "1h" },
      "Europe/Berlin",
      "schedule",
      "fails closed",
    ],
  ];
  for (const [title, budget, zone, field, text] of cases) {
    void it(title, () => {
      const found = issues([budget], zone === undefined ? undefined : { [ANNOTATION]: zone });
      if (field === undefined) return assert.deepEqual(found, []);
      const issue = found.find((i) => i.path === `spec.disruption.budgets[0].${field}`);
      assert.ok(issue?.message.includes(text), JSON.stringify(found));
    });
  }

  void it("checks the schedules in UTC when the zone is unknown, besides denying the zone", () => {
    const found = issues([{ nodes: "1", schedule: "@hourly", duration: "2h" }], { [ANNOTATION]: "Nowhere/Town" });
    assert.deepEqual(
      found.map((i) => i.path),
      [PATH, "spec.disruption.budgets[0].duration"],
    );
  });
});

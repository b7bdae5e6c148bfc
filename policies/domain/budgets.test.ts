import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  allowedDisruptions,
  BudgetError,
  budgetErrors,
  budgetNodes,
  budgetWindow,
  DEFAULT_BUDGETS,
  isBudgetActive,
  isValidTimeZone,
  MAX_INT32,
  ScheduleError,
  schedulePeriods,
} from "./budgets.ts";
import type { BudgetSpec, DisruptionReason } from "./budgets.ts";
import { DurationError } from "./duration.ts";

const HOUR = 3_600_000;
const at = (iso: string): Date => new Date(iso);

/** [schedule, duration, instant (UTC), active?] */
type ActiveCase = [string, string, string, boolean];

function activeTable(title: string, cases: readonly ActiveCase[], timeZone?: string): void {
  void describe(title, () => {
    for (const [schedule, duration, instant, expected] of cases) {
      void it(`"${schedule}" for ${duration} is ${expected ? "active" : "inactive"} at ${instant}${timeZone === undefined ? "" : ` in ${timeZone}`}`, () => {
        assert.equal(isBudgetActive({ nodes: "0", schedule, duration }, at(instant), timeZone), expected);
      });
    }
  });
}

activeTable("budget windows across midnight (UTC)", [
  ["0 22 * * *", "4h", "2026-03-10T21:59:59.999Z", false],
  ["0 22 * * *", "4h", "2026-03-10T22:00:00Z", true],
  ["0 22 * * *", "4h", "2026-03-10T23:00:00Z", true],
  ["0 22 * * *", "4h", "2026-03-11T01:59:00Z", true],
  ["0 22 * * *", "4h", "2026-03-11T01:59:59.999Z", true],
  ["0 22 * * *", "4h", "2026-03-11T02:00:00Z", false],
  ["0 22 * * *", "4h", "2026-03-11T02:01:00Z", false],
  ["0 22 * * *", "0h", "2026-03-10T22:00:00Z", false],
]);

activeTable("budget windows at month ends and in February", [
  ["0 0 1 * *", "24h", "2026-01-31T12:00:00Z", false],
  ["0 0 1 * *", "24h", "2026-02-01T00:00:00Z", true],
  ["0 0 1 * *", "24h", "2026-02-01T23:59:00Z", true],
  ["0 0 1 * *", "24h", "2026-02-02T00:00:00Z", false],
  ["0 0 1 * *", "24h", "2026-04-30T23:59:00Z", false],
  ["0 0 31 * *", "24h", "2026-01-31T08:00:00Z", true],
  ["0 0 31 * *", "24h", "2026-02-28T08:00:00Z", false],
  ["0 0 31 * *", "24h", "2026-03-01T08:00:00Z", false],
  ["0 0 31 * *", "24h", "2026-04-30T08:00:00Z", false],
  ["0 0 31 * *", "24h", "2026-03-31T08:00:00Z", true],
  // 48h from 28 February reaches 1 March 12:00 only when February has 28 days.
  ["0 0 28 2 *", "48h", "2027-03-01T12:00:00Z", true],
  ["0 0 28 2 *", "48h", "2028-03-01T12:00:00Z", false],
  ["0 0 29 2 *", "24h", "2028-02-29T12:00:00Z", true],
  ["0 0 29 2 *", "24h", "2027-02-28T12:00:00Z", false],
  ["0 0 29 2 *", "24h", "2027-03-01T12:00:00Z", false],
]);

activeTable("macros", [
  ["@daily", "1h", "2026-05-05T00:30:00Z", true],
  ["@daily", "1h", "2026-05-05T01:00:00Z", false],
  ["@midnight", "1h", "2026-05-05T00:59:00Z", true],
  ["@weekly", "24h", "2026-11-29T10:00:00Z", true], // a Sunday
  ["@weekly", "24h", "2026-11-28T10:00:00Z", false],
  ["@weekly", "24h", "2026-11-30T00:00:00Z", false],
  ["@monthly", "2h", "2026-06-01T01:59:00Z", true],
  ["@yearly", "24h", "2027-01-01T23:00:00Z", true],
  ["@annually", "24h", "2027-01-02T00:00:00Z", false],
  ["@hourly", "30m", "2026-05-05T13:29:00Z", true],
  ["@hourly", "30m", "2026-05-05T13:30:00Z", false],
]);

activeTable("robfig day rules and steps", [
  // "*/1" keeps robfig's star bit: the 1st AND any weekday, so only the 1st (cron-parser alone would OR them).
  ["0 0 1 * */1", "1h", "2026-11-02T00:30:00Z", false],
  ["0 0 1 * */1", "1h", "2026-11-01T00:30:00Z", true],
  // "1/2" in day of week is 1-6/2 for robfig: Monday, Wednesday, Friday, never Sunday.
  ["0 0 * * 1/2", "1h", "2026-11-29T00:30:00Z", false],
  ["0 0 * * 1/2", "1h", "2026-11-27T00:30:00Z", true],
  // Both day fields restricted: either matches (13th or Friday).
  ["0 0 13 * fri", "1h", "2026-11-13T00:30:00Z", true],
  ["0 0 13 * fri", "1h", "2026-11-20T00:30:00Z", true],
  ["0 0 13 * fri", "1h", "2026-11-19T00:30:00Z", false],
]);

activeTable(
  "time zones: business hours in Europe/Berlin",
  [
    ["0 9 * * mon-fri", "8h", "2026-11-25T08:30:00Z", true], // 09:30 CET
    ["0 9 * * mon-fri", "8h", "2026-11-25T16:30:00Z", false], // 17:30 CET
    ["0 9 * * mon-fri", "8h", "2026-07-15T07:30:00Z", true], // 09:30 CEST
    ["0 9 * * mon-fri", "8h", "2026-07-15T15:30:00Z", false], // 17:30 CEST
    ["0 9 * * mon-fri", "8h", "2026-11-28T10:00:00Z", false], // Saturday
  ],
  "Europe/Berlin",
);

activeTable(
  "time zones: the same window in UTC",
  [
    ["0 9 * * mon-fri", "8h", "2026-11-25T08:30:00Z", false],
    ["0 9 * * mon-fri", "8h", "2026-11-25T16:30:00Z", true],
  ],
  "UTC",
);

activeTable(
  "time zones: daylight-saving days in Europe/Berlin",
  [
    // 29 March 2026: 02:00 CET becomes 03:00 CEST; 02:30 does not exist, so that night has no window.
    ["30 2 * * *", "1h", "2026-03-29T01:30:00Z", false],
    ["30 2 * * *", "1h", "2026-03-29T02:29:00Z", false],
    ["30 2 * * *", "1h", "2026-03-28T01:30:00Z", true], // 02:30 CET the night before
    ["30 2 * * *", "1h", "2026-03-30T00:30:00Z", true], // 02:30 CEST the night after
    // 25 October 2026: 03:00 CEST becomes 02:00 CET; 02:30 happens twice (00:30Z and 01:30Z), so two windows abut.
    ["30 2 * * *", "1h", "2026-10-25T00:29:00Z", false],
    ["30 2 * * *", "1h", "2026-10-25T00:30:00Z", true],
    ["30 2 * * *", "1h", "2026-10-25T01:30:00Z", true],
    ["30 2 * * *", "1h", "2026-10-25T02:29:00Z", true],
    ["30 2 * * *", "1h", "2026-10-25T02:30:00Z", false],
    // Hourly schedules keep real time through the repeated hour.
    ["0 * * * *", "30m", "2026-10-25T01:15:00Z", true],
    ["0 * * * *", "30m", "2026-10-25T00:15:00Z", true],
    ["0 * * * *", "30m", "2026-10-25T00:45:00Z", false],
  ],
  "Europe/Berlin",
);

void describe("time zone validation", () => {
  const zones: [string, boolean][] = [
    ["UTC", true],
    ["Europe/Berlin", true],
    ["America/Argentina/Buenos_Aires", true],
    ["US/Pacific", true],
    ["Etc/GMT+5", true],
    ["europe/berlin", false],
    ["utc", false],
    ["+01:00", false],
    ["Mars/Olympus_Mons", false],
    ["", false],
    ["Z", false],
  ];
  for (const [zone, valid] of zones) {
    void it(`${valid ? "accepts" : "refuses"} "${zone}"`, () => assert.equal(isValidTimeZone(zone), valid));
  }
  void it("throws a BudgetError naming the zone when a scheduled budget is read in an unknown zone", () => {
    assert.throws(
      () => isBudgetActive({ schedule: "@daily", duration: "1h" }, at("2026-01-01T00:30:00Z"), "Mars/Olympus_Mons"),
      (e: unknown) => e instanceof BudgetError && e.message.includes("Mars/Olympus_Mons"),
    );
  });
  void it("leaves a budget without a schedule always active whatever the zone", () => {
    assert.equal(isBudgetActive({ nodes: "1" }, at("2026-01-01T00:30:00Z"), "Mars/Olympus_Mons"), true);
  });
});

void describe("budget node counts", () => {
  const cases: [string | undefined, number, number][] = [
    ["20%", 19, 4],
    ["0%", 19, 0],
    ["100%", 19, 19],
    ["5", 19, 5],
    ["0", 19, 0],
    ["10%", 10, 1],
    ["15%", 10, 2],
    ["10%", 1, 1],
    ["10%", 0, 0],
    ["05%", 100, 5],
    ["00%", 7, 0],
    ["1000", 3, 1000],
    [undefined, 19, 2],
  ];
  for (const [nodes, numNodes, expected] of cases) {
    void it(`reads ${nodes === undefined ? "an omitted nodes (10%)" : `"${nodes}"`} of ${numNodes} nodes as ${expected}`, () => {
      assert.equal(budgetNodes(nodes, numNodes), expected);
    });
  }
  for (const bad of ["10.5%", "abc", "", "%", "5 %", "1e3"]) {
    void it(`refuses "${bad}"`, () => assert.throws(() => budgetNodes(bad, 10), BudgetError));
  }
});

/** [title, budgets, reason, numNodes, instant, allowed, limiting budget, text the explanation contains] */
type AllowedCase = [
  string,
  readonly BudgetSpec[] | undefined,
  DisruptionReason,
  number,
  string,
  number,
  number | undefined,
  string,
];

const businessHours: BudgetSpec = { nodes: "0", schedule: "0 9 * * mon-fri", duration: "8h" };
const allowedCases: readonly AllowedCase[] = [
  [
    "the default budget allows 10% rounded up",
    undefined,
    "Drifted",
    19,
    "2026-11-25T10:00:00Z",
    2,
    0,
    'default budget (nodes "10%") allows 2',
  ],
  ["the default budget allows 0 of 0 nodes", undefined, "Empty", 0, "2026-11-25T10:00:00Z", 0, 0, "allows 0"],
  [
    "an explicitly empty list allows everything",
    [],
    "Empty",
    10,
    "2026-11-25T10:00:00Z",
    MAX_INT32,
    undefined,
    "no active budget",
  ],
  [
    "the minimum over active budgets wins",
    [{ nodes: "5" }, { nodes: "3" }, { nodes: "50%" }],
    "Underutilized",
    100,
    "2026-11-25T10:00:00Z",
    3,
    1,
    'budget 1 (nodes "3") allows 3',
  ],
  [
    "ties go to the first budget",
    [{ nodes: "2" }, { nodes: "2" }],
    "Empty",
    100,
    "2026-11-25T10:00:00Z",
    2,
    0,
    "budget 0",
  ],
  [
    "an active window lowers the minimum",
    [{ nodes: "20%" }, businessHours],
    "Drifted",
    19,
    "2026-11-25T10:00:00Z",
    0,
    1,
    'schedule "0 9 * * mon-fri" for 8h in UTC) allows 0',
  ],
  [
    "an inactive window does not count",
    [{ nodes: "20%" }, businessHours],
    "Drifted",
    19,
    "2026-11-25T18:00:00Z",
    4,
    0,
    "20% of 19 nodes, rounded up",
  ],
  [
    "MaxInt32 when no budget is active",
    [businessHours],
    "Drifted",
    19,
    "2026-11-25T18:00:00Z",
    MAX_INT32,
    undefined,
    "no active budget limits Drifted",
  ],
  [
    "a budget listing the reason applies",
    [{ nodes: "0", reasons: ["Drifted"] }, { nodes: "5" }],
    "Drifted",
    10,
    "2026-11-25T10:00:00Z",
    0,
    0,
    "reasons [Drifted]",
  ],
  [
    "a budget listing other reasons does not",
    [{ nodes: "0", reasons: ["Drifted"] }, { nodes: "5" }],
    "Empty",
    10,
    "2026-11-25T10:00:00Z",
    5,
    1,
    "budget 1",
  ],
  [
    "reasons omitted means every reason",
    [{ nodes: "1" }],
    "Underutilized",
    10,
    "2026-11-25T10:00:00Z",
    1,
    0,
    "budget 0",
  ],
  [
    "an empty reasons list means no reason",
    [{ nodes: "0", reasons: [] }],
    "Empty",
    10,
    "2026-11-25T10:00:00Z",
    MAX_INT32,
    undefined,
    "no active budget",
  ],
  [
    "reasons match case-sensitively",
    [{ nodes: "0", reasons: ["drifted"] }],
    "Drifted",
    10,
    "2026-11-25T10:00:00Z",
    MAX_INT32,
    undefined,
    "no active budget",
  ],
  [
    "a bad cron fails closed",
    [{ nodes: "5" }, { nodes: "5", schedule: "0 9 * * * *", duration: "1h" }],
    "Empty",
    10,
    "2026-11-25T10:00:00Z",
    0,
    1,
    'budget 1 (nodes "5", schedule "0 9 * * * *" for 1h in UTC) fails to parse: parsing schedule "0 9 * * * *": ' +
      "expected exactly 5 fields, found 6, allowing 0 (fails closed)",
  ],
  [
    "a bad cron for another reason does not close this one",
    [{ nodes: "5" }, { nodes: "5", schedule: "@dailyX", duration: "1h", reasons: ["Drifted"] }],
    "Empty",
    10,
    "2026-11-25T10:00:00Z",
    5,
    0,
    "budget 0",
  ],
  [
    "a bad duration fails closed",
    [{ nodes: "5", schedule: "@daily", duration: "Never" }],
    "Empty",
    10,
    "2026-11-25T10:00:00Z",
    0,
    0,
    "fails closed",
  ],
  [
    "a duration without a schedule fails closed",
    [{ nodes: "5", duration: "1h" }],
    "Empty",
    10,
    "2026-11-25T10:00:00Z",
    0,
    0,
    "set without a schedule",
  ],
  [
    "a schedule without a duration is never active",
    [{ nodes: "0", schedule: "@hourly" }],
    "Empty",
    10,
    "2026-11-25T10:00:00Z",
    MAX_INT32,
    undefined,
    "no active budget",
  ],
  [
    "bad nodes in an active budget fail closed",
    [{ nodes: "lots" }],
    "Empty",
    10,
    "2026-11-25T10:00:00Z",
    0,
    0,
    'parsing budget nodes "lots"',
  ],
  [
    "a never-firing schedule fails closed",
    [{ nodes: "5", schedule: "0 0 30 2 *", duration: "1h" }],
    "Empty",
    10,
    "2026-11-25T10:00:00Z",
    0,
    0,
    "fails closed",
  ],
];

void describe("allowed disruptions by reason", () => {
  for (const [title, budgets, reason, numNodes, instant, allowed, limiting, text] of allowedCases) {
    void it(title, () => {
      const result = allowedDisruptions(budgets, reason, numNodes, at(instant));
      assert.equal(result.allowed, allowed);
      assert.equal(result.limitingBudget, limiting);
      assert.ok(result.explanation.includes(text), result.explanation);
    });
  }

  void it("reads windows in the given zone and names it", () => {
    const inBerlin = allowedDisruptions(
      [{ nodes: "20%" }, businessHours],
      "Drifted",
      19,
      at("2026-11-25T08:30:00Z"),
      "Europe/Berlin",
    );
    assert.deepEqual(inBerlin, {
      allowed: 0,
      limitingBudget: 1,
      explanation: 'budget 1 (nodes "0", schedule "0 9 * * mon-fri" for 8h in Europe/Berlin) allows 0',
    });
    assert.equal(
      allowedDisruptions([{ nodes: "20%" }, businessHours], "Drifted", 19, at("2026-11-25T08:30:00Z")).allowed,
      4,
    );
  });

  void it("fails scheduled budgets closed in an unknown zone and names the zone", () => {
    const result = allowedDisruptions(
      [{ nodes: "20%" }, businessHours],
      "Drifted",
      19,
      at("2026-11-25T20:00:00Z"),
      "Europe/Berlim",
    );
    assert.equal(result.allowed, 0);
    assert.equal(result.limitingBudget, 1);
    assert.match(result.explanation, /reading time zone "Europe\/Berlim".*fails closed/);
  });

  void it("exposes the default budgets", () => assert.deepEqual(DEFAULT_BUDGETS, [{ nodes: "10%" }]));
});

void describe("budget errors for logs", () => {
  void it("lists every budget that cannot be evaluated, whatever its reasons", () => {
    const budgets: BudgetSpec[] = [
      { nodes: "5" },
      { nodes: "1", schedule: "@dailyX", duration: "1h", reasons: ["Drifted"] },
      { nodes: "x" },
    ];
    assert.deepEqual(
      budgetErrors(budgets, at("2026-11-25T10:00:00Z")).map((e) => e.index),
      [1, 2],
    );
  });
  void it("throws typed errors from isBudgetActive", () => {
    assert.throws(
      () => isBudgetActive({ schedule: "0 0 L * *", duration: "1h" }, at("2026-11-25T10:00:00Z")),
      ScheduleError,
    );
    assert.throws(
      () => isBudgetActive({ schedule: "@daily", duration: "1d" }, at("2026-11-25T10:00:00Z")),
      DurationError,
    );
  });
});

void describe("budget windows for previews", () => {
  const cases: [
    string,
    BudgetSpec,
    string,
    string | undefined,
    { active: boolean; opensAt?: string; closesAt?: string } | undefined,
  ][] = [
    ["an always-active budget has no window", { nodes: "1" }, "2026-03-10T23:00:00Z", undefined, undefined],
    [
      "an open window closes at its end",
      { schedule: "0 22 * * *", duration: "4h" },
      "2026-03-10T23:00:00Z",
      undefined,
      { active: true, opensAt: "2026-03-11T22:00:00.000Z", closesAt: "2026-03-11T02:00:00.000Z" },
    ],
    [
      "a closed window says when it opens",
      { schedule: "0 22 * * *", duration: "4h" },
      "2026-03-10T12:00:00Z",
      undefined,
      { active: false, opensAt: "2026-03-10T22:00:00.000Z" },
    ],
    [
      "abutting windows close together",
      { schedule: "0 9,10 * * *", duration: "1h" },
      "2026-03-10T09:30:00Z",
      undefined,
      { active: true, opensAt: "2026-03-10T10:00:00.000Z", closesAt: "2026-03-10T11:00:00.000Z" },
    ],
    [
      "windows that always overlap never close",
      { schedule: "@hourly", duration: "2h" },
      "2026-03-10T09:30:00Z",
      undefined,
      { active: true, opensAt: "2026-03-10T10:00:00.000Z" },
    ],
    // 22:00 CEST + 8h of real time is 05:00 CET the night clocks go back.
    [
      "a window spanning the autumn change closes by real time",
      { schedule: "0 22 * * *", duration: "8h" },
      "2026-10-25T00:00:00Z",
      "Europe/Berlin",
      { active: true, opensAt: "2026-10-25T21:00:00.000Z", closesAt: "2026-10-25T04:00:00.000Z" },
    ],
  ];
  for (const [title, budget, instant, zone, expected] of cases) {
    void it(title, () => {
      const window = budgetWindow(budget, at(instant), zone);
      const plain =
        window === undefined
          ? undefined
          : Object.fromEntries(Object.entries(window).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v]));
      assert.deepEqual(plain, expected);
    });
  }
});

void describe("schedule periods in a time zone", () => {
  const cases: [string, string, number, number][] = [
    ["0 2 * * *", "UTC", 24 * HOUR, 24 * HOUR],
    ["0 2 * * *", "Asia/Kolkata", 24 * HOUR, 24 * HOUR],
    // Once a year 02:00 does not exist (47h between hits), once it happens twice (1h apart).
    ["0 2 * * *", "Europe/Berlin", HOUR, 47 * HOUR],
    ["0 9 * * *", "Europe/Berlin", 23 * HOUR, 25 * HOUR],
    ["30 2 * * sun", "Europe/Berlin", HOUR, 335 * HOUR],
    ["*/15 * * * *", "Europe/Berlin", HOUR / 4, HOUR / 4],
    ["0 9 * * mon-fri", "America/New_York", 24 * HOUR, 73 * HOUR],
    // Lord Howe Island moves its clocks by 30 minutes: 02:15 is skipped in October (47.5h), 24.5h apart in April.
    ["15 2 * * *", "Australia/Lord_Howe", 24 * HOUR, 47.5 * HOUR],
  ];
  for (const [schedule, zone, min, max] of cases) {
    void it(`"${schedule}" in ${zone} repeats every ${min / HOUR}h..${max / HOUR}h`, () => {
      const { minPeriodMs, maxPeriodMs } = schedulePeriods(schedule, zone);
      assert.deepEqual([minPeriodMs, maxPeriodMs], [min, max]);
    });
  }
});

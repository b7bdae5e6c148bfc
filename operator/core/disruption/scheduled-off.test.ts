// The disruption pass under kerf.dev/off-schedule: the nodes of a pool off now go under KerfScheduledOff, within
// the budgets that apply to every reason, deleted without replacements.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { machine, NOW, pool, view, input, type Machine } from "./fixtures.ts";
import { nextTimeChange } from "./pass-gate.ts";
import { planDisruption } from "./plan.ts";
import { revalidate } from "./validation.ts";

/** Off from 08:00 to 18:00 UTC: NOW (12:00 UTC) is inside. */
const DAYTIME = JSON.stringify([{ schedule: "0 8 * * *", duration: "10h" }]);
/** Off from 20:00 to 06:00 UTC: NOW is outside. */
const NIGHTLY = JSON.stringify([{ schedule: "0 20 * * *", duration: "10h" }]);
const offPool = (budgets?: Record<string, unknown>[], schedule = DAYTIME): ReturnType<typeof pool> =>
  pool("dev", { annotations: { "kerf.dev/off-schedule": schedule }, ...(budgets === undefined ? {} : { budgets }) });

/** Three nodes of the pool: one empty, two with pods; none consolidatable, so only scheduled-off may take them. */
function devMachines(p: ReturnType<typeof pool>, podAnnotations?: Record<string, string>): Machine[] {
  return [
    machine("dev-empty", { pool: p, consolidatable: false }),
    machine("dev-busy-1", { pool: p, consolidatable: false, pods: 2 }),
    machine("dev-busy-2", {
      pool: p,
      consolidatable: false,
      pods: 1,
      ...(podAnnotations === undefined ? {} : { podAnnotations }),
    }),
  ];
}

void describe("the scheduled-off method (kerf.dev/off-schedule)", () => {
  // [title, pool, pod annotations on dev-busy-2, the command's candidates (undefined: no scheduled-off command)]
  const cases: [string, ReturnType<typeof pool>, Record<string, string> | undefined, string[] | undefined][] = [
    [
      "removes one node at a time under the default 10% budget, the empty one first",
      offPool(),
      undefined,
      ["dev-empty"],
    ],
    [
      "removes every node at once under a 100% budget, fewest pods first",
      offPool([{ nodes: "100%" }]),
      undefined,
      ["dev-empty", "dev-busy-2", "dev-busy-1"],
    ],
    [
      "is limited by a budget without reasons, which applies to every reason",
      offPool([{ nodes: "2" }, { nodes: "0", reasons: ["Empty"] }]),
      undefined,
      ["dev-empty", "dev-busy-2"],
    ],
    [
      "is not limited by budgets that list Karpenter's reasons only",
      offPool([{ nodes: "0", reasons: ["Empty", "Drifted", "Underutilized"] }]),
      undefined,
      ["dev-empty", "dev-busy-2", "dev-busy-1"],
    ],
    ["waits while a budget without reasons allows nothing", offPool([{ nodes: "0" }]), undefined, undefined],
    [
      "leaves a node whose pod says do-not-disrupt",
      offPool([{ nodes: "100%" }]),
      { "karpenter.sh/do-not-disrupt": "true" },
      ["dev-empty", "dev-busy-1"],
    ],
    ["does nothing while the pool's window is closed", offPool([{ nodes: "100%" }], NIGHTLY), undefined, undefined],
  ];
  for (const [title, p, podAnnotations, want] of cases) {
    void it(title, () => {
      const prod = pool("prod", { budgets: [{ nodes: "100%" }] });
      const machines = [
        ...devMachines(p, podAnnotations),
        machine("prod-1", { pool: prod, consolidatable: false, pods: 1 }),
      ];
      const plan = planDisruption(input(view(machines, [p, prod])));
      if (want === undefined) {
        assert.notEqual(plan.command?.method, "scheduled-off");
        return;
      }
      assert.equal(plan.command?.method, "scheduled-off");
      assert.equal(plan.command.reason, "KerfScheduledOff");
      assert.equal(plan.command.decision, "delete");
      assert.deepEqual(plan.command.replacements, []);
      assert.deepEqual(
        plan.command.candidates.map((c) => c.name),
        want,
      );
    });
  }

  void it("reports a KerfScheduledOff budget and eligible nodes for the off pool only", () => {
    const p = offPool();
    const prod = pool("prod");
    const plan = planDisruption(
      input(view([...devMachines(p), machine("prod-1", { pool: prod, pods: 1 })], [p, prod])),
    );
    const rows = plan.budgets.filter((b) => b.reason === "KerfScheduledOff");
    assert.deepEqual(
      rows.map((b) => [b.nodePool, b.nodes, b.allowed]),
      [["dev", 3, 1]],
    );
    assert.equal(plan.eligible.KerfScheduledOff, 3);
  });

  void it("fails re-validation once the window has closed", () => {
    const p = offPool([{ nodes: "100%" }]);
    const cluster = view(devMachines(p), [p]);
    const plan = planDisruption(input(cluster));
    assert.ok(plan.command !== undefined);
    const later = revalidate(input(cluster, { now: new Date("2026-11-25T18:00:00Z") }), plan.command);
    assert.equal(later.ok, false);
    assert.ok(!later.ok && later.reason.includes("no longer off"), JSON.stringify(later));
    assert.equal(revalidate(input(cluster), plan.command).ok, true);
  });

  void it("wakes a skipped pass when a window opens or closes", () => {
    assert.equal(nextTimeChange(view([], [offPool()]), NOW.getTime()), Date.parse("2026-11-25T18:00:00Z"));
    assert.equal(
      nextTimeChange(view([], [offPool(undefined, NIGHTLY)]), NOW.getTime()),
      Date.parse("2026-11-25T20:00:00Z"),
    );
  });
});

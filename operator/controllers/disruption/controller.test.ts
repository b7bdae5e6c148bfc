import { describe, it } from "node:test";
import assert from "node:assert/strict";
import pino from "pino";
import type { BlockerKind } from "../../core/disruption/types.ts";
import { createMetrics } from "../../observability/metrics.ts";
import type { Cluster } from "../../ports/cluster.ts";
import { DEFAULT_DISRUPTION_SETTINGS, DisruptionController, publishesNodeEvents } from "./controller.ts";
import { Nominations } from "./nominations.ts";
import type { Planner } from "./planner.ts";

void describe("which held-back nodes get Events of their own", () => {
  // Karpenter publishes a budget block once, on the NodePool (helpers.go BuildDisruptionBudgetMapping).
  const cases: { kind: BlockerKind; want: boolean }[] = [
    { kind: "budget", want: false },
    { kind: "not-initialized", want: false },
    { kind: "pdb", want: true },
    { kind: "do-not-disrupt", want: true },
    { kind: "unconsolidatable", want: true },
  ];
  for (const c of cases) {
    void it(`${c.want ? "publishes" : "does not publish"} per-node Events for a ${c.kind} blocker`, () => {
      assert.equal(
        publishesNodeEvents({ nodeClaim: { metadata: { name: "a" } }, blocker: { kind: c.kind, message: "m" } }),
        c.want,
      );
    });
  }
});

void describe("the disruption controller before its caches have synced", () => {
  void it("should warm its planner and plan nothing until the caches are synced", async () => {
    const calls: string[] = [];
    const planner: Planner = {
      warm: () => {
        calls.push("warm");
      },
      sync: () => {
        calls.push("sync");
        return Promise.resolve("");
      },
      plan: () => Promise.reject(new Error("planned before the caches synced")),
      revalidate: () => Promise.reject(new Error("re-validated before the caches synced")),
      close: () => Promise.resolve(),
    };
    const clock = { now: () => new Date("2026-11-27T00:00:00Z") };
    const controller = new DisruptionController({
      cluster: { synced: false } as unknown as Cluster,
      clock,
      logger: pino({ level: "silent" }),
      metrics: createMetrics(),
      events: { publish: () => undefined } as never,
      cloud: {} as never,
      timeouts: {} as never,
      nominations: new Nominations(10_000, clock),
      settings: DEFAULT_DISRUPTION_SETTINGS,
      planner,
    });
    assert.deepEqual(await controller.reconcile(new AbortController().signal), { requeueAfter: 1000 });
    assert.deepEqual(calls, ["warm"]);
  });
});

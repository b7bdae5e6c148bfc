import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { NodeClaim } from "../lifecycle/objects.ts";
import {
  consolidatableDecision,
  consolidateAfterOf,
  justConsolidatable,
  shouldRecordPodEvent,
} from "./consolidatable.ts";

const T0 = Date.parse("2026-11-25T12:00:00Z");
const iso = (ms: number): string => new Date(ms).toISOString();

function claim(o: { initializedAt?: number; lastPodEvent?: number; consolidatable?: boolean } = {}): NodeClaim {
  return {
    status: {
      ...(o.lastPodEvent === undefined ? {} : { lastPodEventTime: iso(o.lastPodEvent) }),
      conditions: [
        ...(o.initializedAt === undefined
          ? []
          : [{ type: "Initialized", status: "True", lastTransitionTime: iso(o.initializedAt) }]),
        ...(o.consolidatable === true ? [{ type: "Consolidatable", status: "True" }] : []),
      ],
    },
  };
}

void describe("the Consolidatable condition", () => {
  const cases = [
    { name: "not initialized: nothing", c: claim(), after: 0, want: "none" },
    {
      name: "consolidateAfter passed since initialization",
      c: claim({ initializedAt: T0 - 60_000 }),
      after: 30_000,
      want: "set",
    },
    {
      name: "a recent pod event restarts the clock",
      c: claim({ initializedAt: T0 - 60_000, lastPodEvent: T0 - 10_000 }),
      after: 30_000,
      want: "none",
      requeue: 20_000,
    },
    {
      name: "a recent pod event clears a True condition",
      c: claim({ initializedAt: T0 - 60_000, lastPodEvent: T0 - 10_000, consolidatable: true }),
      after: 30_000,
      want: "clear",
      requeue: 20_000,
    },
    {
      name: "Never clears it",
      c: claim({ initializedAt: T0 - 60_000, consolidatable: true }),
      after: "Never" as const,
      want: "clear",
    },
    {
      name: "already True: nothing to write",
      c: claim({ initializedAt: T0 - 60_000, consolidatable: true }),
      after: 0,
      want: "none",
    },
  ];
  for (const c of cases) {
    void it(`${c.name}`, () => {
      const d = consolidatableDecision(c.c, c.after, T0);
      assert.equal(d.action, c.want);
      if (c.requeue !== undefined) assert.equal("requeueAfterMs" in d ? d.requeueAfterMs : undefined, c.requeue);
    });
  }

  void it("reads consolidateAfter from the NodePool, 0s when absent", () => {
    assert.equal(consolidateAfterOf({ spec: { disruption: { consolidateAfter: "1m" } } }), 60_000);
    assert.equal(consolidateAfterOf({ spec: { disruption: { consolidateAfter: "Never" } } }), "Never");
    assert.equal(consolidateAfterOf({ spec: {} }), 0);
  });

  void it("deduplicates pod events within 10 seconds", () => {
    assert.equal(shouldRecordPodEvent(claim(), T0), true);
    assert.equal(shouldRecordPodEvent(claim({ lastPodEvent: T0 - 5_000 }), T0), false);
    assert.equal(shouldRecordPodEvent(claim({ lastPodEvent: T0 - 10_000 }), T0), true);
  });
});

void describe("a fresh Consolidatable transition (triggers a disruption pass)", () => {
  void it("is news for 5 s after the transition, and only when True", () => {
    const at = (status: string, ms: number | undefined): NodeClaim => ({
      status: {
        conditions: [{ type: "Consolidatable", status, ...(ms === undefined ? {} : { lastTransitionTime: iso(ms) }) }],
      },
    });
    const cases: [string, NodeClaim, boolean][] = [
      ["just turned True", at("True", T0 - 1_000), true],
      ["True 5 s ago", at("True", T0 - 5_000), true],
      ["True for a minute", at("True", T0 - 60_000), false],
      ["no transition time", at("True", undefined), false],
      ["False", at("False", T0 - 1_000), false],
      ["no condition", claim({ initializedAt: T0 - 1_000 }), false],
    ];
    for (const [why, c, want] of cases) assert.equal(justConsolidatable(c, T0), want, why);
  });
});

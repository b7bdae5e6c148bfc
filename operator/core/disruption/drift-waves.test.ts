import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { NodeClaim, Node, Pod } from "../lifecycle/objects.ts";
import { driftWaves } from "./drift-waves.ts";
import { machine, NOW, pool, type Machine } from "./fixtures.ts";
import { formatIntent } from "./intent.ts";
import { poolBudgets } from "./pool-budgets.ts";
import { rolloutCondition } from "./rollout.ts";

const WAVES = pool("default", { annotations: { "kerf.dev/drift-rollout": "waves" }, budgets: [{ nodes: "100%" }] });
const DRIFTED_AT = "2026-11-25T10:00:00Z";
const AFTER = "2026-11-25T11:00:00Z";

function old(name: string, o: { deleting?: boolean } = {}): Machine {
  const m = machine(name, { pool: WAVES, drifted: "NodePoolDrifted", createdAt: "2026-11-01T00:00:00Z", pods: 1 });
  const claim: NodeClaim = {
    ...m.claim,
    metadata: { ...m.claim.metadata, ...(o.deleting === true ? { deletionTimestamp: AFTER } : {}) },
    status: {
      ...m.claim.status,
      conditions: (m.claim.status?.conditions ?? []).map((c) =>
        c.type === "Drifted" ? { ...c, lastTransitionTime: DRIFTED_AT } : c,
      ),
    },
  };
  return { ...m, claim };
}

/** A NodeClaim created after the rollout began; `replaces` pairs it with its candidate (the command annotation). */
function fresh(name: string, o: { initialized?: boolean; podPhase?: string; replaces?: string } = {}): Machine {
  const m = machine(name, {
    pool: WAVES,
    createdAt: AFTER,
    pods: 1,
    ...(o.initialized === false ? { initialized: false } : {}),
  });
  const intent =
    o.replaces === undefined
      ? {}
      : {
          "kerf.dev/disruption-command": formatIntent({
            id: `cmd-${o.replaces}`,
            role: "replacement",
            method: "drift",
            reason: "Drifted",
            decision: "replace",
            candidates: [o.replaces],
            replacements: 1,
          }),
        };
  const pods: Pod[] = m.pods.map((p) => ({ ...p, status: { phase: o.podPhase ?? "Running" } }));
  return {
    ...m,
    claim: {
      ...m.claim,
      metadata: { ...m.claim.metadata, annotations: { ...m.claim.metadata?.annotations, ...intent } },
    },
    pods,
  };
}

function state(machines: readonly Machine[], o: { annotated?: boolean } = {}): ReturnType<typeof driftWaves> {
  return driftWaves({
    pool: o.annotated === false ? pool("default") : WAVES,
    claims: machines.map((m) => m.claim),
    nodes: machines.map((m) => m.node),
    pods: machines.flatMap((m) => m.pods),
  });
}

function driftedAllowed(machines: readonly Machine[]): { allowed: number; explanation: string } {
  const budget = poolBudgets({
    now: NOW,
    nodePools: [WAVES],
    nodeClaims: machines.map((m) => m.claim),
    nodes: machines.map((m): Node => m.node),
    pods: machines.flatMap((m) => m.pods),
    inFlight: new Set(),
  }).find((b) => b.reason === "Drifted");
  return { allowed: budget?.allowed ?? -1, explanation: budget?.explanation ?? "" };
}

void describe("a NodePool's drift rollout in waves (kerf.dev/drift-rollout: waves)", () => {
  const four = ["a", "b", "c", "d"];
  const cases: [string, () => Machine[], { wave: number; startable: number; done: number; inProgress: number }][] = [
    ["starts with a wave of one", () => four.map((n) => old(n)), { wave: 1, startable: 1, done: 0, inProgress: 0 }],
    [
      "waits while the first node's replacement launches (the pair counts once)",
      () => [
        old("a", { deleting: true }),
        old("b"),
        old("c"),
        old("d"),
        fresh("n1", { initialized: false, replaces: "a" }),
      ],
      { wave: 1, startable: 0, done: 0, inProgress: 1 },
    ],
    [
      "waits while the replacement is Initialized but its pods are not Running yet",
      () => [old("b"), old("c"), old("d"), fresh("n1", { podPhase: "Pending" })],
      { wave: 1, startable: 0, done: 0, inProgress: 1 },
    ],
    [
      "opens a wave of two once the first replacement settled",
      () => [old("b"), old("c"), old("d"), fresh("n1")],
      { wave: 2, startable: 2, done: 1, inProgress: 0 },
    ],
    [
      "lets the second node of wave two start beside the first",
      () => [
        old("b", { deleting: true }),
        old("c"),
        old("d"),
        fresh("n1"),
        fresh("n2", { initialized: false, replaces: "b" }),
      ],
      { wave: 2, startable: 1, done: 1, inProgress: 1 },
    ],
    [
      "opens the last wave once three settled",
      () => [old("d"), fresh("n1"), fresh("n2"), fresh("n3")],
      { wave: 3, startable: 4, done: 3, inProgress: 0 },
    ],
  ];
  for (const [title, build, want] of cases) {
    void it(title, () => {
      const got = state(build());
      assert.ok(got !== undefined);
      assert.deepEqual({ wave: got.wave, startable: got.startable, done: got.done, inProgress: got.inProgress }, want);
    });
  }

  void it("does nothing for a pool without the annotation or without drifted NodeClaims", () => {
    assert.equal(
      state(
        four.map((n) => old(n)),
        { annotated: false },
      ),
      undefined,
    );
    assert.equal(state([fresh("n1")]), undefined);
  });

  void it("caps the Drifted budget at what the wave may start, and says why", () => {
    assert.deepEqual(driftedAllowed(four.map((n) => old(n))).allowed, 1);
    const waiting = driftedAllowed([
      old("a", { deleting: true }),
      old("b"),
      old("c"),
      old("d"),
      fresh("n1", { initialized: false, replaces: "a" }),
    ]);
    assert.equal(waiting.allowed, 0);
    assert.match(
      waiting.explanation,
      /kerf\.dev\/drift-rollout: wave 1 of 1 node, 0 settled, 1 being replaced; the next starts/,
    );
  });

  void it("keeps a budget that allows fewer than the wave", () => {
    const tight = pool("default", { annotations: { "kerf.dev/drift-rollout": "waves" }, budgets: [{ nodes: "1" }] });
    const machines = [old("b"), old("c"), old("d"), fresh("n1")];
    const budget = poolBudgets({
      now: NOW,
      nodePools: [tight],
      nodeClaims: machines.map((m) => m.claim),
      nodes: machines.map((m) => m.node),
      pods: machines.flatMap((m) => m.pods),
      inFlight: new Set(),
    }).find((b) => b.reason === "Drifted");
    assert.equal(budget?.allowed, 1, "wave two allows two, the budget one");
  });

  void it("shows the wave in the NodePool's Drifted condition, in progress rather than blocked while a wave settles", () => {
    const machines = [
      old("a", { deleting: true }),
      old("b"),
      old("c"),
      old("d"),
      fresh("n1", { initialized: false, replaces: "a" }),
    ];
    const condition = rolloutCondition(
      WAVES,
      {
        claims: machines.map((m) => m.claim),
        nodes: machines.map((m) => m.node),
        pods: machines.flatMap((m) => m.pods),
      },
      NOW,
    );
    assert.equal(condition.reason, "RolloutInProgress");
    assert.match(
      condition.message ?? "",
      /4 of 5 NodeClaims drifted \(1 being replaced\); budget allows 0 now; kerf\.dev\/drift-rollout: wave 1/,
    );
  });
});

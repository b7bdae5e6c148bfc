import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { NodePoolObject } from "../provisioning/cluster-view.ts";
import { input, machine, pool, view, NOW, type Machine, type PoolOptions } from "./fixtures.ts";
import { COMMAND_ANNOTATION } from "./intent.ts";
import { planDisruption } from "./plan.ts";

/** A static NodePool: the fixtures' pool with spec.replicas (and limits). */
function fixed(replicas: number, o: PoolOptions & { limits?: Record<string, string> } = {}): NodePoolObject {
  const p = pool("fixed", { budgets: [{ nodes: "100%" }], ...o });
  return { ...p, spec: { ...p.spec, replicas, ...(o.limits === undefined ? {} : { limits: o.limits }) } };
}

const drifted = (name: string, p: NodePoolObject, o: { pods?: number } = {}): Machine =>
  machine(name, { pool: p, drifted: "NodePoolDrifted", ...o });

function candidateOfCommand(m: Machine): Machine {
  const intent = {
    id: "x",
    role: "candidate",
    method: "static-drift",
    reason: "Drifted",
    decision: "replace",
    candidates: [m.claim.metadata?.name],
    replacements: 1,
  };
  const annotations = { ...m.claim.metadata?.annotations, [COMMAND_ANNOTATION]: JSON.stringify(intent) };
  const claim = { ...m.claim, metadata: { ...m.claim.metadata, annotations } };
  return { ...m, claim };
}

const deleting = (m: Machine): Machine => ({
  ...m,
  claim: { ...m.claim, metadata: { ...m.claim.metadata, deletionTimestamp: NOW.toISOString() } },
});

void describe("StaticDrift: drifted nodes of static NodePools", () => {
  void it("should replace a drifted static node by one NodeClaim from the pool's template, keeping the count", () => {
    const p = fixed(2);
    const plan = planDisruption(input(view([drifted("a", p, { pods: 1 }), machine("b", { pool: p })], [p])));
    assert.equal(plan.command?.method, "static-drift");
    assert.equal(plan.command?.reason, "Drifted");
    assert.equal(plan.command?.decision, "replace");
    assert.deepEqual(
      plan.command?.candidates.map((c) => c.name),
      ["a"],
    );
    const replacement = plan.command?.replacements[0];
    assert.equal(plan.command?.replacements.length, 1);
    assert.equal(replacement?.nodePool, "fixed");
    assert.deepEqual([replacement?.pods, replacement?.requests], [[], {}]);
    assert.ok(
      !replacement?.requirements.some((r) => r.key === "node.kubernetes.io/instance-type"),
      "no instance-type list: the launch picks the cheapest",
    );
    assert.equal(plan.eligible.Drifted, 1);
  });

  interface Wait {
    name: string;
    machines: (p: NodePoolObject) => Machine[];
    pool: NodePoolObject;
    blocked?: string;
    inFlight?: string[];
  }
  const waits: Wait[] = [
    {
      name: "should wait while the pool has more NodeClaims than replicas: scale-down goes first",
      pool: fixed(1),
      machines: (p) => [drifted("a", p), machine("b", { pool: p })],
    },
    {
      name: "should not stage a replacement when limits.nodes leaves no room, and say so",
      pool: fixed(2, { limits: { nodes: "2" } }),
      machines: (p) => [drifted("a", p), machine("b", { pool: p })],
      blocked: "static NodePool is at its node limit and cannot stage a replacement",
    },
    {
      name: "should count a deleting NodeClaim against limits.nodes",
      pool: fixed(2, { limits: { nodes: "3" } }),
      machines: (p) => [drifted("a", p), machine("b", { pool: p }), deleting(machine("c", { pool: p }))],
      blocked: "static NodePool is at its node limit and cannot stage a replacement",
    },
    {
      name: "should respect a Drifted budget of 0",
      pool: fixed(2, { budgets: [{ nodes: "0", reasons: ["Drifted"] }] }),
      machines: (p) => [drifted("a", p), machine("b", { pool: p })],
      blocked: "the NodePool's disruption budget for Drifted allows no more disruptions now",
    },
    {
      name: "should leave a node alone while another is being replaced and the budget allows one",
      pool: fixed(2, { budgets: [{ nodes: "1" }] }),
      inFlight: ["b"],
      machines: (p) => [drifted("a", p), candidateOfCommand(drifted("b", p))],
      blocked: "the NodePool's disruption budget for Drifted allows no more disruptions now",
    },
  ];
  for (const c of waits) {
    void it(c.name, () => {
      const plan = planDisruption(input(view(c.machines(c.pool), [c.pool]), { inFlight: new Set(c.inFlight ?? []) }));
      assert.equal(plan.command, undefined);
      if (c.blocked === undefined) return;
      const said = plan.blocked.some((b) => b.nodeClaim.metadata?.name === "a" && b.blocker.message === c.blocked);
      assert.ok(said, JSON.stringify(plan.blocked.map((b) => b.blocker)));
    });
  }

  void it("should leave static nodes out of emptiness and consolidation", () => {
    const p = fixed(2);
    const plan = planDisruption(input(view([machine("a", { pool: p }), machine("b", { pool: p, pods: 1 })], [p])));
    assert.equal(plan.command, undefined);
    assert.deepEqual(plan.eligible, { Empty: 0, Drifted: 0, Underutilized: 0, KerfScheduledOff: 0 });
  });

  void it("should still replace drifted nodes of a dynamic pool with the drift method", () => {
    const dynamic = pool("default", { budgets: [{ nodes: "100%" }], policy: "WhenEmpty" });
    const p = fixed(1);
    const machines = [drifted("d", dynamic, { pods: 1 }), machine("s", { pool: p })];
    const plan = planDisruption(input(view(machines, [dynamic, p])));
    assert.equal(plan.command?.method, "drift");
    assert.deepEqual(
      plan.command?.candidates.map((c) => c.name),
      ["d"],
    );
  });
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { NodeClaim } from "../lifecycle/objects.ts";
import { machine, pool, NOW, type Machine } from "./fixtures.ts";
import { poolBudgets } from "./pool-budgets.ts";

/** The machine's NodeClaim deleting, with InstanceTerminating when `terminating`. */
function deleting(m: Machine, terminating: boolean): Machine {
  const extra = terminating ? [{ type: "InstanceTerminating", status: "True" }] : [];
  const conditions = [...(m.claim.status?.conditions ?? []), ...extra];
  const claim: NodeClaim = {
    ...m.claim,
    metadata: { ...m.claim.metadata, deletionTimestamp: NOW.toISOString() },
    status: { ...m.claim.status, conditions },
  };
  return { ...m, claim };
}

void describe("a NodePool's disruption budget", () => {
  // Karpenter's NodePoolStats (helpers.go): a NodeClaim whose instance is terminating is skipped entirely.
  const p = pool("default", { budgets: [{ nodes: "1" }] });
  const cases = [
    {
      why: "a deleting NodeClaim whose instance is terminating counts neither as a node nor as disrupting",
      terminating: true,
      nodes: 2,
      busy: 0,
      allowed: 1,
    },
    {
      why: "a deleting NodeClaim still draining counts as a node and as disrupting",
      terminating: false,
      nodes: 3,
      busy: 1,
      allowed: 0,
    },
  ];
  for (const c of cases) {
    void it(c.why, () => {
      const gone = deleting(machine("gone", { pool: p }), c.terminating);
      const machines = [gone, machine("a", { pool: p }), machine("b", { pool: p })];
      const nodeClaims = machines.map((m) => m.claim);
      const nodes = machines.map((m) => m.node);
      const budgets = poolBudgets({ now: NOW, nodePools: [p], nodeClaims, nodes, inFlight: new Set() });
      const empty = budgets.find((b) => b.reason === "Empty");
      const got = { nodes: empty?.nodes, disrupting: empty?.disrupting, allowed: empty?.allowed };
      assert.deepEqual(got, { nodes: c.nodes, disrupting: c.busy, allowed: c.allowed });
    });
  }
});

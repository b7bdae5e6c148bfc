import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { machine, pool, NOW } from "./fixtures.ts";
import { rolloutCondition } from "./rollout.ts";

void describe("the NodePool rollout condition", () => {
  void it("says how far a drift rollout is and what the budget allows", () => {
    const p = pool("default", { budgets: [{ nodes: "50%" }] });
    const ms = [
      machine("a", { pool: p, drifted: "NodePoolDrifted" }),
      machine("b", { pool: p, drifted: "NodePoolDrifted" }),
      machine("c", { pool: p }),
      machine("d", { pool: p }),
    ];
    const c = rolloutCondition(p, { claims: ms.map((m) => m.claim), nodes: ms.map((m) => m.node) }, NOW);
    assert.equal(c.status, "True");
    assert.equal(c.reason, "RolloutInProgress");
    assert.equal(c.message, "2 of 4 NodeClaims drifted (0 being replaced); budget allows 2 now");
  });

  void it("counts a drifted NodeClaim being deleted as being replaced", () => {
    const p = pool("default");
    const a = machine("a", { pool: p, drifted: "AMIDrift" });
    const deleting = { ...a.claim, metadata: { ...a.claim.metadata, deletionTimestamp: NOW.toISOString() } };
    const c = rolloutCondition(p, { claims: [deleting, machine("b", { pool: p }).claim], nodes: [a.node] }, NOW);
    assert.match(c.message ?? "", /^1 of 2 NodeClaims drifted \(1 being replaced\)/);
  });

  void it("is RolloutBlocked while the Drifted budget allows nothing, and False when nothing is drifted", () => {
    const p = pool("default", { budgets: [{ nodes: "0", reasons: ["Drifted"] }] });
    const m = machine("a", { pool: p, drifted: "NodeClassDrift" });
    assert.equal(rolloutCondition(p, { claims: [m.claim], nodes: [m.node] }, NOW).reason, "RolloutBlocked");
    const clean = machine("b", { pool: p });
    assert.deepEqual(rolloutCondition(p, { claims: [clean.claim], nodes: [clean.node] }, NOW), {
      type: "Drifted",
      status: "False",
      reason: "NotDrifted",
      message: "all 1 NodeClaims match the NodePool and its EC2NodeClass",
    });
  });
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { planDisruption } from "../../../operator/core/disruption/plan.ts";
import { disruptionInput, NOTHING_TO_DO, REALISTIC } from "../../perf/disruption/cluster.ts";

// The disruption benchmark's cluster at a tenth of its size: the pass must find what each mix is
// built to contain (correctness only; the timing is the benchmark's business).
void describe("the disruption benchmark's cluster, at 100 nodes", () => {
  void it("has the pods asked for and yields emptiness, then drift, then consolidation as nodes are taken out of the mix", () => {
    const input = disruptionInput(100, 1000, REALISTIC);
    assert.equal(input.cluster.nodes.length, 100);
    assert.equal(input.cluster.pods.length, 1000);
    const cases = [
      { mix: REALISTIC, method: "emptiness" },
      { mix: { ...REALISTIC, empty: 0 }, method: "drift" },
      { mix: { ...REALISTIC, empty: 0, drifted: 0 }, method: "multi-node-consolidation" },
    ];
    for (const c of cases) assert.equal(planDisruption(disruptionInput(100, 1000, c.mix)).command?.method, c.method);
  });

  void it("finds nothing to do on full nodes and says why for each candidate it evaluated", () => {
    const plan = planDisruption({ ...disruptionInput(100, 1000, NOTHING_TO_DO), maxSingleNodeEvaluations: 20 });
    assert.equal(plan.command, undefined);
    assert.equal(plan.unconsolidatable.filter((u) => u.blocker.kind === "unconsolidatable").length, 20);
    assert.ok(plan.resumeAfter !== undefined, "the bound stopped single-node consolidation: the next pass resumes");
    assert.ok(
      plan.unconsolidatable.some((u) => u.blocker.kind === "pdb") &&
        plan.unconsolidatable.some((u) => u.blocker.kind === "do-not-disrupt"),
    );
    assert.ok(
      plan.blocked.some(
        (b) => b.blocker.kind === "budget" && b.nodeClaim.metadata?.labels?.["karpenter.sh/nodepool"] === "critical",
      ),
    );
  });
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { input, machine, pool, view } from "./fixtures.ts";
import { planDisruption } from "./plan.ts";

/** Drifted full nodes whose pods fit nowhere: the pool's CPU limit is reached, so no replacement can launch. */
function blockedRollout(nodes: number): ReturnType<typeof input> {
  const base = pool("default");
  const limited = { ...base, spec: { ...base.spec, limits: { cpu: "1" } } };
  const o = { pool: limited, type: "m5.large", pods: 6, memory: "1Gi", drifted: "NodePoolDrifted" };
  const machines = Array.from({ length: nodes }, (_, i) => machine(`n${i}`, { ...o, consolidatable: false }));
  return input(view(machines, [limited]));
}

/** The NodeClaims the pass simulated and found no place for, in order. */
const evaluated = (plan: ReturnType<typeof planDisruption>): (string | undefined)[] =>
  plan.unconsolidatable.filter((s) => s.blocker.kind === "unschedulable").map((s) => s.nodeClaim.metadata?.name);

void describe("drift's evaluation bound and resume point", () => {
  void it("should simulate at most the bound per pass and say where it stopped", () => {
    const plan = planDisruption({ ...blockedRollout(5), maxSingleNodeEvaluations: 2 });
    assert.equal(plan.command, undefined);
    assert.equal(plan.driftResumeAfter, "n1");
    assert.deepEqual(evaluated(plan), ["n0", "n1"]);
  });

  void it("should resume after the last candidate evaluated, wrapping around", () => {
    const second = planDisruption({ ...blockedRollout(5), maxSingleNodeEvaluations: 2, driftResumeAfter: "n1" });
    assert.deepEqual(evaluated(second), ["n2", "n3"]);
    assert.equal(second.driftResumeAfter, "n3");
    const third = planDisruption({ ...blockedRollout(5), maxSingleNodeEvaluations: 2, driftResumeAfter: "n3" });
    assert.deepEqual(evaluated(third), ["n4", "n0"]);
  });

  void it("should evaluate every drifted candidate within the bound and stop nowhere", () => {
    const plan = planDisruption({ ...blockedRollout(3), maxSingleNodeEvaluations: 10 });
    assert.equal(plan.driftResumeAfter, undefined);
    assert.equal(evaluated(plan).length, 3);
  });
});

void describe("single-node consolidation's resume point", () => {
  void it("should name the last candidate evaluated, so the next pass starts with the first one not evaluated", () => {
    // Full nodes nothing can consolidate: every evaluation fails.
    const machines = ["a", "b", "c", "d"].map((n) => machine(n, { type: "m5.large", pods: 1, memory: "6Gi" }));
    const first = planDisruption({ ...input(view(machines)), maxSingleNodeEvaluations: 2 });
    const looked = (p: ReturnType<typeof planDisruption>): (string | undefined)[] =>
      p.unconsolidatable.filter((s) => s.blocker.kind === "unconsolidatable").map((s) => s.nodeClaim.metadata?.name);
    const second = planDisruption({
      ...input(view(machines)),
      maxSingleNodeEvaluations: 2,
      resumeAfter: first.resumeAfter,
    });
    assert.equal(first.command, undefined);
    assert.deepEqual(
      [...looked(first), ...looked(second)].sort(),
      ["a", "b", "c", "d"],
      "two passes of two cover all four",
    );
  });
});

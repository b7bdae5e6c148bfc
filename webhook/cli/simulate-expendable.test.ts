import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  DEFAULT_NODE_CLASS,
  deployment,
  documents,
  m5NodePool,
  simulatePlan,
  simulateRefused,
  writeTempFile,
} from "./simulate-fixtures.ts";

const scenario = documents(
  DEFAULT_NODE_CLASS,
  m5NodePool("default"),
  deployment("batch", 2, -10),
  deployment("web", 2, 100),
);

describe("kerf simulate --expendable-pods-priority-cutoff", () => {
  const scenarioFile = writeTempFile(scenario);

  it("launches only for pods at or above the cutoff and reports the others as unschedulable, as the operator would", async () => {
    const plan = await simulatePlan(["-f", scenarioFile, "--expendable-pods-priority-cutoff", "0", "--passes", "0"]);
    assert.deepEqual(
      plan.nodeClaims.flatMap((n) => n.pods).map((p) => p.split("/")[1]?.split("-")[0]),
      ["web", "web"],
    );
    assert.equal(plan.unschedulable.length, 2);
    assert.ok(
      plan.unschedulable.every(
        (u) => u.pod.includes("batch") && /below the expendable-pods priority cutoff 0/.test(u.reason),
      ),
      JSON.stringify(plan.unschedulable),
    );
    const plain = await simulatePlan(["-f", scenarioFile, "--passes", "0"]);
    assert.equal(plain.unschedulable.length, 0, "without the flag every pod may launch (Karpenter)");
  });

  it("refuses a cutoff that is not an integer, naming the flag, with exit 2", async () => {
    const err = await simulateRefused(["-f", scenarioFile, "--expendable-pods-priority-cutoff", "low"]);
    assert.match(err, /--expendable-pods-priority-cutoff: "low" is not a 32-bit integer pod priority/);
  });
});

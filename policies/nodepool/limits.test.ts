import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { evaluate } from "../evaluate.ts";
import { defaultPolicyConfig } from "../config.ts";
import { builtinCatalog } from "../domain/catalog/builtin.ts";

const context = { catalog: builtinCatalog(), config: defaultPolicyConfig() };

/** An arm64 compute NodePool: its smallest matching type is c6g.medium (1 vCPU, 2 GiB). */
function pool(cpu: unknown, memory: unknown = "1000Gi"): Record<string, unknown> {
  return {
    apiVersion: "karpenter.sh/v1",
    kind: "NodePool",
    metadata: { name: "arm" },
    spec: {
      limits: { cpu, memory },
      template: {
        spec: {
          nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
          requirements: [
            { key: "kubernetes.io/arch", operator: "In", values: ["arm64"] },
            { key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["c6g"] },
          ],
        },
      },
    },
  };
}

function belowSmallest(cpu: unknown, memory?: unknown): string[] {
  const verdict = evaluate({ kind: "NodePool", operation: "CREATE", object: pool(cpu, memory), context });
  return verdict.findings.filter((f) => f.policy === "limits-required").map((f) => `${f.path}: ${f.message}`);
}

// Reported: "limit cpu=500 is below the smallest matching instance type (c6g.medium: 1)". Limits are
// cores (500 = 500 cores) and capacity is kept in millicores: both sides must be compared in the same unit.
void describe("limits-required: limit below the smallest matching instance type", () => {
  for (const cpu of ["500", 500, "1", 1, "1000m", "2", "0.001k", "5e2"]) {
    void it(`does not warn for cpu ${JSON.stringify(cpu)} (at least one c6g.medium)`, () => {
      assert.deepEqual(belowSmallest(cpu), []);
    });
  }

  for (const cpu of ["500m", "0.5", "999m"]) {
    void it(`warns for cpu ${JSON.stringify(cpu)} (less than one vCPU)`, () => {
      assert.deepEqual(belowSmallest(cpu), [
        `spec.limits.cpu: limit cpu=${cpu} is below the smallest matching instance type (c6g.medium: 1): ` +
          `the NodePool cannot launch any node`,
      ]);
    });
  }

  void it("compares memory in bytes (1Gi is below a 2 GiB c6g.medium, 2Gi is not)", () => {
    assert.equal(belowSmallest("10", "1Gi").length, 1);
    assert.deepEqual(belowSmallest("10", "2Gi"), []);
  });
});

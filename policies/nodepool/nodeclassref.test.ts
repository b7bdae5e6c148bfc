import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { evaluate } from "../evaluate.ts";
import { defaultPolicyConfig } from "../config.ts";
import { builtinCatalog } from "../domain/catalog/builtin.ts";

function pool(className: string): Record<string, unknown> {
  return {
    apiVersion: "karpenter.sh/v1",
    kind: "NodePool",
    metadata: { name: "pool" },
    spec: {
      limits: { cpu: "100", memory: "400Gi" },
      template: {
        spec: { nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: className }, requirements: [] },
      },
    },
  };
}

function refFindings(
  className: string,
  checked: readonly string[] | undefined,
): Array<{ severity: string; message: string }> {
  const base = { catalog: builtinCatalog(), config: defaultPolicyConfig() };
  const context = checked === undefined ? base : { ...base, nodeClassNames: new Set(checked) };
  const verdict = evaluate({ kind: "NodePool", operation: "CREATE", object: pool(className), context });
  return verdict.findings
    .filter((f) => f.policy === "nodeclassref-resolves")
    .map((f) => ({ severity: f.severity, message: f.message }));
}

void describe("nodeclassref-resolves", () => {
  const cases: Array<[string, string, readonly string[] | undefined, string | undefined, RegExp | undefined]> = [
    [
      "reports nothing when the referenced EC2NodeClass is checked too",
      "default",
      ["default", "gpu"],
      undefined,
      undefined,
    ],
    ["is skipped without a render (the webhook)", "default", undefined, undefined, undefined],
    [
      "only notes a NodePool checked without any EC2NodeClass (one changed file)",
      "default",
      [],
      "notice",
      /EC2NodeClass "default" was not checked/,
    ],
    [
      "denies a likely typo and suggests the closest checked name",
      "defualt",
      ["default", "gpu"],
      "deny",
      /did you mean "default"\?/,
    ],
    [
      "denies a name far from every checked one and lists them",
      "windows",
      ["default", "gpu"],
      "deny",
      /the checked EC2NodeClasses are "default", "gpu"/,
    ],
  ];
  for (const [name, className, checked, severity, message] of cases) {
    void it(name, () => {
      const findings = refFindings(className, checked);
      if (severity === undefined) return assert.deepEqual(findings, []);
      assert.equal(findings.length, 1, JSON.stringify(findings));
      assert.equal(findings[0]?.severity, severity);
      assert.match(findings[0]?.message ?? "", message ?? /./);
    });
  }

  void it("a notice leaves the object allowed", () => {
    const context = { catalog: builtinCatalog(), config: defaultPolicyConfig(), nodeClassNames: new Set<string>() };
    assert.equal(evaluate({ kind: "NodePool", operation: "CREATE", object: pool("default"), context }).allowed, true);
  });
});

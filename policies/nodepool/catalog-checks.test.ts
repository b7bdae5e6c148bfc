import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { evaluate } from "../evaluate.ts";
import { defaultPolicyConfig } from "../config.ts";
import { builtinCatalog } from "../domain/catalog/builtin.ts";

const context = { catalog: builtinCatalog(), config: defaultPolicyConfig() };

type Requirement = { key: string; operator: string; values?: string[] };

function catalogFindings(requirements: Requirement[]): string[] {
  const object = {
    apiVersion: "karpenter.sh/v1",
    kind: "NodePool",
    metadata: { name: "pool" },
    spec: {
      limits: { cpu: "100", memory: "400Gi" },
      template: {
        spec: { nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" }, requirements },
      },
    },
  };
  const verdict = evaluate({ kind: "NodePool", operation: "CREATE", object, context });
  return verdict.findings
    .filter((f) => f.policy === "requirements-satisfiable" || f.policy === "spot-diversity")
    .map((f) => `${f.policy}: ${f.message}`);
}

const os = (...values: string[]): Requirement => ({ key: "kubernetes.io/os", operator: "In", values });
const build = (...values: string[]): Requirement => ({
  key: "node.kubernetes.io/windows-build",
  operator: "In",
  values,
});
const arch = (value: string): Requirement => ({ key: "kubernetes.io/arch", operator: "In", values: [value] });

// Karpenter offers every type for Linux and every x86-64 type for Windows; the windows-build
// value comes from the AMI family.
void describe("catalog policies: the operating-system dimension", () => {
  const accepted: Array<[string, Requirement[]]> = [
    ["kubernetes.io/os In [windows]", [os("windows")]],
    ["Windows Server 2022 by OS and build", [os("windows"), build("10.0.20348"), arch("amd64")]],
    ["Windows Server 2019 by build alone", [build("10.0.17763")]],
    ["Windows Server 2025 by build", [os("windows"), build("10.0.26100")]],
    ["windows-build Exists", [{ key: "node.kubernetes.io/windows-build", operator: "Exists" }]],
    ["linux or windows", [os("linux", "windows")]],
    ["kubernetes.io/os In [linux] (unchanged)", [os("linux")]],
    [
      "Linux without a windows-build",
      [os("linux"), { key: "node.kubernetes.io/windows-build", operator: "DoesNotExist" }],
    ],
  ];
  for (const [name, requirements] of accepted) {
    void it(`matches enough instance types for ${name}`, () => assert.deepEqual(catalogFindings(requirements), []));
  }

  const denied: Array<[string, Requirement[]]> = [
    ["Windows on arm64 (no Windows AMI for Graviton)", [os("windows"), arch("arm64")]],
    ["an unknown Windows build", [build("10.0.99999")]],
    ["Linux with a windows-build", [os("linux"), build("10.0.20348")]],
    [
      "windows-build with os NotIn [windows]",
      [{ key: "kubernetes.io/os", operator: "NotIn", values: ["windows"] }, build("10.0.20348")],
    ],
  ];
  for (const [name, requirements] of denied) {
    void it(`denies ${name} as matching no instance type`, () => {
      assert.match(
        catalogFindings(requirements).join("\n"),
        /^requirements-satisfiable: the requirements match no instance type/m,
      );
    });
  }
});

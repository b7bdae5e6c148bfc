import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { validateStructure } from "./schema.ts";

const ref = { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "d" };

void describe("structural validation", () => {
  const table: [string, Record<string, unknown>, string, string][] = [
    [
      "joins map keys with a dot, as kube-openapi does",
      { spec: { limits: { cpu: "lots" }, template: { spec: { nodeClassRef: ref, requirements: [] } } } },
      "spec.limits.cpu",
      'Invalid value: "lots": spec.limits.cpu in body should match',
    ],
    [
      "joins map keys with dots and slashes raw",
      {
        spec: {
          template: {
            metadata: { labels: { "example.com/team": "a b" } },
            spec: { nodeClassRef: ref, requirements: [] },
          },
        },
      },
      "spec.template.metadata.labels.example.com/team",
      "spec.template.metadata.labels.example.com/team in body should match",
    ],
    [
      "prints list indexes in brackets",
      { spec: { template: { spec: { nodeClassRef: ref, requirements: [{ key: "a", operator: "Foo" }] } } } },
      "spec.template.spec.requirements[0].operator",
      'Unsupported value: "Foo"',
    ],
    [
      "names the missing child for required",
      { spec: { template: { spec: { requirements: [] } } } },
      "spec.template.spec.nodeClassRef",
      "Required value",
    ],
    [
      "reports too many items like the apiserver",
      {
        spec: {
          template: {
            spec: {
              nodeClassRef: ref,
              requirements: Array.from({ length: 101 }, () => ({ key: "a", operator: "Exists" })),
            },
          },
        },
      },
      "spec.template.spec.requirements",
      "Too many: 101: must have at most 100 items",
    ],
    [
      "accepts an integer limit (int-or-string)",
      { spec: { limits: { cpu: 4, memory: "x" }, template: { spec: { nodeClassRef: ref, requirements: [] } } } },
      "spec.limits.memory",
      "should match",
    ],
  ];
  for (const [name, object, path, message] of table) {
    void it(name, () => {
      const issues = validateStructure("NodePool", object);
      assert.ok(
        issues.some((i) => i.path === path && i.message.includes(message)),
        JSON.stringify(issues),
      );
      assert.ok(
        !issues.some(
          (i) =>
            i.path === "spec.limits.cpu" &&
            typeof (object["spec"] as { limits?: { cpu?: unknown } }).limits?.cpu === "number",
        ),
      );
    });
  }

  void it("marks fields the apiserver would prune as unknown, not invalid", () => {
    const issues = validateStructure("EC2NodeClass", {
      spec: {
        amiSelectorTerms: [{ alias: "al2023@latest" }],
        subnetSelectorTerms: [],
        securityGroupSelectorTerms: [],
        bogus: 1,
      },
    });
    assert.deepEqual(issues, [{ path: "spec.bogus", message: 'unknown field "spec.bogus"', class: "unknown" }]);
  });

  void it("rejects integers the apiserver decodes as floats (|n| ≥ 2^63) as type errors, in integer and int-or-string fields", () => {
    const issues = validateStructure("NodePool", {
      spec: {
        replicas: 1e20,
        weight: 2 ** 63,
        limits: { cpu: -(2 ** 63), memory: 2 ** 62 },
        template: { spec: { nodeClassRef: ref, requirements: [] } },
      },
    });
    const typeErrors = issues.filter((i) => i.class === "type").map((i) => `${i.path}: ${i.message}`);
    assert.deepEqual(typeErrors.filter((e) => !e.includes("must be of type string")).sort(), [
      'spec.limits.cpu: Invalid value: "number": spec.limits.cpu in body must be of type integer: "number"',
      'spec.replicas: Invalid value: "float64": spec.replicas in body must be of type int64: "float64"',
      'spec.weight: Invalid value: "float64": spec.weight in body must be of type int32: "float64"',
    ]);
  });

  void it("marks wrong types as blocking", () => {
    const issues = validateStructure("NodePool", {
      spec: { weight: "1", template: { spec: { nodeClassRef: ref, requirements: [] } } },
    });
    assert.deepEqual(
      issues.map((i) => i.class),
      ["type"],
    );
  });
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseFieldPath } from "./field-path.ts";

void describe("parseFieldPath", () => {
  const cases: Array<[string, Array<string | number>]> = [
    ["spec.disruption.budgets[1].schedule", ["spec", "disruption", "budgets", 1, "schedule"]],
    [
      'spec.template.metadata.labels["karpenter.sh/nodepool"]',
      ["spec", "template", "metadata", "labels", "karpenter.sh/nodepool"],
    ],
    ["spec.tags['kubernetes.io/cluster/x']", ["spec", "tags", "kubernetes.io/cluster/x"]],
    [".spec.template", ["spec", "template"]],
    ["/spec/template/spec/requirements/0/key", ["spec", "template", "spec", "requirements", 0, "key"]],
    ["/metadata/annotations/a~1b~0c", ["metadata", "annotations", "a/b~c"]],
    ["spec.amiSelectorTerms[0]", ["spec", "amiSelectorTerms", 0]],
    ["", []],
  ];
  for (const [path, expected] of cases) {
    void it(`splits ${JSON.stringify(path)} into its segments`, () => {
      assert.deepEqual(parseFieldPath(path), expected);
    });
  }
});

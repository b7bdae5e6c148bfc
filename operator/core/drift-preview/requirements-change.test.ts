import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { NodeSelectorRequirement } from "../../../policies/domain/requirements.ts";
import { narrowedRequirements } from "./requirements-change.ts";

const K = "karpenter.k8s.aws/instance-family";
const r = (operator: string, ...values: string[]): NodeSelectorRequirement =>
  ({ key: K, operator, ...(values.length > 0 ? { values } : {}) }) as NodeSelectorRequirement;

void describe("narrowed requirements (RequirementsDrifted)", () => {
  const cases: {
    name: string;
    before: NodeSelectorRequirement[];
    after: NodeSelectorRequirement[];
    nodes: string | undefined;
  }[] = [
    {
      name: "values are removed from In",
      before: [r("In", "c5", "m5")],
      after: [r("In", "c5")],
      nodes: `nodes whose ${K} is no longer in [c5] (m5 no longer allowed)`,
    },
    { name: "values are added to In", before: [r("In", "c5")], after: [r("In", "c5", "m5")], nodes: undefined },
    {
      name: "a requirement is added on a key that had none",
      before: [],
      after: [r("In", "c5")],
      nodes: `nodes whose ${K} is no longer in [c5]`,
    },
    { name: "the requirement is dropped", before: [r("In", "c5")], after: [], nodes: undefined },
    {
      name: "NotIn excludes one more value",
      before: [r("NotIn", "t3")],
      after: [r("NotIn", "t3", "t3a")],
      nodes: `nodes whose ${K} is one of [t3a]`,
    },
    {
      name: "NotIn excludes one value fewer",
      before: [r("NotIn", "t3", "t3a")],
      after: [r("NotIn", "t3")],
      nodes: undefined,
    },
    {
      name: "DoesNotExist replaces Exists",
      before: [r("Exists")],
      after: [r("DoesNotExist")],
      nodes: `nodes that carry the label ${K}`,
    },
    { name: "Exists replaces In", before: [r("In", "c5")], after: [r("Exists")], nodes: undefined },
    {
      name: "a Gt bound rises",
      before: [r("Gt", "2")],
      after: [r("Gt", "4")],
      nodes: `nodes whose ${K} no longer satisfies ${K} Gt 4`,
    },
    { name: "a Gt bound falls", before: [r("Gt", "4")], after: [r("Gt", "2")], nodes: undefined },
    {
      name: "In is split into two entries that intersect to the same set",
      before: [r("In", "c5", "m5")],
      after: [r("In", "c5", "m5", "r5"), r("NotIn", "r5")],
      nodes: undefined,
    },
  ];
  for (const c of cases) {
    void it(`${c.nodes === undefined ? "drifts nothing" : "drifts nodes"} when ${c.name}`, () => {
      assert.deepEqual(
        narrowedRequirements(c.before, c.after).map((n) => n.nodes),
        c.nodes === undefined ? [] : [c.nodes],
      );
    });
  }
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { buildScenario, ScenarioError } from "./scenario.ts";
import { simulate } from "./simulate.ts";

type Obj = Record<string, unknown>;
const catalog = builtinCatalog();

const docs = (extra: Obj[], requests: Obj = { cpu: "1", memory: "1Gi" }): Obj[] => [
  {
    apiVersion: "karpenter.k8s.aws/v1",
    kind: "EC2NodeClass",
    metadata: { name: "default" },
    spec: { amiSelectorTerms: [{ alias: "al2023@latest" }] },
  },
  {
    apiVersion: "karpenter.sh/v1",
    kind: "NodePool",
    metadata: { name: "default" },
    spec: {
      template: {
        spec: {
          nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
          requirements: [
            { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.large", "m5.xlarge"] },
            { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
          ],
        },
      },
    },
  },
  {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "app", namespace: "default" },
    spec: { containers: [{ name: "app", resources: { requests: requests, limits: requests } }] },
  },
  ...extra,
];

const overlay = (name: string, spec: Obj): Obj => ({
  apiVersion: "karpenter.sh/v1alpha1",
  kind: "NodeOverlay",
  metadata: { name },
  spec: { requirements: [], ...spec },
});
const launched = (input: Obj[]): string[] => {
  const scenario = buildScenario(input, catalog);
  const result = simulate(scenario.snapshot, scenario.pending);
  return [...result.newClaims.map((c) => c.launch.instanceType), ...result.podErrors.map(() => "unschedulable")];
};

describe("kerf simulate applies a scenario's NodeOverlays as the operator does", () => {
  it("launches the cheapest type without an overlay, and the overlay's cheaper type with one", () => {
    assert.deepEqual(launched(docs([])), ["m5.large"]);
    const cheaper = overlay("xlarge-cheap", {
      requirements: [{ key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.xlarge"] }],
      price: "0.001",
    });
    assert.deepEqual(launched(docs([cheaper])), ["m5.xlarge"]);
  });

  it("places a pod requesting an extended resource only once an overlay adds that capacity", () => {
    const device = { cpu: "1", memory: "1Gi", "example.com/device": "1" };
    assert.deepEqual(launched(docs([], device)), ["unschedulable"]);
    assert.notDeepEqual(launched(docs([overlay("device", { capacity: { "example.com/device": "1" } })], device)), [
      "unschedulable",
    ]);
  });

  it("reports equal-weight conflicts and applies the conflicting overlay nowhere", () => {
    const a = overlay("a", {
      price: "0.001",
      requirements: [{ key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.xlarge"] }],
    });
    const b = overlay("b", {
      price: "5",
      requirements: [{ key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.xlarge"] }],
    });
    const scenario = buildScenario(docs([a, b]), catalog);
    assert.deepEqual(
      scenario.overlays.map((v) => [v.name, v.status]),
      [
        ["b", "True"],
        ["a", "False"],
      ],
    );
    assert.deepEqual(launched(docs([a, b])), ["m5.large"]);
  });

  it("refuses an overlay that adds a restricted resource, naming it and its document", () => {
    assert.throws(
      () => buildScenario(docs([overlay("cpu", { capacity: { cpu: "2" } })]), catalog),
      (error: unknown) => {
        assert.ok(error instanceof ScenarioError);
        assert.equal(error.document, 3);
        assert.match(error.message, /NodeOverlay cpu: invalid capacity: cpu in resource, restricted/);
        return true;
      },
    );
  });
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { formatTaint, toleratesTaint, untoleratedTaint, type Taint, type Toleration } from "./taints.ts";

const gpu: Taint = { key: "nvidia.com/gpu", value: "true", effect: "NoSchedule" };

describe("tolerations", () => {
  const cases: [string, Toleration, boolean][] = [
    ["an Equal toleration with the same value", { key: "nvidia.com/gpu", operator: "Equal", value: "true" }, true],
    ["an Equal toleration with another value", { key: "nvidia.com/gpu", value: "false" }, false],
    ["an Exists toleration on the key", { key: "nvidia.com/gpu", operator: "Exists" }, true],
    ["an Exists toleration without a key", { operator: "Exists" }, true],
    ["a toleration for another effect", { key: "nvidia.com/gpu", operator: "Exists", effect: "NoExecute" }, false],
    ["a toleration for another key", { key: "team", operator: "Exists" }, false],
    ["an empty-key Equal toleration", { value: "true" }, false],
  ];
  for (const [name, toleration, ok] of cases)
    it(`${ok ? "tolerates" : "does not tolerate"} with ${name}`, () =>
      assert.equal(toleratesTaint(toleration, gpu), ok));
  it("skips PreferNoSchedule taints unless asked", () => {
    const soft: Taint = { key: "a", effect: "PreferNoSchedule" };
    assert.equal(untoleratedTaint([soft], []), undefined);
    assert.equal(untoleratedTaint([soft], [], true), soft);
  });
  it("prints taints the kubectl way", () => assert.equal(formatTaint(gpu), "nvidia.com/gpu=true:NoSchedule"));
});

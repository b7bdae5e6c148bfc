import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ignoredFieldsCondition, IgnoredFieldsMemo } from "./ignored-fields.ts";

const pool = (spec: Record<string, unknown>): Record<string, unknown> => ({
  metadata: { name: "p" },
  spec: { template: { spec: {} }, ...spec },
});

void describe("the IgnoredFields condition", () => {
  void it("is True naming each ignored field when a NodePool sets one", () => {
    const condition = ignoredFieldsCondition(
      "NodePool",
      pool({ template: { metadata: { annotations: { "karpenter.sh/do-not-repair": "true" } }, spec: {} } }),
    );
    assert.deepEqual(
      [condition?.type, condition?.status, condition?.reason],
      ["IgnoredFields", "True", "NotImplemented"],
    );
    assert.match(
      condition?.message ?? "",
      /^kerf's operator ignores spec\.template\.metadata\.annotations\.karpenter\.sh\/do-not-repair/,
    );
  });

  void it("is absent when the object sets nothing kerf ignores", () => {
    assert.equal(ignoredFieldsCondition("NodePool", pool({ weight: 3 })), undefined);
    assert.equal(ignoredFieldsCondition("EC2NodeClass", { spec: { kubelet: { maxPods: 20 } } }), undefined);
  });
});

void describe("the once-per-object log memo", () => {
  void it("logs an object when first seen, not again on later reconciles, and again when its list changes", () => {
    const memo = new IgnoredFieldsMemo();
    const steps: [string, unknown, string[] | undefined][] = [
      ["first reconcile", { spec: { ipPrefixCount: 1 } }, ["spec.ipPrefixCount"]],
      ["same object again", { spec: { ipPrefixCount: 1 } }, undefined],
      [
        "a field added",
        { spec: { ipPrefixCount: 1, enclaveOptions: { enabled: true } } },
        ["spec.enclaveOptions", "spec.ipPrefixCount"],
      ],
      ["the fields removed", { spec: {} }, undefined],
      ["set once more", { spec: { ipPrefixCount: 2 } }, ["spec.ipPrefixCount"]],
      ["the object deleted", undefined, undefined],
    ];
    for (const [step, object, want] of steps) {
      assert.deepEqual(
        memo.next("EC2NodeClass", "c", object)?.map((u) => u.path),
        want,
        step,
      );
    }
    assert.deepEqual(
      memo
        .next("NodePool", "c", pool({ template: { metadata: { annotations: { "karpenter.sh/do-not-repair": "x" } } } }))
        ?.map((u) => u.path),
      ["spec.template.metadata.annotations.karpenter.sh/do-not-repair"],
      "another kind, same name",
    );
  });
});

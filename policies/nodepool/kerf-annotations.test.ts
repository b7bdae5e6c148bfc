import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { defaultPolicyConfig } from "../config.ts";
import { builtinCatalog } from "../domain/catalog/builtin.ts";
import { kerfAnnotationIssues } from "./kerf-annotations.ts";

const context = { catalog: builtinCatalog(), config: defaultPolicyConfig() };
const ANNOTATION = "kerf.dev/consolidate-empty-after";

function judged(value: unknown, consolidateAfter = "10m"): { message: string; advisory: boolean } | undefined {
  const metadata = value === undefined ? { name: "p" } : { name: "p", annotations: { [ANNOTATION]: value } };
  const object = {
    apiVersion: "karpenter.sh/v1",
    kind: "NodePool",
    metadata,
    spec: { disruption: { consolidateAfter } },
  };
  const found = kerfAnnotationIssues({ kind: "NodePool", operation: "CREATE", object, oldObject: undefined, context });
  assert.ok(found.every((i) => i.path === `metadata.annotations.${ANNOTATION}`));
  return found[0] === undefined ? undefined : { message: found[0].message, advisory: found[0].advisory === true };
}

void describe("the kerf-annotations policy on kerf.dev/consolidate-empty-after", () => {
  const cases: [string, unknown, string, { includes: string; advisory: boolean } | undefined][] = [
    ["accepts a NodePool without the annotation", undefined, "10m", undefined],
    ["accepts a delay shorter than consolidateAfter", "30s", "10m", undefined],
    ["accepts a delay with consolidateAfter: Never (empty nodes only)", "5m", "Never", undefined],
    [
      "denies a value that is not a duration",
      "5 minutes",
      "10m",
      { includes: '"5 minutes" is not a Go duration', advisory: false },
    ],
    ["denies a negative delay", "-1m", "10m", { includes: "at least 0", advisory: false }],
    ["denies Never", "Never", "10m", { includes: '"Never" is not a delay', advisory: false }],
    ["denies a number that is not a string", 30, "10m", { includes: "is not a Go duration", advisory: false }],
    [
      "warns that a delay as long as consolidateAfter has no effect",
      "10m",
      "10m",
      { includes: "has no effect", advisory: true },
    ],
    [
      "warns with the default consolidateAfter of 0s",
      "0s",
      "0s",
      { includes: "consolidateAfter (0s)", advisory: true },
    ],
  ];
  for (const [title, value, consolidateAfter, want] of cases) {
    void it(title, () => {
      const got = judged(value, consolidateAfter);
      if (want === undefined) return assert.equal(got, undefined);
      assert.ok(got !== undefined && got.message.startsWith(`annotation ${ANNOTATION}:`), got?.message);
      assert.ok(got.message.includes(want.includes), got.message);
      assert.equal(got.advisory, want.advisory);
    });
  }
});

void describe("the kerf-annotations policy on kerf.dev/spot-to-spot-consolidation", () => {
  const SPOT = "kerf.dev/spot-to-spot-consolidation";
  const cases: [string, unknown, string | undefined][] = [
    ['accepts "true"', "true", undefined],
    ['accepts "false"', "false", undefined],
    ['denies "yes"', "yes", '"yes" is neither "true" nor "false"'],
    ['denies "True" (annotations are case-sensitive)', "True", '"True" is neither'],
    ["denies a boolean that is not a string", true, "true is neither"],
  ];
  for (const [title, value, message] of cases) {
    void it(title, () => {
      const object = {
        apiVersion: "karpenter.sh/v1",
        kind: "NodePool",
        metadata: { name: "p", annotations: { [SPOT]: value } },
        spec: {},
      };
      const found = kerfAnnotationIssues({
        kind: "NodePool",
        operation: "CREATE",
        object,
        oldObject: undefined,
        context,
      });
      if (message === undefined) return assert.deepEqual(found, []);
      assert.equal(found.length, 1);
      assert.equal(found[0]?.path, `metadata.annotations.${SPOT}`);
      assert.ok(
        found[0]?.message.startsWith(`annotation ${SPOT}: `) && found[0].message.includes(message),
        found[0]?.message,
      );
    });
  }
});

void describe("the kerf-annotations policy on kerf.dev/drift-rollout", () => {
  const judge = (value: unknown): string[] => {
    const object = {
      apiVersion: "karpenter.sh/v1",
      kind: "NodePool",
      metadata: { name: "p", annotations: { "kerf.dev/drift-rollout": value } },
      spec: {},
    };
    return kerfAnnotationIssues({ kind: "NodePool", operation: "CREATE", object, oldObject: undefined, context }).map(
      (i) => `${i.path}: ${i.message}`,
    );
  };
  const cases: [string, unknown, RegExp | undefined][] = [
    ["accepts waves", "waves", undefined],
    [
      "denies a value other than waves, naming the annotation",
      "fast",
      /^metadata\.annotations\.kerf\.dev\/drift-rollout: .*"fast" is not "waves"/,
    ],
    ["denies a value that is not a string", true, /true is not "waves"/],
  ];
  for (const [title, value, want] of cases) {
    void it(title, () => {
      const found = judge(value);
      if (want === undefined) return assert.deepEqual(found, []);
      assert.equal(found.length, 1);
      assert.match(found[0] ?? "", want);
    });
  }
});

// The differential fuzz's offline parts: reproducible generation, mutations that keep JSON's own keys, and a
// known-differences list that explains every corpus case where kerf is stricter than the apiserver.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { generatedCrds } from "../harness/karpenter-crds.ts";
import { EC2NODECLASS, NODEPOOL } from "../conformance/case.ts";
import { CASES } from "../conformance/cases/index.ts";
import { applyMutation, generatedObjects, schemaFields, type SchemaNode } from "../conformance/fuzz/mutations.ts";
import { PARITY_CONFIG } from "../conformance/fuzz/differential.ts";
import { explainStricter, KNOWN_DIFFERENCES } from "../conformance/known-differences.ts";
import { evaluate } from "../../policies/evaluate.ts";
import { builtinCatalog } from "../../policies/domain/catalog/builtin.ts";

const crds = generatedCrds();
const schemaOf = (kind: string): SchemaNode =>
  crds.find((c) => c.spec.names.kind === kind)?.spec.versions[0]?.schema?.openAPIV3Schema as SchemaNode;
const objects = fc.oneof(
  generatedObjects("NodePool", schemaOf("NodePool"), [NODEPOOL]),
  generatedObjects("EC2NodeClass", schemaOf("EC2NodeClass"), [EC2NODECLASS]),
);

describe("the differential fuzz's generator and known differences", () => {
  it("generates the same objects from the same seed", () => {
    const once = JSON.stringify(fc.sample(objects, { seed: 42, numRuns: 200 }));
    assert.equal(JSON.stringify(fc.sample(objects, { seed: 42, numRuns: 200 })), once);
    assert.notEqual(JSON.stringify(fc.sample(objects, { seed: 43, numRuns: 200 })), once);
  });

  it("draws mutations from every field under metadata and spec, list items and map values included", () => {
    const paths = new Set(schemaFields(schemaOf("NodePool")).map((f) => f.dotted));
    for (const p of [
      "metadata.labels",
      "spec.template.spec.requirements.operator",
      "spec.disruption.budgets.schedule",
      "spec.limits",
      "spec.replicas",
    ]) {
      assert.ok(paths.has(p), p);
    }
  });

  it("sets a __proto__ key as an own property that JSON carries, creating the containers on its way", () => {
    const object: Record<string, unknown> = { spec: {} };
    applyMutation(object, { op: "set", path: ["spec", "tags", "__proto__"], value: "x" });
    applyMutation(object, { op: "set", path: ["spec", "list", 5, "a"], value: 1 });
    assert.equal(JSON.stringify(object), '{"spec":{"tags":{"__proto__":"x"},"list":[{"a":1}]}}');
    assert.equal(Object.getPrototypeOf((object["spec"] as Record<string, unknown>)["tags"]), Object.prototype);
  });

  it("deletes list items and leaves a missing path alone", () => {
    const object: Record<string, unknown> = { a: [1, 2, 3] };
    applyMutation(object, { op: "delete", path: ["a", 1] });
    applyMutation(object, { op: "delete", path: ["b", "c"] });
    assert.deepEqual(object, { a: [1, 3] });
  });

  it("explains every corpus case the apiserver accepts and kerf (own policies off) denies", () => {
    const catalog = builtinCatalog();
    const unexplained = CASES.filter((c) => c.apiserver === "accept" && c.operation !== "UPDATE").flatMap((c) => {
      const verdict = evaluate({
        kind: c.kind,
        operation: "CREATE",
        object: c.object,
        context: { catalog, config: PARITY_CONFIG },
      });
      const denials = verdict.findings.filter((f) => f.severity === "deny");
      return verdict.allowed || explainStricter(denials) !== undefined
        ? []
        : [`${c.name}: ${denials.map((d) => `[${d.policy}] ${d.message}`).join("; ")}`];
    });
    assert.deepEqual(unexplained, []);
  });

  it("does not explain a schema or cel finding outside the documented entries", () => {
    assert.equal(
      explainStricter([
        {
          policy: "cel",
          severity: "deny",
          path: "spec",
          message: "must specify exactly one of ['role', 'instanceProfile']",
        },
      ]),
      undefined,
    );
    assert.equal(
      explainStricter([
        { policy: "schema", severity: "deny", path: "spec.role", message: 'must be of type string: "array"' },
      ]),
      undefined,
    );
    assert.ok(new Set(KNOWN_DIFFERENCES.map((d) => d.name)).size === KNOWN_DIFFERENCES.length, "names are unique");
  });
});

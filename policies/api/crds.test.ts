import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { crdObjects, renderCrds } from "./crds.ts";
import { EC2NODECLASS_CEL_RULES, NODECLAIM_CEL_RULES, NODEPOOL_CEL_RULES, type CelRule } from "./cel-rules.ts";
import { nodesAt } from "../cel.ts";

const dir = path.resolve(import.meta.dirname, "..", "..", "manifests", "crds");

/** The schema node of a rule location (".spec.x[].y" → properties.spec.properties.x.items.properties.y). */
function schemaAt(schema: unknown, on: string): Record<string, unknown> {
  let node = schema as Record<string, unknown>;
  for (const part of on.slice(1).split(".")) {
    const name = part.replace(/\[\]$/, "");
    node = (node["properties"] as Record<string, Record<string, unknown>>)[name] as Record<string, unknown>;
    if (part.endsWith("[]")) node = node["items"] as Record<string, unknown>;
  }
  return node;
}

function schemaOf(crd: Record<string, unknown>): unknown {
  const versions = (crd["spec"] as { versions: { schema: { openAPIV3Schema: unknown } }[] }).versions;
  return versions[0]?.schema.openAPIV3Schema;
}

void describe("generated CRDs", () => {
  void it("match the files in manifests/crds (run `node .ci/generate-crds.ts` when this fails)", () => {
    for (const [file, text] of Object.entries(renderCrds())) {
      assert.equal(readFileSync(path.join(dir, file), "utf8"), text, `manifests/crds/${file} is stale`);
    }
  });

  void it("carry Karpenter's names, scope and subresources", () => {
    const [nodePool, nodeClaim, nodeClass] = crdObjects().map((c) => c["spec"] as Record<string, unknown>);
    assert.deepEqual(nodePool?.["names"], { categories: ["karpenter"], kind: "NodePool", listKind: "NodePoolList", plural: "nodepools", singular: "nodepool" });
    assert.equal(nodeClaim?.["group"], "karpenter.sh");
    assert.deepEqual((nodeClass?.["names"] as Record<string, unknown>)["shortNames"], ["ec2nc", "ec2ncs"]);
    for (const spec of [nodePool, nodeClaim, nodeClass]) assert.equal(spec?.["scope"], "Cluster");
    const versions = nodePool?.["versions"] as { subresources: Record<string, unknown> }[];
    assert.deepEqual(versions[0]?.subresources["scale"], { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.nodes" });
  });

  const table: [string, number, readonly CelRule[], number][] = [
    ["NodePool", 0, NODEPOOL_CEL_RULES, 20],
    ["NodeClaim", 1, NODECLAIM_CEL_RULES, 10],
    ["EC2NodeClass", 2, EC2NODECLASS_CEL_RULES, 54],
  ];
  for (const [kind, index, rules, count] of table) {
    void it(`attach all ${count} ${kind} CEL rules at their upstream locations, byte for byte and in order`, () => {
      assert.equal(rules.length, count);
      const schema = schemaOf(crdObjects()[index] as Record<string, unknown>);
      const locations = [...new Set(rules.map((r) => r.on))];
      for (const on of locations) {
        const attached = schemaAt(schema, on)["x-kubernetes-validations"];
        assert.deepEqual(attached, rules.filter((r) => r.on === on).map((r) => ({ message: r.message, rule: r.rule })), on);
      }
    });
  }

  void it("require spec on NodePool and NodeClaim but not on EC2NodeClass (quirk 13)", () => {
    const [np, nc, ec] = crdObjects().map((c) => schemaOf(c) as Record<string, unknown>);
    assert.deepEqual(np?.["required"], ["spec"]);
    assert.deepEqual(nc?.["required"], ["spec"]);
    assert.equal(ec?.["required"], undefined);
  });

  void it("locate rule targets in objects with list items expanded", () => {
    const found = nodesAt({ spec: { r: [{ key: "a" }, { key: "b" }] } }, ".spec.r[].key");
    assert.deepEqual(found, [{ path: "spec.r[0].key", value: "a" }, { path: "spec.r[1].key", value: "b" }]);
  });
});

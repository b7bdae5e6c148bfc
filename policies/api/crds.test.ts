import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { crdObjects, renderCrds } from "./crds.ts";
import { bundledKarpenterApi } from "./releases/index.ts";

const dir = path.resolve(import.meta.dirname, "..", "..", "manifests", "crds");

/** Every x-kubernetes-validations list of a schema by location (".spec.x[].y", "{}" for map values). */
function rulesByLocation(node: Record<string, unknown>, at = "", out: Record<string, unknown> = {}): Record<string, unknown> {
  if (node["x-kubernetes-validations"] !== undefined) out[at] = node["x-kubernetes-validations"];
  for (const [name, child] of Object.entries((node["properties"] ?? {}) as Record<string, Record<string, unknown>>)) rulesByLocation(child, `${at}.${name}`, out);
  if (node["items"] !== undefined) rulesByLocation(node["items"] as Record<string, unknown>, `${at}[]`, out);
  if (node["additionalProperties"] !== undefined) rulesByLocation(node["additionalProperties"] as Record<string, unknown>, `${at}{}`, out);
  return out;
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

  const table: [string, number, number][] = [["NodePool", 0, 20], ["NodeClaim", 1, 10], ["EC2NodeClass", 2, 54]];
  for (const [kind, index, count] of table) {
    void it(`attach all ${count} ${kind} CEL rules of Karpenter v1.14.1 at their upstream locations, byte for byte and in order`, () => {
      const generated = rulesByLocation(schemaOf(crdObjects()[index] as Record<string, unknown>) as Record<string, unknown>);
      const upstream = rulesByLocation(bundledKarpenterApi("1.14.1").schemas[kind as "NodePool"] as Record<string, unknown>);
      assert.deepEqual(generated, upstream);
      assert.equal(Object.values(generated).flat().length, count);
    });

    void it(`describe ${kind} exactly as Karpenter v1.14.1's CRD does (descriptions aside)`, () => {
      const generated = JSON.parse(JSON.stringify(schemaOf(crdObjects()[index] as Record<string, unknown>))) as unknown;
      assert.deepEqual(generated, bundledKarpenterApi("1.14.1").schemas[kind as "NodePool"]);
    });
  }

  void it("require spec on NodePool and NodeClaim but not on EC2NodeClass (quirk 13)", () => {
    const [np, nc, ec] = crdObjects().map((c) => schemaOf(c) as Record<string, unknown>);
    assert.deepEqual(np?.["required"], ["spec"]);
    assert.deepEqual(nc?.["required"], ["spec"]);
    assert.equal(ec?.["required"], undefined);
  });
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { CRD_CONTRACT_VERSION, crdObjects, renderCrds } from "./crds.ts";
import { descriptionsOf } from "./descriptions.ts";
import { stripDescriptions } from "./releases/from-crds.ts";
import DESCRIPTIONS from "./releases/karpenter-v1.15.1.descriptions.json" with { type: "json" };
import { bundledKarpenterApi } from "./releases/index.ts";

const dir = path.resolve(import.meta.dirname, "..", "..", "manifests", "crds");

/** Every x-kubernetes-validations list of a schema by location (".spec.x[].y", "{}" for map values). */
function rulesByLocation(
  node: Record<string, unknown>,
  at = "",
  out: Record<string, unknown> = {},
): Record<string, unknown> {
  if (node["x-kubernetes-validations"] !== undefined) out[at] = node["x-kubernetes-validations"];
  for (const [name, child] of Object.entries((node["properties"] ?? {}) as Record<string, Record<string, unknown>>))
    rulesByLocation(child, `${at}.${name}`, out);
  if (node["items"] !== undefined) rulesByLocation(node["items"] as Record<string, unknown>, `${at}[]`, out);
  if (node["additionalProperties"] !== undefined)
    rulesByLocation(node["additionalProperties"] as Record<string, unknown>, `${at}{}`, out);
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
    assert.deepEqual(nodePool?.["names"], {
      categories: ["karpenter"],
      kind: "NodePool",
      listKind: "NodePoolList",
      plural: "nodepools",
      singular: "nodepool",
    });
    assert.equal(nodeClaim?.["group"], "karpenter.sh");
    assert.deepEqual((nodeClass?.["names"] as Record<string, unknown>)["shortNames"], ["ec2nc", "ec2ncs"]);
    for (const spec of [nodePool, nodeClaim, nodeClass]) assert.equal(spec?.["scope"], "Cluster");
    const versions = nodePool?.["versions"] as { subresources: Record<string, unknown> }[];
    assert.deepEqual(versions[0]?.subresources["scale"], {
      specReplicasPath: ".spec.replicas",
      statusReplicasPath: ".status.nodes",
    });
  });

  const table: [string, number, number][] = [
    ["NodePool", 0, 20],
    ["NodeClaim", 1, 10],
    ["EC2NodeClass", 2, 44],
  ];
  for (const [kind, index, count] of table) {
    void it(`attach all ${count} ${kind} CEL rules of Karpenter v${CRD_CONTRACT_VERSION} at their upstream locations, byte for byte and in order`, () => {
      const generated = rulesByLocation(
        schemaOf(crdObjects()[index] as Record<string, unknown>) as Record<string, unknown>,
      );
      const upstream = rulesByLocation(
        bundledKarpenterApi(CRD_CONTRACT_VERSION).schemas[kind as "NodePool"] as Record<string, unknown>,
      );
      assert.deepEqual(generated, upstream);
      assert.equal(Object.values(generated).flat().length, count);
    });

    void it(`describe ${kind} exactly as Karpenter v${CRD_CONTRACT_VERSION}'s CRD does, so that the apiserver prunes no field a v1.15 user sets`, () => {
      const generated = stripDescriptions(
        JSON.parse(JSON.stringify(schemaOf(crdObjects()[index] as Record<string, unknown>))),
      ) as unknown;
      assert.deepEqual(generated, bundledKarpenterApi(CRD_CONTRACT_VERSION).schemas[kind as "NodePool"]);
    });

    void it(`explain every ${kind} field with Karpenter v${CRD_CONTRACT_VERSION}'s own description, and only with those`, () => {
      const generated = descriptionsOf(schemaOf(crdObjects()[index] as Record<string, unknown>));
      const upstream = (DESCRIPTIONS.descriptions as Record<string, Record<string, string>>)[kind] ?? {};
      assert.deepEqual(generated, upstream);
      assert.ok(Object.keys(generated).length > 40, `${Object.keys(generated).length} descriptions`);
    });
  }

  void it("require spec on NodePool and NodeClaim but not on EC2NodeClass (quirk 13)", () => {
    const [np, nc, ec] = crdObjects().map((c) => schemaOf(c) as Record<string, unknown>);
    assert.deepEqual(np?.["required"], ["spec"]);
    assert.deepEqual(nc?.["required"], ["spec"]);
    assert.equal(ec?.["required"], undefined);
  });
});

void describe("the vendored CRD descriptions", () => {
  void it(`come from Karpenter v${CRD_CONTRACT_VERSION}'s published CRD files, each named with its sha256`, () => {
    assert.equal(DESCRIPTIONS.version, CRD_CONTRACT_VERSION);
    assert.deepEqual(
      DESCRIPTIONS.sources.map((s) => s.kind),
      ["NodePool", "NodeClaim", "EC2NodeClass"],
    );
    for (const source of DESCRIPTIONS.sources) {
      assert.match(
        source.file,
        new RegExp(
          `^github\\.com/aws/karpenter-provider-aws@v${CRD_CONTRACT_VERSION.replaceAll(".", "\\.")}/pkg/apis/crds/`,
        ),
      );
      assert.match(source.sha256, /^[0-9a-f]{64}$/);
    }
  });

  void it("say in the generated CRDs which Karpenter release they serve", () => {
    for (const crd of crdObjects()) {
      const annotations = (crd["metadata"] as { annotations: Record<string, string> }).annotations;
      assert.equal(
        annotations["kerf.dev/generated-from"],
        `policies/api (Karpenter v${CRD_CONTRACT_VERSION} contract)`,
      );
    }
  });
});

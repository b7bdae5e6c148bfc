// Writes policies/api/releases/karpenter-v<version>.descriptions.json: every `description` of Karpenter's own
// NodePool, NodeClaim and EC2NodeClass CRDs (v1 openAPIV3Schema) by schema location, with the module file each
// came from and its sha256, so that kerf's generated CRDs explain fields as Karpenter's do (`kubectl explain`)
// without a hand-kept copy in kerf's source. The CRD files come from the Go module proxy (fetch-upstream-crds.sh).
// Run: node .ci/crds/vendor-descriptions.ts VERSION; the output is committed and read by policies/api/crds.ts.
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseAllDocuments } from "yaml";
import { descriptionsOf } from "../../policies/api/descriptions.ts";
import { KARPENTER_CRD_NAMES, v1SchemaOf } from "../../policies/api/releases/from-crds.ts";

const MODULE = "github.com/aws/karpenter-provider-aws";
const root = path.resolve(import.meta.dirname, "..", "..");
const version = process.argv[2]?.replace(/^v/, "");
if (version === undefined) {
  console.error("usage: node .ci/crds/vendor-descriptions.ts VERSION");
  process.exit(2);
}
const dir = execFileSync("bash", [path.join(import.meta.dirname, "fetch-upstream-crds.sh"), version], {
  encoding: "utf8",
}).trim();
const sources: { kind: string; file: string; sha256: string }[] = [];
const descriptions: Record<string, Record<string, string>> = {};
for (const [kind, crdName] of Object.entries(KARPENTER_CRD_NAMES)) {
  const [plural, ...group] = crdName.split(".");
  const file = `${group.join(".")}_${plural}.yaml`;
  const text = readFileSync(path.join(dir, file), "utf8");
  const crd = parseAllDocuments(text)
    .map((d) => d.toJS() as unknown)
    .find((c) => v1SchemaOf(c) !== undefined);
  const schema = v1SchemaOf(crd);
  if (schema === undefined) throw new Error(`reading ${MODULE}@v${version}/pkg/apis/crds/${file}: no v1 schema`);
  sources.push({
    kind,
    file: `${MODULE}@v${version}/pkg/apis/crds/${file}`,
    sha256: createHash("sha256").update(text).digest("hex"),
  });
  descriptions[kind] = descriptionsOf(schema);
}
const out = path.join(root, "policies", "api", "releases", `karpenter-v${version}.descriptions.json`);
writeFileSync(out, `${JSON.stringify({ version, sources, descriptions }, null, 1)}\n`);
console.log(`wrote ${path.relative(root, out)}`);

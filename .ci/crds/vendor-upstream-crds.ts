// Writes policies/api/releases/karpenter-v<version>.json: the openAPIV3Schema of Karpenter's own NodePool,
// NodeClaim and EC2NodeClass CRDs of each release, descriptions stripped, fetched from the Go module proxy by
// fetch-upstream-crds.sh. Run: node .ci/crds/vendor-upstream-crds.ts [VERSION...]; the output is committed so
// `kerf check --karpenter-version` works offline. test/integration/karpenter-releases.test.ts re-derives each file.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { releaseFromCrds, readCrdDir } from "./upstream-crds.ts";

const root = path.resolve(import.meta.dirname, "..", "..");
const versions = process.argv.slice(2);
if (versions.length === 0) {
  console.error("usage: node .ci/crds/vendor-upstream-crds.ts VERSION...");
  process.exit(2);
}
for (const version of versions) {
  const dir = execFileSync("bash", [path.join(import.meta.dirname, "fetch-upstream-crds.sh"), version], {
    encoding: "utf8",
  }).trim();
  const release = releaseFromCrds(version, readCrdDir(dir));
  const file = path.join(root, "policies", "api", "releases", `karpenter-v${version}.json`);
  writeFileSync(file, `${JSON.stringify(release)}\n`);
  console.log(`wrote ${path.relative(root, file)}`);
}

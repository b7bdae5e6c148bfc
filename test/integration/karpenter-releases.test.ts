// The vendored release files (policies/api/releases/karpenter-v*.json) are exactly what the vendoring script derives
// from each release's CRDs on the Go module proxy: a hand-edited file fails here.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { BUNDLED_KARPENTER_VERSIONS } from "../../policies/api/releases/index.ts";
import { releaseFromCrds } from "../../.ci/crds/upstream-crds.ts";
import { upstreamCrds } from "../harness/karpenter-crds.ts";

const releases = path.resolve(import.meta.dirname, "..", "..", "policies", "api", "releases");

void describe("vendored Karpenter releases", () => {
  for (const version of BUNDLED_KARPENTER_VERSIONS) {
    void it(`v${version} is what its upstream CRDs give (run \`node .ci/crds/vendor-upstream-crds.ts ${version}\` when this fails)`, async () => {
      const vendored = readFileSync(path.join(releases, `karpenter-v${version}.json`), "utf8");
      assert.equal(vendored, `${JSON.stringify(releaseFromCrds(version, await upstreamCrds(version)))}\n`);
    });
  }
});

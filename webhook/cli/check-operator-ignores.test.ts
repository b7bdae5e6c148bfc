import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { runCheck } from "./check.ts";
import { capture } from "./captured-io.ts";

const MANIFEST = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  role: KarpenterNodeRole-demo
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  ipPrefixCount: 1
`;

async function kerfCheck(args: string[]): Promise<{ code: number; out: string }> {
  const c = capture();
  const code = await runCheck(args, c.io);
  return { code, out: c.out() + c.err() };
}

void describe("kerf check on a Karpenter field kerf's operator ignores", () => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "kerf-ignores-")), "nodeclass.yaml");
  writeFileSync(file, MANIFEST);

  void it("warns naming the field, and passes", async () => {
    const { code, out } = await kerfCheck(["--karpenter-version", "1.15.1", file]);
    assert.equal(code, 0, out);
    assert.match(
      out,
      new RegExp(
        "warn EC2NodeClass\\/default spec\\.ipPrefixCount: " +
          "spec\\.ipPrefixCount is not implemented by kerf: kerf's operator ignores it .*\\[operator-ignores\\]",
      ),
    );
  });

  void it("says nothing when the policy is off", async () => {
    const config = path.join(path.dirname(file), "policies.yaml");
    writeFileSync(config, 'policies:\n  operator-ignores: "off"\n');
    const { code, out } = await kerfCheck(["--karpenter-version", "1.15.1", "--policy-config", config, file]);
    assert.equal(code, 0, out);
    assert.doesNotMatch(out, /operator-ignores/);
  });
});

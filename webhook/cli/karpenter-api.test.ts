import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { runCheck } from "./check.ts";
import { capture } from "./captured-io.ts";
import { readKarpenterCrds, selectKarpenterApi } from "./karpenter-api.ts";
import { CRD_CONTRACT_VERSION } from "../../policies/api/crds.ts";
import { BUNDLED_KARPENTER_VERSIONS } from "../../policies/api/releases/index.ts";

const crdDir = path.resolve(import.meta.dirname, "..", "..", "manifests", "crds");
const crdFiles = [
  "karpenter.sh_nodepools.yaml",
  "karpenter.sh_nodeclaims.yaml",
  "karpenter.k8s.aws_ec2nodeclasses.yaml",
];

async function kerfCheck(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const c = capture();
  const code = await runCheck(args, c.io);
  return { code, out: c.out(), err: c.err() };
}

const nodeClass = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  role: KarpenterNodeRole-demo
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
`;

void describe("kerf check --karpenter-version and --karpenter-crds", () => {
  let dir: string;
  let manifest: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "kerf-karpenter-api-"));
    manifest = path.join(dir, "nodeclass.yaml");
    writeFileSync(manifest, nodeClass);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const version of ["1.0.8", "v1.14.1", "1.15", "1.14"]) {
    void it(`accepts the bundled release ${version}`, async () => {
      const { code, err } = await kerfCheck(["--karpenter-version", version, manifest]);
      assert.equal(err, "");
      assert.equal(code, 0);
    });
  }

  for (const version of ["1.5.0", "1.16", "latest"]) {
    void it(`rejects ${version} as a usage error listing the bundled releases, without a stack trace`, async () => {
      const { code, err } = await kerfCheck(["--karpenter-version", version, manifest]);
      assert.equal(code, 2);
      assert.equal(
        err.split("\n")[0],
        `kerf check: selecting Karpenter API "${version}": not bundled (bundled: ` +
          `${BUNDLED_KARPENTER_VERSIONS.join(", ")})`,
      );
      assert.doesNotMatch(err, /\n\s+at /);
    });
  }

  void it("refuses --karpenter-version with --karpenter-crds", async () => {
    const { code, err } = await kerfCheck(["--karpenter-version", "1.14.1", "--karpenter-crds", crdDir, manifest]);
    assert.equal(code, 2);
    assert.match(err, /^kerf check: --karpenter-version and --karpenter-crds both name the Karpenter API: give one\n/);
  });

  void it("reads a folder of CRDs, and a `kubectl get crd … -o yaml` List of them, as one cluster API", async () => {
    const list = path.join(dir, "list.yaml");
    const items = crdFiles.map((f) => readFileSync(path.join(crdDir, f), "utf8").replace(/^#.*\n---\n/, ""));
    writeFileSync(
      list,
      `apiVersion: v1\nkind: List\nitems:\n` +
        `${items.map((i) => `- ${i.trimEnd().replaceAll("\n", "\n  ")}`).join("\n")}\n`,
    );
    for (const source of [crdDir, list]) {
      const api = await readKarpenterCrds(source);
      assert.equal(api.source, "cluster");
      assert.equal(api.version, CRD_CONTRACT_VERSION, "kerf's generated CRDs name their contract release");
      assert.deepEqual(Object.keys(api.schemas).sort(), ["EC2NodeClass", "NodeClaim", "NodePool"]);
    }
    const { code, err } = await kerfCheck(["--karpenter-crds", list, manifest]);
    assert.equal(err, "");
    assert.equal(code, 0);
  });

  void it("names the path when a Karpenter CRD is missing", async () => {
    const partial = path.join(dir, "partial");
    mkdirSync(partial);
    writeFileSync(path.join(partial, crdFiles[0]!), readFileSync(path.join(crdDir, crdFiles[0]!)));
    const { code, err } = await kerfCheck(["--karpenter-crds", partial, manifest]);
    assert.equal(code, 2);
    assert.equal(
      err,
      `kerf check: reading Karpenter CRDs from ${partial}: no CRD nodeclaims.karpenter.sh; ` +
        `no CRD ec2nodeclasses.karpenter.k8s.aws\n`,
    );
  });

  void it("names file:line of a CRD without a v1 schema, and of a CRD given twice", async () => {
    const old = path.join(dir, "old.yaml");
    const nodePools = readFileSync(path.join(crdDir, crdFiles[0]!), "utf8");
    writeFileSync(
      old,
      `kind: ConfigMap\n---\n${nodePools.replace(/^#.*\n---\n/, "").replace(/^( +)name: v1$/m, "$1name: v1beta1")}`,
    );
    const missing = await kerfCheck(["--karpenter-crds", old, manifest]);
    assert.equal(missing.code, 2);
    assert.equal(
      missing.err,
      `kerf check: reading Karpenter CRDs at ${old}:3: ` +
        `nodepools.karpenter.sh has no v1 schema (Karpenter before v1.0?)\n`,
    );
    const twice = path.join(dir, "twice.yaml");
    writeFileSync(twice, `${nodePools}---\n${nodePools.replace(/^#.*\n---\n/, "")}`);
    const duplicate = await kerfCheck(["--karpenter-crds", twice, manifest]);
    assert.equal(duplicate.code, 2);
    assert.match(
      duplicate.err,
      new RegExp(
        `^kerf check: reading Karpenter CRDs at ${twice}:\\d+: ` +
          `nodepools.karpenter.sh again \\(first at ${twice}:3\\)\\n$`,
      ),
    );
  });

  void it("with --cluster, uses the default release and says why in one line when the cluster's CRDs cannot be read", async () => {
    const kubeconfig = path.join(dir, "refused.kubeconfig");
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Config",
        "current-context": "x",
        users: [{ name: "u", user: {} }],
        clusters: [{ name: "c", cluster: { server: "http://127.0.0.1:1" } }],
        contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
      }),
    );
    const lines: string[] = [];
    const api = await selectKarpenterApi({
      version: undefined,
      crds: undefined,
      cluster: true,
      kubeconfig,
      warn: (l) => lines.push(l),
    });
    assert.deepEqual([api?.source, api?.version], ["bundled", "1.14.1"]);
    assert.equal(lines.length, 1);
    assert.match(
      lines[0] ?? "",
      new RegExp(
        "^kerf check: reading the Karpenter CRDs from http:\\/\\/127\\.0\\.0\\.1:1: .+; " +
          "judging against the bundled Karpenter 1\\.14\\.1 \\(--karpenter-version to choose\\)\\n$",
      ),
    );
    const pinned = await selectKarpenterApi({
      version: "1.0",
      crds: undefined,
      cluster: true,
      kubeconfig,
      warn: (l) => lines.push(l),
    });
    assert.equal(pinned?.version, "1.0.8", "a version flag wins over --cluster, without reading it");
    assert.equal(lines.length, 1);
  });

  void it("reports an unreadable --karpenter-crds path in one line", async () => {
    const { code, err } = await kerfCheck(["--karpenter-crds", path.join(dir, "nope"), manifest]);
    assert.equal(code, 2);
    assert.equal(err.split("\n").filter((l) => l !== "").length, 1, err);
    assert.match(err, /nope/);
  });
});

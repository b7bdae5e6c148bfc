import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { runCheck } from "../check.ts";
import { capture } from "../captured-io.ts";

const pool = (
  o: { team?: string; cpu?: string; weight?: number; expireAfter?: string; name?: string } = {},
): string => `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: ${o.name ?? "general"}
spec:
${o.weight === undefined ? "" : `  weight: ${o.weight}\n`}  template:
    metadata:
      labels: {team: ${o.team ?? "a"}}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
${o.expireAfter === undefined ? "" : `      expireAfter: ${o.expireAfter}\n`}      requirements:
        - key: karpenter.k8s.aws/instance-category
          operator: In
          values: ["c", "m", "r"]
  limits: {cpu: "${o.cpu ?? "100"}", memory: 400Gi}
  disruption:
    consolidateAfter: 1m
    budgets: [{nodes: "1"}]
`;

const nodeClass = (role = "KarpenterNodeRole-demo"): string => `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  role: ${role}
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
`;

interface PreviewJson {
  against: string;
  unchanged: number;
  changed: {
    kind: string;
    name: string;
    change: string;
    replaces: string;
    causes: { reason: string; fields: { path: string; before: string; after: string }[] }[];
    unhashed: { path: string }[];
    nodePools: string[];
    pacing: { allowedNow: string }[];
  }[];
}

void describe("kerf check --diff", () => {
  let repo = "";
  let cwd = "";
  const git = (...args: string[]): string => execFileSync("git", ["-C", repo, ...args], { encoding: "utf8" });
  const write = (file: string, text: string): void => {
    mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
    writeFileSync(path.join(repo, file), text);
  };
  const check = async (...args: string[]): Promise<{ code: number; out: string; err: string }> => {
    const c = capture();
    const code = await runCheck(args, c.io);
    return { code, out: c.out(), err: c.err() };
  };
  const preview = async (...args: string[]): Promise<PreviewJson> => {
    const { code, out, err } = await check("--format", "json", ...args);
    assert.equal(code, 0, err);
    return (JSON.parse(out) as { driftPreview: PreviewJson }).driftPreview;
  };

  before(() => {
    cwd = process.cwd();
    repo = mkdtempSync(path.join(os.tmpdir(), "kerf-diff-"));
    git("init", "-q");
    git("config", "user.email", "test@example.com");
    git("config", "user.name", "test");
    write("clusters/pool.yaml", pool());
    write("clusters/class.yaml", nodeClass());
    write("clusters/gone.yaml", pool({ name: "gone" }));
    git("add", "-A");
    git("commit", "-qm", "initial");
    // Paths are given relative to the working directory, as a user in the repository types them.
    process.chdir(path.join(repo, "clusters"));
  });
  after(() => {
    process.chdir(cwd);
    rmSync(repo, { recursive: true, force: true });
  });

  void it("says a template label change replaces every node, names the field, and exits 0 (text)", async () => {
    write("clusters/pool.yaml", pool({ team: "b", cpu: "200" }));
    const { code, out } = await check("--diff", "HEAD", "pool.yaml");
    assert.equal(code, 0);
    assert.match(out, /^drift preview against HEAD at \S+Z: 1 changed object, 0 unchanged$/m);
    assert.match(out, /^pool\.yaml:1: NodePool\/general modified: replaces every node \(NodePoolDrifted\)$/m);
    assert.match(out, /^ {4}spec\.template\.metadata\.labels\.team: a → b$/m);
    assert.match(out, /^ {2}replaces no node: spec\.limits\.cpu: 100 → 200$/m);
    assert.match(out, /^ {2}budgets of NodePool\/general for Drifted \(schedules in UTC\): allowed now 1 node$/m);
    assert.match(out, /waves: node count unknown \(add --cluster/);
    assert.match(out, /1 Karpenter object checked in 1 file/);
  });

  void it("gives the same preview as JSON beside the check results", async () => {
    write("clusters/pool.yaml", pool({ team: "b" }));
    const { code, out } = await check("--diff", "HEAD", "--format", "json", "pool.yaml");
    assert.equal(code, 0);
    const json = JSON.parse(out) as { results: { name: string }[]; driftPreview: PreviewJson };
    assert.deepEqual(
      json.results.map((r) => r.name),
      ["general"],
    );
    const [p] = json.driftPreview.changed;
    assert.deepEqual(
      [json.driftPreview.against, p?.kind, p?.name, p?.replaces],
      ["HEAD", "NodePool", "general", "all"],
    );
    assert.deepEqual(p?.causes[0]?.fields, [{ path: "spec.template.metadata.labels.team", before: "a", after: "b" }]);
    assert.equal(p?.pacing[0]?.allowedNow, "1 node");
  });

  void it("compares with the defaults applied: writing out the default expireAfter replaces nothing", async () => {
    write("clusters/pool.yaml", pool({ expireAfter: "720h" }));
    const p = await preview("--diff", "HEAD", "pool.yaml");
    assert.deepEqual([p.changed.length, p.unchanged], [0, 1]);
  });

  void it("previews a directory: a changed EC2NodeClass with the NodePools using it, a new file, a deleted one", async () => {
    write("clusters/pool.yaml", pool());
    write("clusters/class.yaml", nodeClass("OtherRole"));
    write("clusters/new.yaml", pool({ name: "fresh" }));
    rmSync(path.join(repo, "clusters/gone.yaml"));
    const p = await preview("--diff", "HEAD");
    assert.deepEqual(
      p.changed.map((o) => [o.kind, o.name, o.change, o.replaces]),
      [
        ["EC2NodeClass", "default", "modified", "all"],
        ["NodePool", "fresh", "added", "none"],
        ["NodePool", "gone", "removed", "removes"],
      ],
    );
    assert.deepEqual(p.changed[0]?.nodePools, ["fresh", "general"]);
    assert.equal(p.unchanged, 1);
    rmSync(path.join(repo, "clusters/new.yaml"));
    git("checkout", "-q", "--", ".");
  });

  void it("compares with another directory at the same relative path", async () => {
    const old = mkdtempSync(path.join(os.tmpdir(), "kerf-diff-old-"));
    writeFileSync(path.join(old, "pool.yaml"), pool({ cpu: "50", weight: 3 }));
    const p = await preview("--diff", old, "pool.yaml");
    rmSync(old, { recursive: true, force: true });
    assert.deepEqual(
      p.changed.map((o) => [o.replaces, o.unhashed.map((f) => f.path)]),
      [["none", ["spec.limits.cpu", "spec.weight"]]],
    );
  });

  void it("exits 1 when the checked files are denied, as without --diff", async () => {
    write("clusters/pool.yaml", pool({ weight: 200 }));
    const { code, out } = await check("--diff", "HEAD", "pool.yaml");
    git("checkout", "-q", "--", ".");
    assert.equal(code, 1);
    assert.match(out, /NodePool\/general modified: no replacement: only spec\.weight changed/);
  });

  const usage: { name: string; args: string[]; message: RegExp }[] = [
    { name: "standard input", args: ["--diff", "HEAD", "-"], message: /standard input \(-\) has none/ },
    {
      name: "--cluster without --diff, with a path",
      args: ["--cluster", "pool.yaml"],
      message: /--cluster without --diff audits the cluster's stored objects: give no PATH/,
    },
    {
      name: "a format other than text or json",
      args: ["--diff", "HEAD", "--format", "sarif", "pool.yaml"],
      message: /--diff works with --format text or json/,
    },
    {
      name: "a revision that does not exist",
      args: ["--diff", "no-such-ref", "pool.yaml"],
      message: /reading --diff no-such-ref: not a directory, and not a git revision/,
    },
  ];
  void it("exits 2 naming the API server when --cluster cannot read it", async () => {
    const kubeconfig = path.join(repo, "kubeconfig");
    writeFileSync(
      kubeconfig,
      `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`,
    );
    const { code, err } = await check("--diff", "HEAD", "--cluster", "--kubeconfig", kubeconfig, "pool.yaml");
    assert.equal(code, 2);
    // The line before it says the cluster's CRDs could not be read either (the bundled release is named).
    assert.match(err, /^kerf check: reading NodeClaims and NodePools from https:\/\/127\.0\.0\.1:1: /m);
    assert.doesNotMatch(err, /\n\s+at /);
  });

  for (const u of usage) {
    void it(`exits 2 with a message, no stack, for ${u.name}`, async () => {
      const { code, err } = await check(...u.args);
      assert.equal(code, 2);
      assert.match(err, u.message);
      assert.doesNotMatch(err, /\n\s+at /);
    });
  }
});

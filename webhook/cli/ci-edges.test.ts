// The edges `kerf check .` meets in a real repository (issue 24 item 5): files that are not Kubernetes YAML are
// skipped with a notice, near misses of Karpenter's kinds and retired versions are denied, and `kerf simulate`
// reads several -f and directories.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { run } from "./main.ts";
import { capture } from "./captured-io.ts";

const root = path.resolve(import.meta.dirname, "../..");

interface JsonReport {
  results: Array<{
    file: string;
    kind: string;
    name: string;
    allowed: boolean;
    violations: Array<{ policy: string; path: string; message: string; line: number }>;
  }>;
  skippedFiles?: Array<{ file: string; reason: string }>;
}

async function checkJson(
  args: readonly string[],
): Promise<{ code: number; report: JsonReport | undefined; err: string }> {
  const c = capture();
  const code = await run(["check", "--format", "json", ...args], c.io);
  return { code, report: c.out() === "" ? undefined : (JSON.parse(c.out()) as JsonReport), err: c.err() };
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

/** A NodePool kerf allows; `name` and `apiVersion`/`kind` vary per case. */
function pool(name: string, head = "apiVersion: karpenter.sh/v1\nkind: NodePool"): string {
  return `${head}
metadata: {name: ${name}}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.k8s.aws/instance-category, operator: In, values: ["c", "m", "r"]}
  limits: {cpu: "100", memory: 400Gi}
`;
}

const HELM_TEMPLATE = /Helm or Go template/;

void describe("kerf check skips files that are not Kubernetes YAML, with a notice", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "kerf-ci-edges-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  // Each case: the file written beside a valid NodePool and EC2NodeClass, whether it is named on the command line
  // (else the directory is walked), and the reason the notice gives. A pool named "bad" in a skipped file would be
  // denied (no limits) if it were read.
  const cases = [
    {
      name: "a Helm template in a chart's templates folder, even one that parses as YAML",
      file: "chart/templates/nodepool.yaml",
      text: 'apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: "{{ .Release.Name }}"\nspec: {}\n',
      reason: HELM_TEMPLATE,
    },
    {
      name: "a Go template elsewhere that does not parse as YAML",
      file: "deploy/pool.yaml",
      text:
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: bad\n  labels:\n" +
        '    {{- include "labels" . | nindent 4 }}\n',
      reason: HELM_TEMPLATE,
    },
    {
      name: "files under node_modules, never read",
      file: "node_modules/some-package/pool.yaml",
      text: "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: [never closed\n",
      reason: /dependencies \(node_modules\)/,
      skippedAs: "node_modules/",
    },
    {
      name: "an explicitly named file that is not YAML or JSON",
      file: "README.md",
      text: "# Notes\n\nkey: [never closed\n",
      reason: /not YAML or JSON/,
      named: true,
    },
    {
      name: "YAML without apiVersion and kind (Helm values, CI configuration)",
      file: "values.yaml",
      text: "replicas: 2\nimage: {tag: v1}\n",
      reason: /no Kubernetes object/,
    },
    {
      name: "JSON data without apiVersion and kind",
      file: "data/prices.json",
      text: '{"m5.large": 0.096}',
      reason: /no Kubernetes object/,
    },
  ];

  for (const c of cases) {
    void it(`skips ${c.name} and checks the rest`, async () => {
      const caseDir = mkdtempSync(path.join(dir, "case-"));
      writeFileSync(path.join(caseDir, "pool.yaml"), `${pool("general")}---\n${nodeClass}`);
      mkdirSync(path.dirname(path.join(caseDir, c.file)), { recursive: true });
      writeFileSync(path.join(caseDir, c.file), c.text);
      const args = c.named === true ? [path.join(caseDir, "pool.yaml"), path.join(caseDir, c.file)] : [caseDir];
      const { code, report, err } = await checkJson(args);
      assert.equal(code, 0, err);
      assert.deepEqual(
        report?.results.map((r) => [r.kind, r.name, r.allowed]),
        [
          ["NodePool", "general", true],
          ["EC2NodeClass", "default", true],
        ],
      );
      const expected = path.join(caseDir, c.skippedAs ?? c.file);
      const skipped = report?.skippedFiles?.find((s) => s.file === expected);
      assert.ok(skipped !== undefined, `${expected} among ${JSON.stringify(report?.skippedFiles)}`);
      assert.match(skipped.reason, c.reason);
    });
  }

  void it("says what it skipped in the text report and its summary", async () => {
    const caseDir = mkdtempSync(path.join(dir, "text-"));
    mkdirSync(path.join(caseDir, "templates"));
    writeFileSync(path.join(caseDir, "pool.yaml"), `${pool("general")}---\n${nodeClass}`);
    writeFileSync(path.join(caseDir, "templates", "a.yaml"), "metadata:\n  name: {{ .Values.name }}\n");
    const c = capture();
    assert.equal(await run(["check", caseDir], c.io), 0, c.err());
    assert.match(c.out(), /templates\/a\.yaml: notice skipped: a Helm or Go template/);
    assert.match(
      c.out(),
      /2 Karpenter objects checked in 1 file, 1 file skipped \(not Kubernetes YAML\): nothing denied/,
    );
  });

  void it("keeps exit 2 for a manifest that does not parse, and exit 1 for a denied object beside a template", async () => {
    const caseDir = mkdtempSync(path.join(dir, "errors-"));
    writeFileSync(
      path.join(caseDir, "broken.yaml"),
      "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: [x\n",
    );
    const broken = capture();
    assert.equal(await run(["check", caseDir], broken.io), 2);
    assert.match(broken.err(), /broken\.yaml:\d+:\d+/);
    rmSync(path.join(caseDir, "broken.yaml"));
    mkdirSync(path.join(caseDir, "templates"));
    writeFileSync(path.join(caseDir, "templates", "t.yaml"), "name: {{ .Values.name }}\n");
    writeFileSync(
      path.join(caseDir, "pool.yaml"),
      `${pool("heavy").replace("spec:\n  template", "spec:\n  weight: 200\n  template")}---\n${nodeClass}`,
    );
    const { code, report } = await checkJson([caseDir]);
    assert.equal(code, 1);
    assert.equal(report?.results.find((r) => r.name === "heavy")?.allowed, false);
  });

  void it("passes kerf's own repository: templates and data files skipped, what is broken on purpose ignored", async () => {
    const { code, report, err } = await checkJson([root]);
    // .kerfignore lists the deliberately broken examples and the simulate scenarios.
    assert.equal(code, 0, `${err}${JSON.stringify(report?.results.filter((r) => !r.allowed).map((r) => r.file))}`);
    const skipped = report?.skippedFiles ?? [];
    assert.ok(skipped.some((s) => s.file.includes(`${path.sep}templates${path.sep}`) && HELM_TEMPLATE.test(s.reason)));
    assert.ok(skipped.some((s) => s.file === path.join(root, "node_modules") + path.sep));
    assert.ok((report?.results.length ?? 0) > 10, "the examples are checked");
  });
});

void describe("kerf check denies near misses of Karpenter's kinds and retired versions, with a hint", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "kerf-near-miss-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const cases: Array<{ apiVersion: string; kind: string; path: "apiVersion" | "kind"; hint: RegExp }> = [
    {
      apiVersion: "karpenter.sh/v1",
      kind: "Nodepool",
      path: "kind",
      hint: /did you mean apiVersion: karpenter\.sh\/v1, kind: NodePool\?/,
    },
    { apiVersion: "karpenter.sh/v1", kind: "nodepool", path: "kind", hint: /kind: NodePool\?/ },
    { apiVersion: "karpenter.sh/v1", kind: "NodePools", path: "kind", hint: /kind: NodePool\?/ },
    { apiVersion: "karpenter.sh/v1", kind: "NodeClam", path: "kind", hint: /kind: NodeClaim\?/ },
    {
      apiVersion: "karpenter.k8s.aws/v1",
      kind: "Ec2NodeClass",
      path: "kind",
      hint: /karpenter\.k8s\.aws\/v1, kind: EC2NodeClass\?/,
    },
    { apiVersion: "karpenter.k8s.aws/v1", kind: "EC2NodeClas", path: "kind", hint: /kind: EC2NodeClass\?/ },
    {
      apiVersion: "karpenter.k8s.aws/v1",
      kind: "NodePool",
      path: "apiVersion",
      hint: /NodePool is not served as karpenter\.k8s\.aws\/v1: write apiVersion: karpenter\.sh\/v1/,
    },
    {
      apiVersion: "karpenter.sh/v1",
      kind: "EC2NodeClass",
      path: "apiVersion",
      hint: /write apiVersion: karpenter\.k8s\.aws\/v1, kind: EC2NodeClass/,
    },
    {
      apiVersion: "karpenter.sh/v1beta1",
      kind: "NodePool",
      path: "apiVersion",
      hint: new RegExp(
        "Karpenter 1\\.1 stopped serving karpenter\\.sh\\/v1beta1.*write apiVersion: " +
          "karpenter\\.sh\\/v1, kind: NodePool",
      ),
    },
    {
      apiVersion: "karpenter.sh/v1beta1",
      kind: "NodeClaim",
      path: "apiVersion",
      hint: /write apiVersion: karpenter\.sh\/v1, kind: NodeClaim/,
    },
    {
      apiVersion: "karpenter.k8s.aws/v1beta1",
      kind: "EC2NodeClass",
      path: "apiVersion",
      hint: /stopped serving karpenter\.k8s\.aws\/v1beta1.*kind: EC2NodeClass/,
    },
    {
      apiVersion: "karpenter.sh/v1alpha5",
      kind: "Provisioner",
      path: "apiVersion",
      hint: /v0\.33 stopped serving karpenter\.sh\/v1alpha5.*kind: NodePool/,
    },
    {
      apiVersion: "karpenter.k8s.aws/v1alpha1",
      kind: "AWSNodeTemplate",
      path: "apiVersion",
      hint: /AWSNodeTemplate became EC2NodeClass.*kind: EC2NodeClass/,
    },
  ];

  for (const c of cases) {
    void it(`denies ${c.apiVersion} ${c.kind} at its ${c.path} line`, async () => {
      const file = path.join(dir, `${c.kind}-${c.apiVersion.replace(/\W/g, "-")}.yaml`);
      writeFileSync(file, `# a comment first\n${pool("near", `apiVersion: ${c.apiVersion}\nkind: ${c.kind}`)}`);
      const { code, report, err } = await checkJson([file]);
      assert.equal(code, 1, err);
      const [result] = report?.results ?? [];
      assert.equal(result?.allowed, false);
      assert.equal(result?.name, "near");
      assert.deepEqual(
        result?.violations.map((v) => [v.policy, v.path, v.line]),
        [["karpenter-kind", c.path, c.path === "apiVersion" ? 2 : 3]],
      );
      assert.match(result?.violations[0]?.message ?? "", c.hint);
    });
  }

  void it("checks a NodeOverlay (karpenter.sh/v1alpha1) and still skips other groups' kinds", async () => {
    const file = path.join(dir, "others.yaml");
    const overlay =
      "apiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata: {name: o}\nspec: {requirements: []}\n";
    writeFileSync(
      file,
      `${overlay}---\napiVersion: example.com/v1\nkind: Nodepool\nmetadata: {name: x}\n---\napiVersion: v1\n` +
        `kind: ConfigMap\nmetadata: {name: c}\n`,
    );
    const c = capture();
    assert.equal(await run(["check", file], c.io), 0, c.err());
    assert.match(c.out(), /1 Karpenter object checked in 1 file, 2 other objects skipped: nothing denied/);
  });
});

void describe("kerf simulate reads several -f and directories", () => {
  let dir = "";
  const workshop = readFileSync(path.join(root, "manifests/examples/scenarios/eks-workshop-inflate.yaml"), "utf8");
  const [poolDoc, classDoc, deploymentDoc] = workshop.split(/^---\n/m);
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "kerf-sim-files-"));
    mkdirSync(path.join(dir, "scenario"));
    writeFileSync(path.join(dir, "scenario", "nodepool.yaml"), `${poolDoc ?? ""}---\n${classDoc ?? ""}`);
    writeFileSync(path.join(dir, "scenario", "workload.yaml"), deploymentDoc ?? "");
    writeFileSync(
      path.join(dir, "scenario", "notes.txt"),
      "not read: a directory contributes its .yaml/.yml/.json files\n",
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function planOf(
    args: readonly string[],
  ): Promise<{ code: number; nodeClaims: Array<{ instanceType: string; pods: string[] }>; err: string }> {
    const c = capture();
    const code = await run(["simulate", "--format", "json", ...args], c.io);
    const nodeClaims =
      code === 0
        ? (JSON.parse(c.out()) as { nodeClaims: Array<{ instanceType: string; pods: string[] }> }).nodeClaims
        : [];
    return { code, nodeClaims, err: c.err() };
  }

  const cases = [
    {
      name: "two -f files as one scenario",
      args: (d: string) => [
        "-f",
        path.join(d, "scenario", "nodepool.yaml"),
        "-f",
        path.join(d, "scenario", "workload.yaml"),
      ],
    },
    { name: "a directory given to -f", args: (d: string) => ["-f", path.join(d, "scenario")] },
  ];
  for (const c of cases) {
    void it(`plans the workshop's m5.large from ${c.name}`, async () => {
      const { code, nodeClaims, err } = await planOf(c.args(dir));
      assert.equal(code, 0, err);
      assert.deepEqual(
        nodeClaims.map((n) => [n.instanceType, n.pods.length]),
        [["m5.large", 5]],
      );
    });
  }

  void it("plans nothing for the pods alone: the last -f does not replace the first", async () => {
    const { code, nodeClaims } = await planOf(["-f", path.join(dir, "scenario", "workload.yaml")]);
    assert.equal(code, 0);
    assert.deepEqual(nodeClaims, []);
  });

  void it("names a missing file without a stack trace, and exits 2", async () => {
    const { code, err } = await planOf(["-f", path.join(dir, "scenario"), "-f", path.join(dir, "missing.yaml")]);
    assert.equal(code, 2);
    assert.match(err, /^kerf simulate: reading .*missing\.yaml: no such file or directory\n$/);
  });

  void it("points at the file of the bad object when the scenario spans files", async () => {
    const bad = path.join(dir, "bad-pod.yaml");
    writeFileSync(bad, "kind: Pod\nmetadata: {name: x}\nspec:\n  containers: [{resources: {requests: {cpu: lots}}}]\n");
    const { code, err } = await planOf(["-f", path.join(dir, "scenario"), "-f", bad]);
    assert.equal(code, 2);
    assert.match(err, /bad-pod\.yaml:1:1: reading Pod x: parsing quantity "lots"/);
  });
});

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { runCheck } from "./check.ts";
import { capture } from "./captured-io.ts";

const nodeClass = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  role: KarpenterNodeRole-demo
  amiSelectorTerms:
    - alias: al2023@latest
  subnetSelectorTerms:
    - tags: {karpenter.sh/discovery: demo}
  securityGroupSelectorTerms:
    - tags: {karpenter.sh/discovery: demo}
`;

const badWeight = `apiVersion: v1
kind: ConfigMap
metadata: {name: unrelated}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: heavy
spec:
  weight: 200
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - key: kubernetes.io/arch
          operator: In
          values: ["amd64"]
`;

const validPool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: general
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - key: karpenter.k8s.aws/instance-category
          operator: In
          values: ["c", "m", "r"]
  limits: {cpu: "100", memory: 400Gi}
`;

void describe("kerf check", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "kerf-check-"));
    writeFileSync(path.join(dir, "class.yaml"), nodeClass);
    writeFileSync(path.join(dir, "bad.yaml"), badWeight);
    writeFileSync(path.join(dir, "broken.yaml"), "kind: NodePool\nspec: {weight: [1}\n");
    writeFileSync(path.join(dir, "policy.yaml"), "policies:\n  no-such-policy: warn\n");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  void it("exits 0 and reports nothing denied for a valid EC2NodeClass", async () => {
    const c = capture();
    assert.equal(await runCheck([path.join(dir, "class.yaml")], c.io), 0);
    assert.match(c.out(), /1 Karpenter object checked in 1 file: nothing denied/);
  });

  void it("exits 1 and names file:line:column of the offending field for a denied object", async () => {
    const c = capture();
    const file = path.join(dir, "bad.yaml");
    assert.equal(await runCheck([file], c.io), 1);
    assert.match(
      c.out(),
      new RegExp(`^${file.replace(/[.\\]/g, "\\$&")}:10:3: deny NodePool/heavy spec\\.weight: `, "m"),
    );
    assert.match(c.out(), /1 other object skipped/);
  });

  void it("reads standard input for -", async () => {
    const c = capture({ stdin: badWeight });
    assert.equal(await runCheck(["-", "--format", "json"], c.io), 1);
    const report = JSON.parse(c.out()) as {
      results: Array<{
        file: string;
        line: number;
        kind: string;
        name: string;
        allowed: boolean;
        violations: Array<{ path: string; line: number; column: number }>;
      }>;
    };
    assert.equal(report.results.length, 1);
    const [result] = report.results;
    assert.deepEqual(
      [result?.file, result?.line, result?.kind, result?.name, result?.allowed],
      ["<stdin>", 5, "NodePool", "heavy", false],
    );
    assert.deepEqual(
      result?.violations.find((v) => v.path === "spec.weight"),
      { ...result?.violations.find((v) => v.path === "spec.weight"), line: 10, column: 3 },
    );
  });

  void it("prints the defaulting patch with --show-defaults", async () => {
    const c = capture({ stdin: badWeight });
    await runCheck(["-", "--show-defaults"], c.io);
    assert.match(c.out(), /^ {2}add \/spec\/template\/spec\/expireAfter "720h"$/m);
  });

  void it("passes a valid NodePool checked on its own with --show-defaults, noting the unchecked EC2NodeClass", async () => {
    const c = capture({ stdin: validPool });
    assert.equal(await runCheck(["-", "--show-defaults"], c.io), 0, c.out() + c.err());
    assert.match(
      c.out(),
      new RegExp(
        "^<stdin>:8:\\d+: notice NodePool\\/general spec\\.template\\.spec\\.nodeClassRef\\.name: " +
          'EC2NodeClass "default" was not checked',
        "m",
      ),
    );
    assert.match(c.out(), /^ {2}add \/spec\/template\/spec\/expireAfter "720h"$/m);
    assert.match(c.out(), /nothing denied, 1 notice$/m);
  });

  void it("denies a NodePool whose EC2NodeClass is misspelt among the checked ones, suggesting the closest", async () => {
    const c = capture({ stdin: `${nodeClass}---\n${validPool.replace("name: default}", "name: defualt}")}` });
    assert.equal(await runCheck(["-"], c.io), 1);
    assert.match(
      c.out(),
      /deny NodePool\/general spec\.template\.spec\.nodeClassRef\.name: .*did you mean "default"\?/,
    );
  });

  const usageErrors: Array<[string, string[], RegExp]> = [
    ["no input", [], /no input/],
    ["an unknown format", ["--format", "xml", "x"], /unknown --format "xml"/],
    ["an unknown flag", ["--frobnicate"], /Unknown option '--frobnicate'/],
  ];
  for (const [what, args, message] of usageErrors) {
    void it(`exits 2 with a one-line usage error for ${what}`, async () => {
      const c = capture();
      assert.equal(await runCheck(args, c.io), 2);
      assert.match(c.err(), message);
      assert.doesNotMatch(c.err(), /\n\s+at /);
    });
  }

  void it("exits 2 naming file and line for unparseable YAML, without a stack trace", async () => {
    const c = capture();
    assert.equal(await runCheck([dir], c.io), 2);
    assert.match(c.err(), /parsing .*broken\.yaml:2:\d+: /);
    assert.doesNotMatch(c.err(), /\n\s+at /);
  });

  void it("exits 2 for a missing file", async () => {
    const c = capture();
    assert.equal(await runCheck([path.join(dir, "absent.yaml")], c.io), 2);
    assert.match(c.err(), /reading .*absent\.yaml: no such file or directory/);
  });

  void it("exits 2 for an invalid --policy-config, naming the file", async () => {
    const c = capture();
    const config = path.join(dir, "policy.yaml");
    assert.equal(await runCheck(["--policy-config", config, path.join(dir, "class.yaml")], c.io), 2);
    assert.match(c.err(), new RegExp(`parsing policy config ${config.replace(/[.\\]/g, "\\$&")}: `));
  });
});

void describe("kerf check: hostile YAML", () => {
  const cases: Array<[string, string, RegExp]> = [
    [
      "an unresolved alias",
      "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: *nowhere\n",
      /^kerf check: parsing <stdin>:4:9: alias \*nowhere has no anchor/,
    ],
    [
      "an alias bomb",
      `apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: lol}\nspec:\n` +
        `  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n${Array.from(
          { length: 8 },
          (_, i) =>
            `  ${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} ` +
            `[${Array.from({ length: 10 }, () => `*${String.fromCharCode(97 + i)}`).join(", ")}]`,
        ).join("\n")}\n`,
      /^kerf check: parsing <stdin>:6:\d+: YAML aliases expand beyond the limit/,
    ],
    [
      "JSON nested too deep",
      `{"a": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`,
      /^kerf check: parsing <stdin>:1:\d+: /,
    ],
  ];
  for (const [what, text, message] of cases) {
    void it(`exits 2 for ${what} with file:line and no stack trace`, async () => {
      const c = capture({ stdin: text });
      assert.equal(await runCheck(["-"], c.io), 2);
      assert.match(c.err(), message);
      assert.doesNotMatch(c.err(), /\n\s+at /);
    });
  }
});

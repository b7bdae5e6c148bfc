import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Report } from "./report.ts";
import { reporters } from "./registry.ts";
import { renderText } from "./text.ts";

const report: Report = {
  files: 2,
  skipped: 1,
  results: [
    {
      file: "pools/default.yaml",
      line: 1,
      column: 1,
      kind: "NodePool",
      name: "default",
      allowed: false,
      violations: [
        {
          policy: "nodepool.budget-schedule",
          severity: "deny",
          path: "spec.disruption.budgets[1].schedule",
          message: "invalid cron: 6 fields",
          line: 12,
          column: 11,
        },
        {
          policy: "nodepool.spot-flexibility",
          severity: "warn",
          path: "spec.template.spec.requirements",
          message: "only 4 instance types, < 15",
          line: 20,
          column: 7,
        },
        {
          policy: "nodeclassref-resolves",
          severity: "notice",
          path: "spec.template.spec.nodeClassRef.name",
          message: "not checked",
          line: 9,
          column: 9,
        },
      ],
      patch: [{ op: "add", path: "/spec/template/spec/expireAfter", value: "720h" }],
    },
    {
      file: "classes/default.yaml",
      line: 3,
      column: 1,
      kind: "EC2NodeClass",
      name: "default",
      allowed: true,
      violations: [],
      patch: [],
    },
  ],
};

const plain = { color: false, showDefaults: false };

void describe("kerf check reporters", () => {
  void it("text prints file:line:column, severity, object, path and message per finding", () => {
    const out = renderText(report, plain);
    assert.match(
      out,
      new RegExp(
        "^pools\\/default\\.yaml:12:11: deny NodePool\\/default " +
          "spec\\.disruption\\.budgets\\[1\\]\\.schedule: invalid cron: 6 fields \\[nodepool\\.budget-schedule\\]$",
        "m",
      ),
    );
    assert.match(out, /^pools\/default\.yaml:20:7: warn NodePool\/default /m);
    assert.match(out, /^pools\/default\.yaml:9:9: notice NodePool\/default /m);
    assert.match(
      out,
      new RegExp(
        "2 Karpenter objects checked in 2 files, " +
          "1 other object skipped: 1 denied finding in 1 object, 1 warning, 1 notice$",
        "m",
      ),
    );
    assert.doesNotMatch(out, /\u001b\[/);
  });

  void it("text colours severities only when asked", () => {
    assert.match(renderText(report, { color: true, showDefaults: false }), /\u001b\[31mdeny\u001b\[0m/);
  });

  void it("text lists the defaulting patch with --show-defaults", () => {
    assert.match(
      renderText(report, { color: false, showDefaults: true }),
      /^ {2}add \/spec\/template\/spec\/expireAfter "720h"$/m,
    );
  });

  void it("json follows the results contract", () => {
    const parsed = JSON.parse(reporters.json?.(report, plain) ?? "") as { results: Array<Record<string, unknown>> };
    assert.deepEqual(Object.keys(parsed.results[0] ?? {}), [
      "file",
      "line",
      "kind",
      "name",
      "allowed",
      "violations",
      "patch",
    ]);
    assert.deepEqual(
      parsed.results[0]?.violations,
      report.results[0]?.violations.map((v) => ({ ...v })),
    );
    assert.deepEqual(parsed.results[0]?.patch, [{ op: "add", path: "/spec/template/spec/expireAfter", value: "720h" }]);
  });

  void it("sarif places each result at its real line and column with one rule per policy", () => {
    const log = JSON.parse(reporters.sarif?.(report, plain) ?? "") as {
      version: string;
      runs: Array<{
        tool: { driver: { rules: Array<{ id: string }> } };
        results: Array<{
          ruleId: string;
          level: string;
          locations: Array<{
            physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number; startColumn: number } };
          }>;
        }>;
      }>;
    };
    assert.equal(log.version, "2.1.0");
    const run = log.runs[0];
    assert.deepEqual(
      run?.tool.driver.rules.map((r) => r.id),
      ["nodeclassref-resolves", "nodepool.budget-schedule", "nodepool.spot-flexibility"],
    );
    assert.deepEqual(
      run?.results.map((r) => [
        r.ruleId,
        r.level,
        r.locations[0]?.physicalLocation.region.startLine,
        r.locations[0]?.physicalLocation.region.startColumn,
      ]),
      [
        ["nodepool.budget-schedule", "error", 12, 11],
        ["nodepool.spot-flexibility", "warning", 20, 7],
        ["nodeclassref-resolves", "note", 9, 9],
      ],
    );
    assert.equal(run?.results[0]?.locations[0]?.physicalLocation.artifactLocation.uri, "pools/default.yaml");
  });

  void it("junit reports one test case per object with deny findings as failures", () => {
    const xml = reporters.junit?.(report, plain) ?? "";
    assert.match(xml, /<testsuites name="kerf check" tests="2" failures="1" errors="0">/);
    assert.match(
      xml,
      new RegExp(
        '<testcase classname="pools\\/default.yaml" name="NodePool\\/default" ' +
          'file="pools\\/default.yaml" line="1">\\n' +
          '\\s+<failure message="spec.disruption.budgets\\[1\\].schedule: invalid cron: 6 fields" type="deny">',
      ),
    );
    assert.match(
      xml,
      new RegExp(
        '<testcase classname="classes\\/default.yaml" name="EC2NodeClass\\/default" ' +
          'file="classes\\/default.yaml" line="3">\\n\\s+<\\/testcase>',
      ),
    );
  });

  void it("github emits one workflow command per finding with escaped properties", () => {
    const lines = (reporters.github?.(report, plain) ?? "").trim().split("\n");
    assert.deepEqual(lines, [
      "::error file=pools/default.yaml,line=12,col=11,title=kerf nodepool.budget-schedule::NodePool/default " +
        "spec.disruption.budgets[1].schedule: invalid cron: 6 fields",
      "::warning file=pools/default.yaml,line=20,col=7,title=kerf nodepool.spot-flexibility::NodePool/default " +
        "spec.template.spec.requirements: only 4 instance types, < 15",
      "::notice file=pools/default.yaml,line=9,col=9,title=kerf nodeclassref-resolves::NodePool/default " +
        "spec.template.spec.nodeClassRef.name: not checked",
    ]);
  });

  void it("github escapes newlines and percent signs in messages", () => {
    const single: Report = {
      files: 1,
      skipped: 0,
      results: [
        { ...report.results[0]!, violations: [{ ...report.results[0]!.violations[0]!, message: "50%\nnext" }] },
      ],
    };
    assert.match(reporters.github?.(single, plain) ?? "", /50%25%0Anext$/m);
  });
});

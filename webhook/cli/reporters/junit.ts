/** `--format junit`: one test suite per file and one test case per Karpenter object; deny findings are failures. */
import { objectLabel, type ObjectResult, type Reporter } from "./report.ts";

function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "");
}

function testCase(result: ObjectResult): string {
  const denies = result.violations.filter((v) => v.severity === "deny");
  const warns = result.violations.filter((v) => v.severity !== "deny");
  const line = (v: ObjectResult["violations"][number]): string =>
    `${result.file}:${v.line}:${v.column}: ${v.path}: ${v.message} [${v.policy}]`;
  const head =
    `    <testcase classname="${escapeXml(result.file)}" name="${escapeXml(objectLabel(result))}" ` +
    `file="${escapeXml(result.file)}" line="${result.line}">`;
  const body: string[] = [];
  if (denies.length > 0) {
    const first = denies[0];
    const message = first === undefined ? "" : `${first.path}: ${first.message}`;
    body.push(
      `      <failure message="${escapeXml(message)}" type="deny">${escapeXml(denies.map(line).join("\n"))}</failure>`,
    );
  }
  if (warns.length > 0)
    body.push(`      <system-out>${escapeXml(warns.map((v) => `${v.severity} ${line(v)}`).join("\n"))}</system-out>`);
  return [head, ...body, "    </testcase>"].join("\n");
}

function groupByFile(results: readonly ObjectResult[]): Map<string, ObjectResult[]> {
  const groups = new Map<string, ObjectResult[]>();
  for (const r of results) groups.set(r.file, [...(groups.get(r.file) ?? []), r]);
  return groups;
}

/** A JUnit XML document (the Jenkins/GitLab dialect: testsuites > testsuite > testcase). */
export const renderJunit: Reporter = (report) => {
  const suites = [...groupByFile(report.results)].map(([file, results]) => {
    const failures = results.filter((r) => !r.allowed).length;
    const cases = results.map(testCase).join("\n");
    return (
      `  <testsuite name="${escapeXml(file)}" tests="${results.length}" failures="${failures}" ` +
      `errors="0" skipped="0">\n${cases}\n  </testsuite>`
    );
  });
  const skipped = report.skippedFiles ?? [];
  if (skipped.length > 0) {
    const cases = skipped.map(
      (f) =>
        `    <testcase classname="${escapeXml(f.file)}" name="${escapeXml(f.file)}" file="${escapeXml(f.file)}">\n` +
        `      <skipped message="${escapeXml(f.reason)}"/>\n    </testcase>`,
    );
    suites.push(
      `  <testsuite name="skipped files" tests="${skipped.length}" failures="0" ` +
        `errors="0" skipped="${skipped.length}">\n${cases.join("\n")}\n  </testsuite>`,
    );
  }
  const failures = report.results.filter((r) => !r.allowed).length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="kerf check" tests="${report.results.length}" failures="${failures}" errors="0">`,
    ...suites,
    "</testsuites>",
    "",
  ].join("\n");
};

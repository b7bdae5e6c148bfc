/** `--format sarif`: SARIF 2.1.0 for code scanning, one rule per kerf policy, results at their real line and column. */
import path from "node:path";
import pkg from "../../../package.json" with { type: "json" };
import type { Reporter, SkippedFile, Violation } from "./report.ts";

const SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";

/** A repository-relative URI with forward slashes, as code scanning expects. */
function artifactUri(file: string): string {
  const relative = path.isAbsolute(file) ? path.relative(process.cwd(), file) : file;
  return relative.split(path.sep).join("/");
}

function ruleIds(violations: readonly Violation[]): string[] {
  return [...new Set(violations.map((v) => v.policy))].sort();
}

const LEVEL = { deny: "error", warn: "warning", notice: "note" } as const;

/** The skipped files as tool notifications (notes), so code scanning shows what was not checked. */
function invocations(skipped: readonly SkippedFile[]): { invocations?: unknown[] } {
  if (skipped.length === 0) return {};
  const toolExecutionNotifications = skipped.map((s) => ({
    level: "note",
    message: { text: `skipped: ${s.reason}` },
    locations: [{ physicalLocation: { artifactLocation: { uri: artifactUri(s.file) } } }],
  }));
  return { invocations: [{ executionSuccessful: true, toolExecutionNotifications }] };
}

/** One SARIF log with a single run. */
export const renderSarif: Reporter = (report) => {
  const all = report.results.flatMap((r) => r.violations);
  const ids = ruleIds(all);
  const results = report.results.flatMap((r) =>
    r.violations.map((v) => ({
      ruleId: v.policy,
      ruleIndex: ids.indexOf(v.policy),
      level: LEVEL[v.severity],
      message: { text: `${r.kind}/${r.name} ${v.path}: ${v.message}` },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: artifactUri(r.file) },
            region: { startLine: v.line, startColumn: v.column },
          },
          logicalLocations: [{ name: v.path, fullyQualifiedName: `${r.kind}/${r.name}/${v.path}`, kind: "member" }],
        },
      ],
    })),
  );
  const log = {
    $schema: SCHEMA,
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "kerf",
            version: pkg.version,
            informationUri: "https://github.com/kerf/kerf",
            rules: ids.map((id) => ({ id, name: id, shortDescription: { text: id } })),
          },
        },
        results,
        ...invocations(report.skippedFiles ?? []),
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
};

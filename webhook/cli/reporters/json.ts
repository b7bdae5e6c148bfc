/**
 * `--format json`: the machine-readable contract
 * `{"results":[{file,line,kind,name,allowed,violations,patch[,explain]}]}`, with `--diff` also
 * `"driftPreview"`, `"skippedFiles"` ([{file, reason}]) when files were not Kubernetes YAML, and with
 * `--cluster` (an audit) `"cluster"` ({context, server, karpenterApi: {source, version}}).
 */
import type { Reporter } from "./report.ts";

/** One JSON document; field order is part of the contract. */
export const renderJson: Reporter = (report) => {
  const results = report.results.map((r) => ({
    file: r.file,
    line: r.line,
    kind: r.kind,
    name: r.name,
    allowed: r.allowed,
    violations: r.violations.map((v) => ({
      policy: v.policy,
      severity: v.severity,
      path: v.path,
      message: v.message,
      line: v.line,
      column: v.column,
    })),
    patch: r.patch,
    ...(r.explain === undefined ? {} : { explain: r.explain }),
  }));
  const preview = report.driftPreview === undefined ? {} : { driftPreview: report.driftPreview.json };
  const skipped =
    report.skippedFiles === undefined || report.skippedFiles.length === 0 ? {} : { skippedFiles: report.skippedFiles };
  const cluster = report.cluster === undefined ? {} : { cluster: report.cluster };
  return `${JSON.stringify({ results, ...preview, ...skipped, ...cluster }, null, 2)}\n`;
};

/** `--format text` (default): one `file:line:column` line per finding, grouped by object, coloured on a terminal. */
import { objectLabel, tally, type ObjectResult, type RenderOptions, type Reporter } from "./report.ts";

const codes = { red: "31", yellow: "33", green: "32", cyan: "36", dim: "2", bold: "1" } as const;

const SEVERITY_COLOUR = { deny: "red", warn: "yellow", notice: "cyan" } as const;

function paint(options: RenderOptions, colour: keyof typeof codes, text: string): string {
  return options.color ? `\u001b[${codes[colour]}m${text}\u001b[0m` : text;
}

function renderObject(result: ObjectResult, options: RenderOptions): string[] {
  const lines: string[] = [];
  for (const v of result.violations) {
    const severity = paint(options, SEVERITY_COLOUR[v.severity], v.severity);
    const where = `${result.file}:${v.line}:${v.column}`;
    lines.push(`${where}: ${severity} ${objectLabel(result)} ${v.path}: ${v.message} ${paint(options, "dim", `[${v.policy}]`)}`);
  }
  if (options.showDefaults && result.patch.length > 0) {
    lines.push(`${result.file}:${result.line}:${result.column}: ${paint(options, "bold", "defaults")} ${objectLabel(result)} would get:`);
    for (const op of result.patch) {
      const value = "value" in op ? ` ${JSON.stringify(op.value)}` : "";
      lines.push(`  ${op.op} ${op.path}${value}`);
    }
  }
  return lines;
}

function summary(report: Parameters<Reporter>[0], options: RenderOptions): string {
  const { denied, warnings, notices, deniedObjects } = tally(report);
  const checked = `${report.results.length} Karpenter object${report.results.length === 1 ? "" : "s"} checked in ${report.files} file${report.files === 1 ? "" : "s"}`;
  const skipped = report.skipped > 0 ? `, ${report.skipped} other object${report.skipped === 1 ? "" : "s"} skipped` : "";
  const outcome = denied > 0
    ? paint(options, "red", `${denied} denied finding${denied === 1 ? "" : "s"} in ${deniedObjects} object${deniedObjects === 1 ? "" : "s"}`)
    : paint(options, "green", "nothing denied");
  const warned = warnings > 0 ? `, ${paint(options, "yellow", `${warnings} warning${warnings === 1 ? "" : "s"}`)}` : "";
  const noted = notices > 0 ? `, ${paint(options, "cyan", `${notices} notice${notices === 1 ? "" : "s"}`)}` : "";
  return `${checked}${skipped}: ${outcome}${warned}${noted}`;
}

/** Human-readable findings followed by a one-line summary. */
export const renderText: Reporter = (report, options) => {
  const lines = report.results.flatMap((r) => renderObject(r, options));
  lines.push(summary(report, options));
  return `${lines.join("\n")}\n`;
};

/**
 * `--format github`: GitHub Actions workflow commands
 * (`::error file=…,line=…,col=…,title=…::…`) for inline PR annotations.
 */
import type { Reporter } from "./report.ts";

/** Escaping of the message part of a workflow command. */
function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** Escaping of a property value (file, title) of a workflow command. */
function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

const COMMAND = { deny: "error", warn: "warning", notice: "notice" } as const;

/** One annotation line per finding; allowed objects produce nothing. */
export const renderGithub: Reporter = (report) => {
  const lines = report.results.flatMap((r) =>
    r.violations.map((v) => {
      const command = COMMAND[v.severity];
      const props =
        `file=${escapeProperty(r.file)},line=${v.line},col=${v.column},` +
        `title=${escapeProperty(`kerf ${v.policy}`)}`;
      return `::${command} ${props}::${escapeData(`${r.kind}/${r.name} ${v.path}: ${v.message}`)}`;
    }),
  );
  for (const s of report.skippedFiles ?? []) {
    lines.push(
      `::notice file=${escapeProperty(s.file)},title=${escapeProperty("kerf skipped")}::` +
        `${escapeData(`skipped: ${s.reason}`)}`,
    );
  }
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
};

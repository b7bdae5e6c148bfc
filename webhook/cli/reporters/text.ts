/** `--format text` (default): one `file:line:column` line per finding, grouped by object, coloured on a terminal. */
import type { CapacityTypeExplanation, NodePoolExplanation, PricedType } from "../explain.ts";
import {
  objectLabel,
  tally,
  type ObjectResult,
  type RenderOptions,
  type Reporter,
  type SkippedFile,
  type ClusterNote,
} from "./report.ts";

const codes = { red: "31", yellow: "33", green: "32", cyan: "36", dim: "2", bold: "1" } as const;

const SEVERITY_COLOUR = { deny: "red", warn: "yellow", notice: "cyan" } as const;

/** `text` in `colour` when the output is coloured. */
export function paint(options: RenderOptions, colour: keyof typeof codes, text: string): string {
  return options.color ? `\u001b[${codes[colour]}m${text}\u001b[0m` : text;
}

function renderObject(result: ObjectResult, options: RenderOptions): string[] {
  const lines: string[] = [];
  for (const v of result.violations) {
    const severity = paint(options, SEVERITY_COLOUR[v.severity], v.severity);
    const where = `${result.file}:${v.line}:${v.column}`;
    lines.push(
      `${where}: ${severity} ${objectLabel(result)} ${v.path}: ${v.message} ${paint(options, "dim", `[${v.policy}]`)}`,
    );
  }
  if (options.showDefaults && result.patch.length > 0) {
    lines.push(
      `${result.file}:${result.line}:${result.column}: ${paint(options, "bold", "defaults")} ` +
        `${objectLabel(result)} would get:`,
    );
    for (const op of result.patch) {
      const value = "value" in op ? ` ${JSON.stringify(op.value)}` : "";
      lines.push(`  ${op.op} ${op.path}${value}`);
    }
  }
  if (result.explain !== undefined) {
    lines.push(
      `${result.file}:${result.line}:${result.column}: ${paint(options, "bold", "explain")} ${objectLabel(result)}:`,
    );
    lines.push(...explainLines(result.explain));
  }
  return lines;
}

function dollars(amount: number): string {
  return `$${amount < 1 ? amount.toFixed(4) : amount.toFixed(2)}/h`;
}

function priced(type: PricedType | null): string {
  return type === null ? "none" : `${type.instanceType} ${dollars(type.pricePerHour)}`;
}

function capacityTypeLine(name: string, e: CapacityTypeExplanation): string {
  if (e.instanceTypes === 0) return `  ${name}: no instance type`;
  const w = e.worstCase;
  const worst =
    w === null
      ? "unbounded (no limit bounds every matching type)"
      : `${dollars(w.pricePerHour)} (limit ${w.resource}=${w.limit} ` +
        `at $${w.ratePerUnit.toFixed(4)} per ${w.unit}-hour on ${w.instanceType})`;
  return (
    `  ${name}: ${e.instanceTypes} types, cheapest ${priced(e.cheapest)}, dearest ${priced(e.dearest)}; ` +
    `worst case under limits ${worst}`
  );
}

/** The spot line: priced, or (no bundled spot figures for the region) the count and why nothing is priced. */
function spotLine(e: NodePoolExplanation): string {
  if (e.prices?.spot !== null || e.spot.instanceTypes === 0) return capacityTypeLine("spot", e.spot);
  return (
    `  spot: ${e.spot.instanceTypes} types; no spot prices are bundled for ${e.prices.region}, ` +
    "so this prints on-demand prices only (a spot node costs at most its on-demand price)"
  );
}

/** Where the --explain prices come from (once per run: every NodePool is explained from the same catalog). */
function priceLines(report: Parameters<Reporter>[0]): string[] {
  const prices = report.results.find((r) => r.explain?.prices !== undefined)?.explain?.prices;
  if (prices === undefined) return [];
  const spot = prices.spot ?? `none bundled for ${prices.region}: spot is counted, not priced`;
  const heading = `explain prices (region ${prices.region})`;
  return [`${heading}: on-demand: ${prices.onDemand}`, `${heading}: spot: ${spot}`];
}

/** The --explain block of one NodePool, indented under its heading. */
function explainLines(e: NodePoolExplanation): string[] {
  const lines = [
    `  instance types: ${e.instanceTypes} match (spot ${e.spot.instanceTypes}, on-demand ${e.onDemand.instanceTypes})`,
  ];
  lines.push(capacityTypeLine("on-demand", e.onDemand), spotLine(e));
  if (e.allocatable !== null) {
    const { cpuCores: cpu, memoryGiB: memory, pods } = e.allocatable;
    lines.push(
      `  allocatable per node: cpu ${cpu.min}–${cpu.max} cores, memory ${memory.min}–${memory.max} GiB, ` +
        `pods ${pods.min}–${pods.max}`,
    );
  }
  return lines;
}

/** One notice per skipped file; a reason shared by many files (data JSON, CI configs) is one line naming a few. */
function skippedLines(skipped: readonly SkippedFile[], options: RenderOptions): string[] {
  const byReason = new Map<string, string[]>();
  for (const s of skipped) byReason.set(s.reason, [...(byReason.get(s.reason) ?? []), s.file]);
  const notice = paint(options, "cyan", "notice");
  return [...byReason].flatMap(([reason, files]) => {
    if (files.length <= 3) return files.map((f) => `${f}: ${notice} skipped: ${reason}`);
    return [
      `${notice} skipped ${files.length} files: ${reason}: ` +
        `${files.slice(0, 3).join(", ")} and ${files.length - 3} more`,
    ];
  });
}

/** `--cluster`: what was read and, per policy, the objects that violate it (the list to fix before enforcing). */
function clusterLines(report: Parameters<Reporter>[0], cluster: ClusterNote): string[] {
  const api = cluster.karpenterApi;
  const lines = [
    `cluster ${cluster.context} (${cluster.server}), judged against Karpenter ${api.version} (${api.source} CRDs):`,
  ];
  const byPolicy = new Map<string, Set<string>>();
  for (const r of report.results) {
    for (const v of r.violations) {
      if (v.severity === "notice") continue;
      const key = `${v.policy} (${v.severity})`;
      byPolicy.set(key, (byPolicy.get(key) ?? new Set()).add(objectLabel(r)));
    }
  }
  if (byPolicy.size === 0) lines.push("  no stored object violates a policy");
  for (const [policy, objects] of [...byPolicy].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`  ${policy}: ${count(objects.size, "object")}: ${[...objects].join(", ")}`);
  }
  return lines;
}

/** "1 file", "2 files". */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function summary(report: Parameters<Reporter>[0], options: RenderOptions): string {
  const { denied, warnings, notices, deniedObjects } = tally(report);
  const checked = `${count(report.results.length, "Karpenter object")} checked in ${count(report.files, "file")}`;
  const skipped = report.skipped > 0 ? `, ${count(report.skipped, "other object")} skipped` : "";
  const notKube =
    (report.skippedFiles?.length ?? 0) > 0
      ? `, ${count(report.skippedFiles?.length ?? 0, "file")} skipped (not Kubernetes YAML)`
      : "";
  const outcome =
    denied > 0
      ? paint(options, "red", `${count(denied, "denied finding")} in ${count(deniedObjects, "object")}`)
      : paint(options, "green", "nothing denied");
  const warned = warnings > 0 ? `, ${paint(options, "yellow", count(warnings, "warning"))}` : "";
  const noted = notices > 0 ? `, ${paint(options, "cyan", count(notices, "notice"))}` : "";
  return `${checked}${skipped}${notKube}: ${outcome}${warned}${noted}`;
}

/** Human-readable findings followed by a one-line summary. */
export const renderText: Reporter = (report, options) => {
  const lines = report.results.flatMap((r) => renderObject(r, options));
  lines.push(...priceLines(report));
  lines.push(...skippedLines(report.skippedFiles ?? [], options));
  if (report.cluster !== undefined) lines.push(...clusterLines(report, report.cluster));
  if (report.driftPreview !== undefined) lines.push(...report.driftPreview.text(options));
  lines.push(summary(report, options));
  return `${lines.join("\n")}\n`;
};

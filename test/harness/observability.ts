/**
 * The chart's observability as tests see it: the PromQL of every Grafana dashboard panel and variable and of every
 * PrometheusRule rule, the metric names each query reads, the series a `/metrics` page exports, and promtool (built
 * from the Go module proxy by .ci/testenv/promtool.sh) to check rules and queries as Prometheus parses them.
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { ensureBinaries } from "./binaries.ts";

const run = promisify(execFile);

/** One query and where it sits (dashboard and panel title, or alert name), for messages. */
export interface Query {
  readonly where: string;
  readonly expr: string;
}

interface Target {
  readonly expr?: string;
}
interface Panel {
  readonly title?: string;
  readonly targets?: readonly Target[];
  readonly panels?: readonly Panel[];
}
interface Variable {
  readonly name: string;
  readonly type: string;
  readonly query?: string | { readonly query?: string };
}
/** The parts of a Grafana dashboard JSON model the checks read. */
export interface Dashboard {
  readonly uid: string;
  readonly title: string;
  readonly panels: readonly Panel[];
  readonly templating?: { readonly list: readonly Variable[] };
}

/** Every query of a dashboard: each panel target (rows' nested panels too) and each query variable. */
export function dashboardQueries(dashboard: Dashboard): Query[] {
  const panels = (list: readonly Panel[]): Query[] =>
    list.flatMap((p) => [
      ...(p.targets ?? []).flatMap((t) =>
        t.expr === undefined ? [] : [{ where: `${dashboard.title} / ${p.title ?? "?"}`, expr: t.expr }],
      ),
      ...panels(p.panels ?? []),
    ]);
  const variables = (dashboard.templating?.list ?? [])
    .filter((v) => v.type === "query")
    .map((v) => ({
      where: `${dashboard.title} / variable ${v.name}`,
      expr: typeof v.query === "string" ? v.query : (v.query?.query ?? ""),
    }));
  return [...panels(dashboard.panels), ...variables];
}

interface Rule {
  readonly alert?: string;
  readonly record?: string;
  readonly expr: string;
}
interface RuleGroup {
  readonly name: string;
  readonly rules: readonly Rule[];
}

/** Every rule expression of a PrometheusRule's spec.groups. */
export function ruleQueries(groups: readonly RuleGroup[]): Query[] {
  return groups.flatMap((g) =>
    g.rules.map((r) => ({
      where: `${g.name} / ${r.alert ?? r.record ?? "?"}`,
      expr: r.expr,
    })),
  );
}

/** Grafana's variables replaced by values Prometheus parses: intervals by 5m, any other variable by `.*`. */
export function withoutGrafanaVariables(expr: string): string {
  return expr.replace(/\$__\w+/g, "5m").replace(/\$\{(\w+)(:\w+)?\}|\$(\w+)/g, ".*");
}

const KEYWORDS = new Set([
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "bool",
  "and",
  "or",
  "unless",
  "offset",
  "inf",
  "nan",
  "start",
  "end",
]);

/**
 * The metric names a PromQL query (or a Grafana `label_values(selector, label)` variable) reads. A tokenizer, not a
 * parser: string literals, `#` comments, label matchers, ranges and grouping labels are cut out; what remains is
 * function and aggregation names (followed by a parenthesis), keywords, numbers and durations, and metric names.
 * promtool checks that each query parses at all.
 */
export function metricNames(query: string): string[] {
  const names = new Set<string>();
  const expr = withoutGrafanaVariables(query).replace(/label_values\(\s*([^,]+?)\s*,\s*\w+\s*\)/g, "$1");
  for (const m of expr.matchAll(/__name__\s*=\s*"([^"]+)"/g)) names.add(m[1] ?? "");
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/#[^\n]*/g, " ")
    .replace(/\{[^{}]*\}/g, " ")
    .replace(/\[[^[\]]*\]/g, " ")
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)/g, " ");
  for (const m of stripped.matchAll(/(?<![\w.:])([A-Za-z_:][\w:]*)(\s*\()?/g)) {
    const [, name = "", call] = m;
    if (call === undefined && !KEYWORDS.has(name)) names.add(name);
  }
  return [...names].sort();
}

/**
 * The series names a Prometheus text page declares (`# TYPE` lines, so a labelled metric with no sample yet counts),
 * with the series a histogram (`_bucket`, `_sum`, `_count`) and a summary (`_sum`, `_count`) expose.
 */
export function exportedSeries(metricsText: string): Set<string> {
  const out = new Set<string>();
  for (const m of metricsText.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name = "", type] = m;
    out.add(name);
    if (type === "histogram") for (const suffix of ["_bucket", "_sum", "_count"]) out.add(`${name}${suffix}`);
    if (type === "summary") for (const suffix of ["_sum", "_count"]) out.add(`${name}${suffix}`);
  }
  return out;
}

let promtoolPath: Promise<string> | undefined;

/** promtool, built once into the cache (after ensure.sh, whose Go it uses). */
export function promtool(root: string): Promise<string> {
  promtoolPath ??= ensureBinaries(root).then(async () => {
    try {
      const script = path.join(root, ".ci/testenv/promtool.sh");
      const { stdout } = await run("bash", [script], { maxBuffer: 16 * 1024 * 1024, timeout: 40 * 60_000 });
      const found = stdout.match(/^PROMTOOL=(.+)$/m)?.[1];
      if (found === undefined) throw new Error(`promtool.sh printed no PROMTOOL= line: ${stdout}`);
      return found;
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr ?? "";
      throw new Error(`building promtool: ${stderr.split("\n").slice(-15).join("\n")}`, { cause: error });
    }
  });
  return promtoolPath;
}

/** Runs promtool; resolves with its output, rejects with it on a non-zero exit. */
export async function runPromtool(root: string, args: readonly string[]): Promise<string> {
  const binary = await promtool(root);
  try {
    const { stdout, stderr } = await run(binary, [...args], { maxBuffer: 16 * 1024 * 1024 });
    return `${stdout}${stderr}`;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    throw new Error(`promtool ${args.join(" ")}: ${e.stdout ?? ""}${e.stderr ?? ""}`, { cause: error });
  }
}

interface RenderedObject {
  readonly kind: string;
  readonly metadata: { readonly name: string };
  readonly data?: Record<string, string>;
  readonly spec?: unknown;
}

/**
 * The queries of a rendered chart's dashboards (ConfigMaps `<fullname>-dashboard-*`) and PrometheusRule, split by
 * the component whose `/metrics` page they read: the webhook dashboard and the kerf-webhook rule group read the
 * webhook's, the rest the operator's.
 */
export function chartQueries(objects: readonly RenderedObject[]): { operator: Query[]; webhook: Query[] } {
  const dashboards = objects
    .filter((o) => o.kind === "ConfigMap" && o.metadata.name.includes("-dashboard-"))
    .flatMap((o) => Object.values(o.data ?? {}).map((json) => JSON.parse(json) as Dashboard));
  const rules = objects
    .filter((o) => o.kind === "PrometheusRule")
    .flatMap((o) => ruleQueries((o.spec as { groups: RuleGroup[] }).groups));
  const queries = [...dashboards.flatMap(dashboardQueries), ...rules];
  const isWebhook = (q: Query): boolean => q.where.startsWith("kerf / Webhook") || q.where.startsWith("kerf-webhook /");
  return { operator: queries.filter((q) => !isWebhook(q)), webhook: queries.filter(isWebhook) };
}

/** `where: name` for every series a query reads that the page does not export (Prometheus' own `up` aside). */
export function unexported(queries: readonly Query[], exported: ReadonlySet<string>): string[] {
  return queries.flatMap((q) =>
    metricNames(q.expr)
      .filter((n) => n !== "up" && !exported.has(n))
      .map((n) => `${q.where}: ${n}`),
  );
}

/**
 * Series Karpenter's own dashboards query that Karpenter v1.15 does not export either (none is in
 * operator/observability/karpenter-metrics.json), and why: nothing kerf could be expected to serve.
 */
export const NOT_KARPENTER_SERIES: Readonly<Record<string, string>> = {
  node_time_seconds: "node-exporter's (the capacity dashboard's node uptime panel)",
  node_boot_time_seconds: "node-exporter's (the capacity dashboard's node uptime panel)",
  karpenter_allocation_controller_bind_duration_seconds_bucket: "Karpenter v0.x's; gone before v1",
  karpenter_allocation_controller_binpacking_duration_seconds_bucket: "Karpenter v0.x's; gone before v1",
  karpenter_allocation_controller_scheduling_duration_seconds_bucket: "Karpenter v0.x's; gone before v1",
};

/** Karpenter's getting-started dashboards, as shipped (test/fixtures/karpenter-dashboards/). */
export function karpenterDashboards(): Dashboard[] {
  const dir = path.join(import.meta.dirname, "..", "fixtures", "karpenter-dashboards");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => JSON.parse(readFileSync(path.join(dir, f), "utf8")) as Dashboard);
}

/** `dashboard / panel: series` for each series Karpenter's dashboards query that the page lacks (see above). */
export function karpenterDashboardGaps(exported: ReadonlySet<string>): string[] {
  const queries = karpenterDashboards().flatMap(dashboardQueries);
  return unexported(queries, exported).filter(
    (gap) => !Object.hasOwn(NOT_KARPENTER_SERIES, gap.split(": ").at(-1) ?? ""),
  );
}

/**
 * Reads Karpenter v1.15's Go sources (core, the AWS provider and operatorpkg, from the Go module cache) and prints
 * the table of every `karpenter_*` and `operator_*` metric they define: name, type, label names, buckets and the
 * source file. `node scripts/metrics/karpenter-metrics.ts --write` refreshes operator/observability/
 * karpenter-metrics.json, the fixture operator/observability/metrics.test.ts holds kerf's registry to.
 *
 * A reader of the declarations' shapes, not a Go parser: `opmetrics.NewPrometheus{Counter,Gauge,Histogram,Summary}`
 * calls with their `prometheus.*Opts` literal, label lists built from `opmetrics.Label` variables, string constants
 * (also across packages, through the file's imports) and the few helper functions that return label lists. What it
 * cannot evaluate it reports as an error rather than guess.
 */
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const MOD = process.env["GOMODCACHE"]
  ?? path.join(process.env["KERF_CACHE_DIR"] ?? path.join(os.homedir(), ".cache", "kerf"), "go", "mod");

/** Module path prefix → folder in the module cache, at the versions kerf is compatible with. */
const MODULES: Readonly<Record<string, string>> = {
  "sigs.k8s.io/karpenter": "sigs.k8s.io/karpenter@v1.15.0",
  "github.com/aws/karpenter-provider-aws": "github.com/aws/karpenter-provider-aws@v1.15.1",
  "github.com/awslabs/operatorpkg": "github.com/awslabs/operatorpkg@v0.0.0-20261002163259-5e8ed3699dea",
  "k8s.io/api": "k8s.io/api@v0.36.1",
};

/** Where metric declarations are searched (module-relative folders). */
const ROOTS = [
  "sigs.k8s.io/karpenter@v1.15.0/pkg",
  "github.com/aws/karpenter-provider-aws@v1.15.1/pkg",
];

export type MetricType = "counter" | "gauge" | "histogram" | "summary";

/** One row of the table. */
export interface KarpenterMetric {
  readonly name: string;
  readonly type: MetricType;
  readonly labels: readonly string[];
  readonly buckets?: readonly number[];
  readonly objectives?: readonly number[];
  readonly source: string;
}

class ExtractError extends Error {}

interface GoFile { readonly rel: string; readonly dir: string; readonly text: string; readonly imports: Map<string, string> }

const files = new Map<string, GoFile[]>();

function packageFiles(dir: string): GoFile[] {
  const cached = files.get(dir);
  if (cached !== undefined) return cached;
  let names: string[] = [];
  try { names = readdirSync(path.join(MOD, dir)); } catch { names = []; }
  const out = names.filter((n) => n.endsWith(".go") && !n.endsWith("_test.go")).map((n) => {
    const text = withoutComments(readFileSync(path.join(MOD, dir, n), "utf8"));
    const imports = new Map<string, string>();
    for (const m of text.matchAll(/^\s*(?:(\w+)\s+)?"([^"]+)"\s*$/gm)) {
      const importPath = m[2] ?? "";
      imports.set(m[1] ?? importPath.split("/").at(-1) ?? "", importPath);
    }
    return { rel: path.join(dir, n), dir, text, imports };
  });
  files.set(dir, out);
  return out;
}

/** Go source with `//` and `/* *\/` comments blanked, string literals kept. */
function withoutComments(text: string): string {
  return text.replace(/"(?:[^"\\\n]|\\.)*"|`[^`]*`|\/\/[^\n]*|\/\*[\s\S]*?\*\//g,
    (m) => (m.startsWith("/") ? " " : m));
}

function importDir(importPath: string): string | undefined {
  for (const [prefix, dir] of Object.entries(MODULES)) {
    if (importPath === prefix) return dir;
    if (importPath.startsWith(`${prefix}/`)) return `${dir}${importPath.slice(prefix.length)}`;
  }
  return undefined;
}

/** The text of the balanced bracket group opening at `open`. */
function balanced(text: string, open: number): string {
  const pairs: Record<string, string> = { "(": ")", "{": "}", "[": "]" };
  const stack: string[] = [];
  for (let i = open; i < text.length; i++) {
    const c = text[i] ?? "";
    if (c === "\"" || c === "`") {
      const end = c === "`" ? text.indexOf("`", i + 1) : /"(?:[^"\\]|\\.)*"/y.exec(text.slice(i))?.[0].length;
      i = c === "`" ? (end as number) : i + (end as number) - 1;
      continue;
    }
    if (pairs[c] !== undefined) stack.push(pairs[c]);
    else if (c === stack.at(-1)) {
      stack.pop();
      if (stack.length === 0) return text.slice(open + 1, i);
    }
  }
  throw new ExtractError(`unbalanced group at ${open}`);
}

/** Top-level comma-separated parts of an argument or element list. */
function splitTop(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  let quote = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? "";
    if (quote !== "") { if (c === "\\") i++; else if (c === quote) quote = ""; continue; }
    if (c === "\"" || c === "`") quote = c;
    else if ("({[".includes(c)) depth++;
    else if (")}]".includes(c)) depth--;
    else if (c === "," && depth === 0) { parts.push(text.slice(start, i).trim()); start = i + 1; }
  }
  parts.push(text.slice(start).trim());
  return parts.filter((p) => p !== "");
}

/** `Field: expr` entries of a struct literal body. */
function fields(body: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of splitTop(body)) {
    const m = /^(\w+)\s*:\s*([\s\S]+)$/.exec(part);
    if (m !== null) out.set(m[1] ?? "", (m[2] ?? "").trim());
  }
  return out;
}

/** The right-hand side of `ident = …` or `ident Type = …` at package level of dir, with the file it is in. */
function definition(dir: string, ident: string): { expr: string; file: GoFile } | undefined {
  for (const file of packageFiles(dir)) {
    const re = new RegExp(`(?:^|\\n)\\s*(?:const |var )?${ident}(?:\\s+[\\w.]+)?\\s*=\\s*`, "g");
    const m = re.exec(file.text);
    if (m === null) continue;
    const start = m.index + m[0].length;
    const rest = file.text.slice(start);
    const brace = /^[\w.[\]]*\{/.exec(rest) ?? /^[\w.]+\(/.exec(rest);
    if (brace !== null) {
      const open = start + brace[0].length - 1;
      return { expr: file.text.slice(start, open) + file.text[open] + balanced(file.text, open)
        + (file.text[open] === "{" ? "}" : ")"), file };
    }
    return { expr: (/^[^\n]*/.exec(rest)?.[0] ?? "").trim(), file };
  }
  return undefined;
}

/** Resolves a possibly package-qualified identifier used in file to its definition. */
function resolve(file: GoFile, ref: string): { expr: string; file: GoFile } {
  const [qualifier, ident] = ref.includes(".") ? ref.split(".") as [string, string] : [undefined, ref];
  const importPath = qualifier === undefined ? undefined : file.imports.get(qualifier);
  const dir = qualifier === undefined ? file.dir : (importPath === undefined ? undefined : importDir(importPath));
  const found = dir === undefined ? undefined : definition(dir, ident);
  if (found === undefined) throw new ExtractError(`${file.rel}: cannot resolve ${ref}`);
  return found;
}

/** A Go string expression: literals, constants, `+`, string(x), strings.ToLower(x), pretty.ToSnakeCase(x). */
function str(file: GoFile, expr: string): string {
  const e = expr.trim();
  const parts = splitPlus(e);
  if (parts.length > 1) return parts.map((p) => str(file, p)).join("");
  const literal = /^"((?:[^"\\]|\\.)*)"$/.exec(e) ?? /^`([^`]*)`$/.exec(e);
  if (literal !== null) return literal[1] ?? "";
  const call = /^([\w.]+)\(([\s\S]*)\)$/.exec(e);
  if (call !== null) {
    const inner = str(file, call[2] ?? "");
    if (call[1] === "strings.ToLower") return inner.toLowerCase();
    if (call[1] === "pretty.ToSnakeCase") return inner.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
    return inner; // a type conversion such as string(x) or corev1.ResourceName(x)
  }
  if (/^[\w.]+$/.test(e)) {
    const def = resolve(file, e);
    return str(def.file, def.expr);
  }
  throw new ExtractError(`${file.rel}: not a string expression: ${e}`);
}

function splitPlus(e: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = "";
  let start = 0;
  for (let i = 0; i < e.length; i++) {
    const c = e[i] ?? "";
    if (quote !== "") { if (c === "\\") i++; else if (c === quote) quote = ""; continue; }
    if (c === "\"" || c === "`") quote = c;
    else if ("({[".includes(c)) depth++;
    else if (")}]".includes(c)) depth--;
    else if (c === "+" && depth === 0) { parts.push(e.slice(start, i)); start = i + 1; }
  }
  parts.push(e.slice(start));
  return parts.map((p) => p.trim());
}

/** Label names of one `opmetrics.Label` expression: a variable or a `{Name: …}` literal. */
function labelName(file: GoFile, expr: string): string {
  const literal = /^(?:[\w.]*Label)?\{([\s\S]*)\}$/.exec(expr.trim());
  if (literal !== null) {
    const name = fields(literal[1] ?? "").get("Name");
    if (name === undefined) throw new ExtractError(`${file.rel}: Label without Name: ${expr}`);
    return str(file, name);
  }
  const def = resolve(file, expr.trim());
  return labelName(def.file, def.expr);
}

/**
 * Node metrics' well-known label dimensions as a running Karpenter AWS has them: core's WellKnownLabels plus those
 * the AWS provider inserts at init, each the part after `/`, lower-cased, `-` → `_`, duplicates once.
 */
function wellKnownLabelDimensions(): string[] {
  const core = resolve(packageFiles(`${MODULES["sigs.k8s.io/karpenter"]}/pkg/apis/v1`)[0] as GoFile,
    "WellKnownLabels");
  const keys = splitTop(balanced(core.expr, core.expr.indexOf("("))).map((k) => str(core.file, k));
  const aws = packageFiles(`${MODULES["github.com/aws/karpenter-provider-aws"]}/pkg/apis/v1`)
    .find((f) => f.text.includes("WellKnownLabels.Insert("));
  if (aws === undefined) throw new ExtractError("the AWS provider's WellKnownLabels.Insert not found");
  const at = aws.text.indexOf("WellKnownLabels.Insert(") + "WellKnownLabels.Insert".length;
  keys.push(...splitTop(balanced(aws.text, at)).map((k) => str(aws, k)));
  const dims = keys.flatMap((k) => {
    const parts = k.split("/");
    return parts.length === 2 ? [(parts[1] ?? "").toLowerCase().replaceAll("-", "_")] : [];
  });
  return [...new Set(dims)].sort();
}

/** Label names of a `[]opmetrics.Label` expression: a literal, append(…), or a helper function's return value. */
function labelList(file: GoFile, expr: string): string[] {
  const e = expr.trim();
  const list = /^\[\][\w.]*Label\{([\s\S]*)\}$/.exec(e);
  if (list !== null) return splitTop(list[1] ?? "").map((x) => labelName(file, x));
  if (e.startsWith("append(")) {
    const [first = "", ...rest] = splitTop(balanced(e, "append".length));
    const head = first.endsWith("...") ? first.slice(0, -3) : first;
    return [...labelList(file, head), ...rest.flatMap((r) => (r.endsWith("...")
      ? labelList(file, r.slice(0, -3)) : [labelName(file, r)]))];
  }
  if (e.startsWith("lo.Map(") && e.includes("getWellKnownLabels()")) return wellKnownLabelDimensions();
  const call = /^(\w+)\(\)$/.exec(e);
  if (call !== null) {
    const fn = packageFiles(file.dir).find((f) => f.text.includes(`func ${call[1]}()`));
    if (fn === undefined) throw new ExtractError(`${file.rel}: function ${call[1]} not found`);
    const at = fn.text.indexOf(`func ${call[1]}()`);
    const body = balanced(fn.text, fn.text.indexOf("{", fn.text.indexOf(")", at + 6) + 1));
    const ret = /return\s+([\s\S]*)$/.exec(body.trim());
    if (ret === null) throw new ExtractError(`${fn.rel}: ${call[1]} returns nothing readable`);
    return labelList(fn, ret[1] ?? "");
  }
  throw new ExtractError(`${file.rel}: not a label list: ${e.slice(0, 120)}`);
}

const DEF_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]; // client_golang's prometheus.DefBuckets

function numbers(file: GoFile, expr: string): number[] {
  const e = expr.trim();
  const list = /^\[\]float64\{([\s\S]*)\}$/.exec(e);
  if (list !== null) return splitTop(list[1] ?? "").map((x) => num(file, x));
  if (e === "prometheus.DefBuckets") return DEF_BUCKETS;
  const generated = generatedBuckets(e);
  if (generated !== undefined) return generated;
  const call = /^([\w.]+)\(\)$/.exec(e);
  if (call !== null) return bucketFunction(file, call[1] ?? "");
  if (/^[\w.]+$/.test(e)) {
    const def = resolve(file, e);
    return numbers(def.file, def.expr);
  }
  throw new ExtractError(`${file.rel}: buckets not readable: ${e}`);
}

/** prometheus.ExponentialBuckets / LinearBuckets with literal arguments. */
function generatedBuckets(e: string): number[] | undefined {
  const exp = /^prometheus\.ExponentialBuckets\(([^,]+),([^,]+),([^)]+)\)$/.exec(e);
  if (exp !== null) {
    const [start, factor, count] = [Number(exp[1]), Number(exp[2]), Number(exp[3])];
    return Array.from({ length: count }, (_, i) => start * factor ** i);
  }
  const lin = /^prometheus\.LinearBuckets\(([^,]+),([^,]+),([^)]+)\)$/.exec(e);
  if (lin !== null) {
    const [start, width, count] = [Number(lin[1]), Number(lin[2]), Number(lin[3])];
    return Array.from({ length: count }, (_, i) => start + width * i);
  }
  return undefined;
}

/** The buckets a niladic function such as metrics.DurationBuckets() returns. */
function bucketFunction(file: GoFile, name: string): number[] {
  {
    const [qualifier, ident] = name.includes(".") ? name.split(".") as [string, string] : [undefined, name];
    const importPath = qualifier === undefined ? undefined : file.imports.get(qualifier);
    const dir = qualifier === undefined ? file.dir : importDir(importPath ?? "");
    const fn = dir === undefined ? undefined : packageFiles(dir).find((f) => f.text.includes(`func ${ident}()`));
    if (fn === undefined) throw new ExtractError(`${file.rel}: bucket function ${name} not found`);
    const at = fn.text.indexOf(`func ${ident}()`);
    const body = balanced(fn.text, fn.text.indexOf("{", fn.text.indexOf(")", at) + 1));
    const ret = /return\s+([\s\S]*)$/.exec(body.trim());
    return numbers(fn, (ret?.[1] ?? "").trim());
  }
}

const TIME_UNITS: Readonly<Record<string, number>> = { "time.Second": 1, "time.Minute": 60, "time.Hour": 3600 };

/** A bucket bound: a number, a product, a time.Duration's .Seconds(), or a constant naming one (in seconds). */
function num(file: GoFile, expr: string): number {
  const e = expr.trim();
  if (/^[-+]?[\d.]+(e[-+]?\d+)?$/i.test(e)) return Number(e);
  const seconds = /^([\s\S]+)\.Seconds\(\)$/.exec(e);
  if (seconds !== null) return num(file, seconds[1] ?? "");
  const paren = /^\(([\s\S]*)\)$/.exec(e);
  if (paren !== null) return num(file, paren[1] ?? "");
  const product = e.split("*");
  if (product.length > 1) return product.reduce((acc, x) => acc * num(file, x), 1);
  const unit = TIME_UNITS[e];
  if (unit !== undefined) return unit;
  if (/^[\w.]+$/.test(e)) {
    const def = resolve(file, e);
    return num(def.file, def.expr);
  }
  throw new ExtractError(`${file.rel}: not a number: ${e}`);
}

const TYPES: Readonly<Record<string, MetricType>> = {
  Counter: "counter", Gauge: "gauge", Histogram: "histogram", Summary: "summary",
};

interface Declared {
  readonly type: MetricType;
  readonly namespace: string;
  readonly subsystem: string;
  readonly name: string;
  readonly labels: string[];
  readonly buckets?: number[];
  readonly objectives?: number[];
  readonly file: GoFile;
}

/** One `NewPrometheusX(registry, opts, labels, stage)` call; subsystem/labels may be overridden by a template. */
function declared(file: GoFile, kind: string, args: string, template: { subsystem?: string; labels?: string[] } = {}):
  Declared {
  const { subsystem, labels } = template;
  const [, opts = "", labelExpr = ""] = splitTop(args);
  const body = fields(balanced(opts, opts.indexOf("{")));
  const get = (k: string): string => { const v = body.get(k); return v === undefined ? "" : str(file, v); };
  const type = TYPES[kind] as MetricType;
  const bucketExpr = body.get("Buckets");
  const objectives = body.get("Objectives");
  return {
    type, namespace: get("Namespace"), subsystem: subsystem ?? get("Subsystem"), name: get("Name"),
    labels: labels ?? labelList(file, labelExpr), file,
    ...(type === "histogram" ? { buckets: bucketExpr === undefined || bucketExpr === "buckets"
      ? DEF_BUCKETS : numbers(file, bucketExpr) } : {}),
    // Karpenter's summaries all use metrics.SummaryObjectives(): quantiles 0, 0.5, 0.9, 0.99, 1.
    ...(objectives === undefined ? {} : { objectives: summaryObjectives(file, objectives) }),
  };
}

function summaryObjectives(file: GoFile, expr: string): number[] {
  if (!/SummaryObjectives\(\)$/.test(expr)) throw new ExtractError(`${file.rel}: objectives not readable: ${expr}`);
  const def = packageFiles(`${MODULES["sigs.k8s.io/karpenter"]}/pkg/metrics`).find((f) => f.text.includes("func Summ"));
  const m = /range \[\]float64\{([^}]*)\}/.exec(def?.text ?? "");
  if (m === null) throw new ExtractError("SummaryObjectives' quantiles not found");
  return splitTop(m[1] ?? "").map(Number);
}

function walk(dir: string): string[] {
  return readdirSync(path.join(MOD, dir)).flatMap((n) => {
    const rel = path.join(dir, n);
    if (statSync(path.join(MOD, rel)).isDirectory()) {
      return ["test", "fake", "testdata"].includes(n) ? [] : walk(rel);
    }
    return n.endsWith(".go") && !n.endsWith("_test.go") ? [dir] : [];
  });
}

const CALL = /\b(?:opmetrics|pmetrics|metrics)\.NewPrometheus(Counter|Gauge|Histogram|Summary)\(/g;

function row(d: Declared, source: string): KarpenterMetric {
  return {
    name: [d.namespace, d.subsystem, d.name].filter((p) => p !== "").join("_"), type: d.type,
    labels: [...d.labels].sort(), ...(d.buckets === undefined ? {} : { buckets: d.buckets }),
    ...(d.objectives === undefined ? {} : { objectives: d.objectives }), source,
  };
}

/** Karpenter core's and the AWS provider's own declarations. */
function providerMetrics(): KarpenterMetric[] {
  const dirs = [...new Set(ROOTS.flatMap(walk))];
  return dirs.flatMap((dir) => packageFiles(dir).flatMap((file) => [...file.text.matchAll(CALL)].map((m) => {
    const open = (m.index) + m[0].length - 1;
    const d = declared(file, m[1] ?? "", balanced(file.text, open));
    return row(d, file.rel.replace(/@[^/]+/, (v) => v));
  })));
}

/**
 * operatorpkg's status-condition and termination metrics. Each is a function of the object kind: the `""` variant
 * (with group and kind labels) Karpenter emits through status.EmitDeprecatedMetrics, and one per kind whose status
 * controller Karpenter starts (karpenter pkg/controllers/controllers.go, karpenter-provider-aws
 * pkg/controllers/controllers.go), with the object labels `status.WithLabels` adds and the buckets
 * `status.WithHistogramBuckets` sets.
 */
const STATUS_KINDS: readonly { kind: string; labels: readonly string[]; buckets?: readonly number[] }[] = [
  { kind: "nodeclaim", labels: ["karpenter.k8s.aws/ec2nodeclass", "karpenter.sh/nodepool"],
    buckets: Array.from({ length: 15 }, (_, i) => 0.5 * 2 ** i) },
  { kind: "nodepool", labels: [], buckets: Array.from({ length: 15 }, (_, i) => 0.5 * 2 ** i) },
  { kind: "node", labels: ["karpenter.k8s.aws/ec2nodeclass", "karpenter.sh/nodepool", "karpenter.sh/initialized"],
    buckets: Array.from({ length: 15 }, (_, i) => 0.5 * 2 ** i) },
  { kind: "ec2nodeclass", labels: [] },
];

/** One `fooMetric(objectName, …)` of operatorpkg status/metrics.go: its generic row and one per kind. */
function statusTemplate(file: GoFile, fn: string, body: string): KarpenterMetric[] {
  const sub = /fmt\.Sprintf\("%s_%s", objectName, (\w+)\)/.exec(body)?.[1];
  const call = new RegExp(CALL.source).exec(body);
  if (sub === undefined || call === null) throw new ExtractError(`${file.rel}: ${fn} not readable`);
  const args = balanced(body, call.index + call[0].length - 1);
  const [, , labelExpr = ""] = splitTop(args);
  const base = labelExpr.startsWith("append(")
    ? labelList(file, (splitTop(balanced(labelExpr, "append".length))[0] ?? "")) : [];
  const subsystem = str(file, sub);
  const kind = call[1] ?? "";
  const out: KarpenterMetric[] = [];
  // The generic variant: `var X = fooMetric("", …, pmetrics.Group, pmetrics.Kind)`.
  const generic = new RegExp(`=\\s*${fn}\\(""[^)]*\\)`).exec(file.text);
  if (generic !== null) {
    const extra = splitTop(balanced(generic[0], generic[0].indexOf("("))).filter((a) => a.startsWith("pmetrics."));
    out.push(row(declared(file, kind, args, { subsystem, labels: [...base, ...extra.map((x) => labelName(file, x))] }),
      file.rel));
  }
  for (const k of STATUS_KINDS) {
    const labels = [...base, ...k.labels.map((l) => l.replace(/[/.-]/g, "_"))];
    const d = declared(file, kind, args, { subsystem: `${k.kind}_${subsystem}`, labels });
    const buckets = d.type === "histogram" ? { buckets: [...(k.buckets ?? DEF_BUCKETS)] } : {};
    out.push(row({ ...d, ...buckets }, `${file.rel} (${k.kind})`));
  }
  return out;
}

function operatorpkgMetrics(): KarpenterMetric[] {
  const dir = `${MODULES["github.com/awslabs/operatorpkg"]}/status`;
  const file = packageFiles(dir).find((f) => f.rel.endsWith("/metrics.go"));
  if (file === undefined) throw new ExtractError("operatorpkg status/metrics.go not found");
  return [...file.text.matchAll(/func (\w+Metric)\(objectName string,?[^)]*\)[^{]*\{/g)]
    .flatMap((m) => statusTemplate(file, m[1] ?? "", balanced(file.text, (m.index) + m[0].length - 1)));
}

/** The whole table, sorted by name. */
export function karpenterMetrics(): KarpenterMetric[] {
  const all = [...providerMetrics(), ...operatorpkgMetrics()]
    .filter((m) => m.name.startsWith("karpenter_") || m.name.startsWith("operator_"));
  return all.sort((a, b) => a.name.localeCompare(b.name));
}

if (import.meta.url === `file://${process.argv[1] ?? ""}`) {
  const table = karpenterMetrics();
  const text = `${JSON.stringify(table, null, 1)}\n`;
  if (process.argv.includes("--write")) {
    const out = path.join(import.meta.dirname, "../../operator/observability/karpenter-metrics.json");
    writeFileSync(out, text);
    process.stdout.write(`${table.length} metrics → ${out}\n`);
  } else process.stdout.write(text);
}

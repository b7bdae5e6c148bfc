/**
 * The values of Karpenter's metric declarations, for scripts/metrics/karpenter-metrics.ts: label-name lists
 * (`opmetrics.Label` variables and literals, append(…), helper functions, the node metrics' well-known label
 * dimensions) and histogram buckets (literals, prometheus.*Buckets, bucket functions, durations in seconds).
 */
import {
  ExtractError,
  MODULES,
  balanced,
  fields,
  importDir,
  packageFiles,
  resolve,
  splitTop,
  str,
  type GoFile,
} from "./go-source.ts";

/** Label names of one `opmetrics.Label` expression: a variable or a `{Name: …}` literal. */
export function labelName(file: GoFile, expr: string): string {
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
  const core = resolve(packageFiles(`${MODULES["sigs.k8s.io/karpenter"]}/pkg/apis/v1`)[0] as GoFile, "WellKnownLabels");
  const keys = splitTop(balanced(core.expr, core.expr.indexOf("("))).map((k) => str(core.file, k));
  const aws = packageFiles(`${MODULES["github.com/aws/karpenter-provider-aws"]}/pkg/apis/v1`).find((f) =>
    f.text.includes("WellKnownLabels.Insert("),
  );
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
export function labelList(file: GoFile, expr: string): string[] {
  const e = expr.trim();
  const list = /^\[\][\w.]*Label\{([\s\S]*)\}$/.exec(e);
  if (list !== null) return splitTop(list[1] ?? "").map((x) => labelName(file, x));
  if (e.startsWith("append(")) {
    const [first = "", ...rest] = splitTop(balanced(e, "append".length));
    const head = first.endsWith("...") ? first.slice(0, -3) : first;
    return [
      ...labelList(file, head),
      ...rest.flatMap((r) => (r.endsWith("...") ? labelList(file, r.slice(0, -3)) : [labelName(file, r)])),
    ];
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

/** client_golang's prometheus.DefBuckets. */
export const DEF_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A `[]float64` bucket expression: a literal, prometheus.DefBuckets or *Buckets(…), a function or a constant. */
export function numbers(file: GoFile, expr: string): number[] {
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
    const [qualifier, ident] = name.includes(".") ? (name.split(".") as [string, string]) : [undefined, name];
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

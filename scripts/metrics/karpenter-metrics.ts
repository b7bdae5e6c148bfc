/**
 * Reads Karpenter v1.15's Go sources (core, the AWS provider and operatorpkg, from the Go module cache) and prints
 * the table of every `karpenter_*` and `operator_*` metric they define: name, type, label names, buckets and the
 * source file. `node scripts/metrics/karpenter-metrics.ts --write` refreshes operator/observability/
 * karpenter-metrics.json, the fixture operator/observability/metrics.test.ts holds kerf's registry to.
 *
 * A reader of the declarations' shapes, not a Go parser: `opmetrics.NewPrometheus{Counter,Gauge,Histogram,Summary}`
 * calls with their `prometheus.*Opts` literal, label lists built from `opmetrics.Label` variables, string constants
 * (also across packages, through the file's imports) and the few helper functions that return label lists. What it
 * cannot evaluate it reports as an error rather than guess. go-source.ts reads the Go sources, go-values.ts
 * evaluates label lists and buckets; this file finds the declarations and builds the table.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import {
  ExtractError,
  MODULES,
  balanced,
  fields,
  packageFiles,
  splitTop,
  str,
  walk,
  type GoFile,
} from "./go-source.ts";
import { DEF_BUCKETS, labelList, labelName, numbers } from "./go-values.ts";

/** Where metric declarations are searched (module-relative folders). */
const ROOTS = ["sigs.k8s.io/karpenter@v1.15.0/pkg", "github.com/aws/karpenter-provider-aws@v1.15.1/pkg"];

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

const TYPES: Readonly<Record<string, MetricType>> = {
  Counter: "counter",
  Gauge: "gauge",
  Histogram: "histogram",
  Summary: "summary",
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
function declared(
  file: GoFile,
  kind: string,
  args: string,
  template: { subsystem?: string; labels?: string[] } = {},
): Declared {
  const { subsystem, labels } = template;
  const [, opts = "", labelExpr = ""] = splitTop(args);
  const body = fields(balanced(opts, opts.indexOf("{")));
  const get = (k: string): string => {
    const v = body.get(k);
    return v === undefined ? "" : str(file, v);
  };
  const type = TYPES[kind] as MetricType;
  const bucketExpr = body.get("Buckets");
  const objectives = body.get("Objectives");
  return {
    type,
    namespace: get("Namespace"),
    subsystem: subsystem ?? get("Subsystem"),
    name: get("Name"),
    labels: labels ?? labelList(file, labelExpr),
    file,
    ...(type === "histogram"
      ? { buckets: bucketExpr === undefined || bucketExpr === "buckets" ? DEF_BUCKETS : numbers(file, bucketExpr) }
      : {}),
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

const CALL = /\b(?:opmetrics|pmetrics|metrics)\.NewPrometheus(Counter|Gauge|Histogram|Summary)\(/g;

function row(d: Declared, source: string): KarpenterMetric {
  return {
    name: [d.namespace, d.subsystem, d.name].filter((p) => p !== "").join("_"),
    type: d.type,
    labels: [...d.labels].sort(),
    ...(d.buckets === undefined ? {} : { buckets: d.buckets }),
    ...(d.objectives === undefined ? {} : { objectives: d.objectives }),
    source,
  };
}

/** Karpenter core's and the AWS provider's own declarations. */
function providerMetrics(): KarpenterMetric[] {
  const dirs = [...new Set(ROOTS.flatMap(walk))];
  return dirs.flatMap((dir) =>
    packageFiles(dir).flatMap((file) =>
      [...file.text.matchAll(CALL)].map((m) => {
        const open = m.index + m[0].length - 1;
        const d = declared(file, m[1] ?? "", balanced(file.text, open));
        return row(
          d,
          file.rel.replace(/@[^/]+/, (v) => v),
        );
      }),
    ),
  );
}

/**
 * operatorpkg's status-condition and termination metrics. Each is a function of the object kind: the `""` variant
 * (with group and kind labels) Karpenter emits through status.EmitDeprecatedMetrics, and one per kind whose status
 * controller Karpenter starts (karpenter pkg/controllers/controllers.go, karpenter-provider-aws
 * pkg/controllers/controllers.go), with the object labels `status.WithLabels` adds and the buckets
 * `status.WithHistogramBuckets` sets.
 */
const STATUS_KINDS: readonly { kind: string; labels: readonly string[]; buckets?: readonly number[] }[] = [
  {
    kind: "nodeclaim",
    labels: ["karpenter.k8s.aws/ec2nodeclass", "karpenter.sh/nodepool"],
    buckets: Array.from({ length: 15 }, (_, i) => 0.5 * 2 ** i),
  },
  { kind: "nodepool", labels: [], buckets: Array.from({ length: 15 }, (_, i) => 0.5 * 2 ** i) },
  {
    kind: "node",
    labels: ["karpenter.k8s.aws/ec2nodeclass", "karpenter.sh/nodepool", "karpenter.sh/initialized"],
    buckets: Array.from({ length: 15 }, (_, i) => 0.5 * 2 ** i),
  },
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
    ? labelList(file, splitTop(balanced(labelExpr, "append".length))[0] ?? "")
    : [];
  const subsystem = str(file, sub);
  const kind = call[1] ?? "";
  const out: KarpenterMetric[] = [];
  // The generic variant: `var X = fooMetric("", …, pmetrics.Group, pmetrics.Kind)`.
  const generic = new RegExp(`=\\s*${fn}\\(""[^)]*\\)`).exec(file.text);
  if (generic !== null) {
    const extra = splitTop(balanced(generic[0], generic[0].indexOf("("))).filter((a) => a.startsWith("pmetrics."));
    out.push(
      row(
        declared(file, kind, args, { subsystem, labels: [...base, ...extra.map((x) => labelName(file, x))] }),
        file.rel,
      ),
    );
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
  return [...file.text.matchAll(/func (\w+Metric)\(objectName string,?[^)]*\)[^{]*\{/g)].flatMap((m) =>
    statusTemplate(file, m[1] ?? "", balanced(file.text, m.index + m[0].length - 1)),
  );
}

/** The whole table, sorted by name. */
export function karpenterMetrics(): KarpenterMetric[] {
  const all = [...providerMetrics(), ...operatorpkgMetrics()].filter(
    (m) => m.name.startsWith("karpenter_") || m.name.startsWith("operator_"),
  );
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

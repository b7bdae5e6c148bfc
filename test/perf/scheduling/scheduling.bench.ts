/**
 * Scheduling benchmark (Karpenter's BenchmarkScheduling* and *Preferences, plus the real us-east-1
 * catalog). Without arguments it runs every case in its own child process (so peak memory is per
 * case), and for the diverse cases at 1,000 / 5,000 / 20,000 pods runs Karpenter's own scheduler on
 * the same instance types and pods (karpenter.ts); it prints two tables. Each plan is judged against
 * the covering-LP lower bound (operator/core/scheduling/lower-bound.ts) and its most expensive
 * NodeClaim is named with its share of the bill.
 *   node scheduling.bench.ts [FILTER...] [--no-karpenter]
 *   node scheduling.bench.ts --case NAME --pods N [--karpenter BINARY]   (one case, one result line)
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { coveringProblem } from "../../../operator/core/scheduling/lower-bound.ts";
import { simulate } from "../../../operator/core/scheduling/simulate.ts";
import type { PlannedNodeClaim, SimPod } from "../../../operator/core/scheduling/types.ts";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { toInstanceTypes } from "../../../policies/domain/catalog/catalog.ts";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { coveringOptimum } from "./covering-lp.ts";
import { benchNodePool, diversePods, fakeInstanceTypes, homogeneousPods, preferencePods } from "./generator.ts";
import { buildKarpenter, runKarpenter, type ClaimSummary, type KarpenterResult } from "./karpenter.ts";

export interface BenchResult {
  readonly name: string;
  readonly pods: number;
  readonly seconds: number;
  readonly cpuSeconds: number;
  readonly podsPerSecond: number;
  readonly nodes: number;
  readonly unschedulable: number;
  readonly pricePerHour: number;
  readonly lowerBound: number;
  readonly priciest: ClaimSummary;
  readonly podsPerNode: readonly [number, number];
  readonly peakMiB: number;
  readonly karpenter?: KarpenterResult;
}

const GI = 2 ** 30;
const SIZES = [1, 100, 1000, 5000, 20000];
/**
 * Homogeneous workloads on the real catalog's c, m and r types (the workshop NodePool's categories):
 * one Deployment of identical pods, as most clusters run them.
 */
const SHAPES: Readonly<Record<string, { cpu: number; memory: number }>> = {
  "catalog-inflate": { cpu: 1000, memory: 1.5 * GI },
  "catalog-memory-heavy": { cpu: 250, memory: 8 * GI },
  "catalog-large": { cpu: 8000, memory: 32 * GI },
};
const SHAPE_SIZES = [100, 300, 1000];
const COMPARED = new Set([
  ...["diverse", "catalog-diverse"].flatMap((n) => [1000, 5000, 20000].map((p) => `${n}/${p}`)),
  ...Object.keys(SHAPES).flatMap((n) => SHAPE_SIZES.map((p) => `${n}/${p}`)),
]);

function workload(name: string, n: number): { pods: SimPod[]; types: InstanceType[]; ignore: boolean } {
  const real = name.startsWith("catalog");
  const types = real ? toInstanceTypes(builtinCatalog()) : fakeInstanceTypes(400);
  const shape = SHAPES[name];
  if (shape !== undefined) {
    const cmr = types.filter((t) => ["c", "m", "r"].includes(t.labels["karpenter.k8s.aws/instance-category"] ?? ""));
    return { pods: homogeneousPods(n, shape), types: cmr, ignore: false };
  }
  if (name.includes("preferences"))
    return { pods: preferencePods(n, 42, real ? "us-east-1a" : "test-zone-1"), types, ignore: name.includes("ignore") };
  return { pods: diversePods(n), types, ignore: false };
}

function priciest(claims: readonly PlannedNodeClaim[]): ClaimSummary {
  const top = claims.reduce<PlannedNodeClaim | undefined>(
    (a, c) => (a === undefined || c.launch.pricePerHour > a.launch.pricePerHour ? c : a),
    undefined,
  );
  return {
    instanceType: top?.launch.instanceType ?? "-",
    capacityType: top?.launch.capacityType ?? "-",
    pods: top?.pods.length ?? 0,
    pricePerHour: top?.launch.pricePerHour ?? 0,
  };
}

/** Runs one case in this process (and Karpenter on the same input when given its binary). */
export function runCase(name: string, n: number, karpenter?: string): BenchResult {
  const { pods, types, ignore } = workload(name, n);
  const real = name.startsWith("catalog");
  // Limits never bind in the benchmark; on the real catalog Karpenter's pessimistic accounting (each
  // claim reserves its largest option, up to 448 vCPU / 24 TiB) would make even 10M-core limits bind.
  const { limits: _limits, ...unlimited } = benchNodePool(types);
  const snapshot = { nodes: [], nodePools: [real ? unlimited : benchNodePool(types)], daemonSets: [] };
  const cpu = process.cpuUsage();
  const start = performance.now();
  const result = simulate(snapshot, pods, { preferencePolicy: ignore ? "Ignore" : "Respect" });
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  const sizes = result.newClaims.map((c) => c.pods.length);
  return {
    name,
    pods: n,
    seconds,
    cpuSeconds: (used.user + used.system) / 1e6,
    podsPerSecond: n / seconds,
    nodes: result.newClaims.length,
    unschedulable: result.podErrors.length,
    pricePerHour: result.newClaims.reduce((s, c) => s + c.launch.pricePerHour, 0),
    lowerBound: coveringOptimum(coveringProblem(snapshot.nodePools, pods)),
    priciest: priciest(result.newClaims),
    podsPerNode: [Math.min(...sizes), Math.max(...sizes)],
    peakMiB: process.resourceUsage().maxRSS / 1024,
    ...(karpenter === undefined ? {} : { karpenter: runKarpenter(karpenter, { types, pods, limits: !real }) }),
  };
}

const CASES: [string, number][] = [
  ...SIZES.map((n): [string, number] => ["diverse", n]),
  ["respect-preferences", 4000],
  ["ignore-preferences", 4000],
  ...SIZES.map((n): [string, number] => ["catalog-diverse", n]),
  ["catalog-respect-preferences", 4000],
  ...Object.keys(SHAPES).flatMap((name) => SHAPE_SIZES.map((n): [string, number] => [name, n])),
];

const money = (v: number): string => (v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(2) : v.toFixed(4));
const claim = (c: ClaimSummary, bill: number): string =>
  `${c.instanceType} ${c.capacityType}, ${c.pods} pods, ` +
  `$${money(c.pricePerHour)} (${((100 * c.pricePerHour) / bill).toFixed(1)}%)`;

function table(head: readonly string[], lines: readonly (readonly (string | number)[])[]): string {
  const cells = lines.map((l) => l.map(String));
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((l) => l[i]!.length)));
  return [head, ...cells]
    .map((l) => l.map((c, i) => (i === l.length - 1 ? c : c.padStart(widths[i]!))).join("  "))
    .join("\n");
}

function kerfTable(rows: readonly BenchResult[]): string {
  return table(
    [
      "case",
      "pods",
      "seconds",
      "CPU s",
      "pods/s",
      "nodes",
      "pods/node",
      "unsched",
      "$/h",
      "bound $/h",
      "price/bound",
      "peak MiB",
      "most expensive NodeClaim",
    ],
    rows.map((r) => [
      r.name,
      r.pods,
      r.seconds.toFixed(3),
      r.cpuSeconds.toFixed(2),
      Math.round(r.podsPerSecond),
      r.nodes,
      r.podsPerNode.join("-"),
      r.unschedulable,
      money(r.pricePerHour),
      money(r.lowerBound),
      (r.pricePerHour / r.lowerBound).toFixed(3),
      Math.round(r.peakMiB),
      claim(r.priciest, r.pricePerHour),
    ]),
  );
}

function comparisonTable(rows: readonly BenchResult[]): string {
  const compared = rows.filter((r): r is BenchResult & { karpenter: KarpenterResult } => r.karpenter !== undefined);
  return table(
    [
      "case",
      "pods",
      "unsched kerf/Karp",
      "nodes kerf/Karp",
      "$/h kerf",
      "$/h Karp",
      "kerf÷Karp $",
      "price/bound kerf",
      "Karp",
      "CPU s kerf",
      "CPU s Karp",
      "Karp÷kerf CPU",
      "Karpenter's most expensive NodeClaim",
    ],
    compared.map((r) => {
      const k = r.karpenter;
      return [
        r.name,
        r.pods,
        `${r.unschedulable}/${k.unschedulable}`,
        `${r.nodes}/${k.nodes}`,
        money(r.pricePerHour),
        money(k.pricePerHour),
        (r.pricePerHour / k.pricePerHour).toFixed(2),
        (r.pricePerHour / r.lowerBound).toFixed(3),
        (k.pricePerHour / r.lowerBound).toFixed(3),
        r.cpuSeconds.toFixed(2),
        k.cpuSeconds.toFixed(1),
        `${(k.cpuSeconds / r.cpuSeconds).toFixed(0)}×`,
        claim(k.priciest, k.pricePerHour),
      ];
    }),
  );
}

function runChild(name: string, n: number, karpenter: string | undefined): BenchResult | undefined {
  const args = [
    fileURLToPath(import.meta.url),
    "--case",
    name,
    "--pods",
    String(n),
    ...(karpenter === undefined ? [] : ["--karpenter", karpenter]),
  ];
  const child = spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 });
  const line = child.stdout.split("\n").find((l) => l.startsWith("BENCH_RESULT "));
  if (line === undefined || child.status !== 0) process.stderr.write(`${name}/${n} failed:\n${child.stderr}`);
  return line === undefined ? undefined : (JSON.parse(line.slice("BENCH_RESULT ".length)) as BenchResult);
}

function main(args: readonly string[]): number {
  const at = args.indexOf("--case");
  if (at >= 0) {
    const k = args.indexOf("--karpenter");
    const result = runCase(
      args[at + 1] ?? "diverse",
      Number(args[args.indexOf("--pods") + 1] ?? 1000),
      k >= 0 ? args[k + 1] : undefined,
    );
    console.log(`BENCH_RESULT ${JSON.stringify({ suite: "scheduling", ...result })}`);
    return result.unschedulable === 0 && (result.karpenter?.unschedulable ?? 0) === 0 ? 0 : 1;
  }
  const only = args.filter((a) => !a.startsWith("--"));
  const cases = CASES.filter(([name, n]) => only.length === 0 || only.some((o) => `${name}/${n}`.includes(o)));
  const build =
    args.includes("--no-karpenter") || !cases.some(([name, n]) => COMPARED.has(`${name}/${n}`))
      ? { skipped: "--no-karpenter" }
      : buildKarpenter();
  if ("skipped" in build) console.log(`Karpenter comparison skipped: ${build.skipped}`);
  const rows: BenchResult[] = [];
  for (const [name, n] of cases) {
    const row = runChild(name, n, "binary" in build && COMPARED.has(`${name}/${n}`) ? build.binary : undefined);
    if (row !== undefined) rows.push(row);
  }
  console.log(kerfTable(rows));
  if (rows.some((r) => r.karpenter !== undefined))
    console.log(
      `\nSame input through Karpenter's scheduler (sigs.k8s.io/karpenter, karpenter/go.mod):\n${comparisonTable(rows)}`,
    );
  return rows.length === cases.length && rows.every((r) => r.unschedulable === 0) ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));

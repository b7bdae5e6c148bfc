/**
 * Scheduling benchmark (Karpenter's BenchmarkScheduling* and *Preferences, plus the real us-east-1
 * catalog). Without arguments it runs every case in its own child process (so peak memory is per
 * case) and prints a table; with `--case NAME --pods N` it runs one case and prints a result line.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { simulate } from "../../../operator/core/scheduling/simulate.ts";
import type { SimPod } from "../../../operator/core/scheduling/types.ts";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { toInstanceTypes } from "../../../policies/domain/catalog/catalog.ts";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { benchNodePool, diversePods, fakeInstanceTypes, preferencePods, priceLowerBound } from "./generator.ts";

export interface BenchResult {
  readonly name: string;
  readonly pods: number;
  readonly seconds: number;
  readonly podsPerSecond: number;
  readonly nodes: number;
  readonly unschedulable: number;
  readonly pricePerHour: number;
  readonly lowerBound: number;
  readonly peakMiB: number;
}

const SIZES = [1, 100, 1000, 5000, 20000];

function workload(name: string, n: number): { pods: SimPod[]; types: InstanceType[]; ignore: boolean } {
  const real = name.startsWith("catalog");
  const types = real ? toInstanceTypes(builtinCatalog()) : fakeInstanceTypes(400);
  if (name.includes("preferences")) return { pods: preferencePods(n, 42, real ? "us-east-1a" : "test-zone-1"), types, ignore: name.includes("ignore") };
  return { pods: diversePods(n), types, ignore: false };
}

/** Runs one case in this process. */
export function runCase(name: string, n: number): BenchResult {
  const { pods, types, ignore } = workload(name, n);
  const real = name.startsWith("catalog");
  // Limits never bind in the benchmark; on the real catalog Karpenter's pessimistic accounting (each
  // claim reserves its largest option, up to 448 vCPU / 24 TiB) would make even 10M-core limits bind.
  const { limits: _limits, ...unlimited } = benchNodePool(types);
  const snapshot = { nodes: [], nodePools: [real ? unlimited : benchNodePool(types)], daemonSets: [] };
  const start = performance.now();
  const result = simulate(snapshot, pods, { preferencePolicy: ignore ? "Ignore" : "Respect" });
  const seconds = (performance.now() - start) / 1000;
  const price = result.newClaims.reduce((s, c) => s + c.launch.pricePerHour, 0);
  return {
    name, pods: n, seconds, podsPerSecond: n / seconds, nodes: result.newClaims.length, unschedulable: result.podErrors.length,
    pricePerHour: price, lowerBound: priceLowerBound(pods, types), peakMiB: process.resourceUsage().maxRSS / 1024,
  };
}

const CASES: [string, number][] = [
  ...SIZES.map((n): [string, number] => ["diverse", n]),
  ["respect-preferences", 4000], ["ignore-preferences", 4000],
  ...SIZES.map((n): [string, number] => ["catalog-diverse", n]),
  ["catalog-respect-preferences", 4000],
];

function table(rows: readonly BenchResult[]): string {
  const head = ["case", "pods", "seconds", "pods/s", "nodes", "unsched", "$/h", "lower bound $/h", "price/bound", "peak MiB"];
  const lines = rows.map((r) => [r.name, r.pods, r.seconds.toFixed(3), Math.round(r.podsPerSecond), r.nodes, r.unschedulable, r.pricePerHour.toFixed(2), r.lowerBound.toFixed(2), (r.pricePerHour / r.lowerBound).toFixed(3), Math.round(r.peakMiB)].map(String));
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  return [head, ...lines].map((l) => l.map((c, i) => c.padStart(widths[i]!)).join("  ")).join("\n");
}

function main(args: readonly string[]): number {
  const at = args.indexOf("--case");
  if (at >= 0) {
    const result = runCase(args[at + 1] ?? "diverse", Number(args[args.indexOf("--pods") + 1] ?? 1000));
    console.log(`BENCH_RESULT ${JSON.stringify({ suite: "scheduling", ...result })}`);
    return result.unschedulable === 0 ? 0 : 1;
  }
  const only = args.filter((a) => !a.startsWith("--"));
  const rows: BenchResult[] = [];
  let failed = 0;
  for (const [name, n] of CASES.filter(([name]) => only.length === 0 || only.some((o) => name.includes(o)))) {
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--case", name, "--pods", String(n)], { encoding: "utf8" });
    const line = child.stdout.split("\n").find((l) => l.startsWith("BENCH_RESULT "));
    if (line === undefined || child.status !== 0) failed++;
    if (line !== undefined) rows.push(JSON.parse(line.slice("BENCH_RESULT ".length)) as BenchResult);
    else process.stderr.write(child.stderr);
  }
  console.log(table(rows));
  return failed === 0 ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));

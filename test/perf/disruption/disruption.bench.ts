/**
 * Disruption benchmark (issue 12, "Scale"): one disruption pass (`planDisruption`, the operator's pure
 * core) over 1,000 nodes / 10,000 pods on the built-in catalog. Without arguments it runs every case
 * in its own child process and prints a table; `--case NAME [--nodes N] [--pods N] [--passes N]` runs
 * one case and prints its result line. Each case runs the same pass `passes` times on the same input:
 * the first pass pays for JIT warm-up, the operator runs the later ones (every 10 s).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import {
  DEFAULT_MAX_SINGLE_NODE_EVALUATIONS,
  planDisruption,
  type DisruptionInput,
} from "../../../operator/core/disruption/plan.ts";
import type { Method } from "../../../operator/core/disruption/types.ts";
import { disruptionInput, NOTHING_TO_DO, REALISTIC, type ClusterMix } from "./cluster.ts";

interface Case {
  readonly name: string;
  readonly what: string;
  readonly mix: ClusterMix;
  /** The method that must produce the command (undefined: no command). */
  readonly expect: Method | undefined;
  readonly maxSingleNodeEvaluations?: number;
  /** Pods waiting for a place, whose room every question leaves alone. */
  readonly pending?: number;
}

const CASES: readonly Case[] = [
  {
    name: "default",
    what: "5 % empty, 8 % underutilized, 4 % drifted, 3 % blocked",
    mix: REALISTIC,
    expect: "emptiness",
  },
  { name: "drift", what: "the same without empty nodes", mix: { ...REALISTIC, empty: 0 }, expect: "drift" },
  {
    name: "consolidation",
    what: "no empty or drifted node",
    mix: { ...REALISTIC, empty: 0, drifted: 0 },
    expect: "multi-node-consolidation",
  },
  {
    name: "pending",
    what: "the same during a burst: 1,000 pending pods placed first",
    mix: { ...REALISTIC, empty: 0, drifted: 0 },
    expect: "multi-node-consolidation",
    pending: 1000,
  },
  {
    name: "worst",
    what: `full nodes, nothing to do; single-node bound ${DEFAULT_MAX_SINGLE_NODE_EVALUATIONS} (default)`,
    mix: NOTHING_TO_DO,
    expect: undefined,
  },
  {
    name: "drift-limits",
    what: "every node drifted and full, each NodePool's CPU limit 10 % under its use: no replacement fits",
    mix: { empty: 0, underutilized: 0, drifted: 1, blocked: 0, full: true, limitsBelowUsage: true },
    expect: undefined,
  },
  {
    name: "worst-unbounded",
    what: "full nodes, every candidate evaluated",
    mix: NOTHING_TO_DO,
    expect: undefined,
    maxSingleNodeEvaluations: Number.POSITIVE_INFINITY,
  },
];

export interface PassResult {
  readonly name: string;
  readonly nodes: number;
  readonly pods: number;
  /** Wall and CPU (user + system) seconds of each pass. */
  readonly wall: readonly number[];
  readonly cpu: readonly number[];
  readonly method: string;
  readonly decision: string;
  readonly candidates: number;
  readonly savingsPerHour: number;
  readonly eligibleUnderutilized: number;
  readonly unconsolidatable: number;
  readonly blocked: number;
  readonly loadAverage: number;
  readonly ok: boolean;
}

function timed(input: DisruptionInput): { plan: ReturnType<typeof planDisruption>; wall: number; cpu: number } {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const plan = planDisruption(input);
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { plan, wall, cpu: (cpu.user + cpu.system) / 1e6 };
}

export function runCase(c: Case, nodes: number, pods: number, passes: number): PassResult {
  const built = disruptionInput(nodes, pods, c.mix, { pending: c.pending ?? 0 });
  const input =
    c.maxSingleNodeEvaluations === undefined
      ? built
      : { ...built, maxSingleNodeEvaluations: c.maxSingleNodeEvaluations };
  const runs = Array.from({ length: passes }, () => timed(input));
  const { plan } = runs[0]!;
  const loadAverage = Number(
    (spawnSync("cat", ["/proc/loadavg"], { encoding: "utf8" }).stdout ?? "").split(" ")[0] ?? Number.NaN,
  );
  return {
    name: c.name,
    nodes: input.cluster.nodes.length,
    pods: input.cluster.pods.length,
    wall: runs.map((r) => r.wall),
    cpu: runs.map((r) => r.cpu),
    method: plan.command?.method ?? "none",
    decision: plan.command?.decision ?? "-",
    candidates: plan.command?.candidates.length ?? 0,
    savingsPerHour: plan.command?.savingsPerHour ?? 0,
    eligibleUnderutilized: plan.eligible.Underutilized,
    unconsolidatable: plan.unconsolidatable.length,
    blocked: plan.blocked.length,
    loadAverage,
    ok: plan.command?.method === c.expect,
  };
}

const median = (xs: readonly number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

function table(rows: readonly PassResult[]): string {
  const head = [
    "case",
    "nodes",
    "pods",
    "first wall s",
    "first CPU s",
    "later wall s (median)",
    "later CPU s (median)",
    "command",
    "candidates",
    "$/h saved",
    "unconsolidatable",
    "blocked",
    "load",
  ];
  const lines = rows.map((r) =>
    [
      r.name,
      r.nodes,
      r.pods,
      r.wall[0]!.toFixed(2),
      r.cpu[0]!.toFixed(2),
      median(r.wall.slice(1)).toFixed(2),
      median(r.cpu.slice(1)).toFixed(2),
      `${r.method}${r.decision === "-" ? "" : ` (${r.decision})`}`,
      r.candidates,
      r.savingsPerHour.toFixed(2),
      r.unconsolidatable,
      r.blocked,
      r.loadAverage.toFixed(1),
    ].map(String),
  );
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  return [head, ...lines].map((l) => l.map((c, i) => c.padStart(widths[i]!)).join("  ")).join("\n");
}

function option(args: readonly string[], name: string, fallback: number): number {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : fallback;
}

function main(args: readonly string[]): number {
  const nodes = option(args, "--nodes", 1000);
  const pods = option(args, "--pods", 10000);
  const passes = option(args, "--passes", 3);
  const at = args.indexOf("--case");
  if (at >= 0) {
    const c = CASES.find((x) => x.name === args[at + 1]);
    if (c === undefined) throw new Error(`unknown case ${args[at + 1] ?? ""} (${CASES.map((x) => x.name).join(", ")})`);
    const result = runCase(c, nodes, pods, passes);
    console.log(`BENCH_RESULT ${JSON.stringify({ suite: "disruption", ...result })}`);
    return result.ok ? 0 : 1;
  }
  const only = args.filter((a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--"));
  const rows: PassResult[] = [];
  let failed = 0;
  for (const c of CASES.filter((x) => only.length === 0 || only.includes(x.name))) {
    const child = spawnSync(
      process.execPath,
      [
        fileURLToPath(import.meta.url),
        "--case",
        c.name,
        "--nodes",
        String(nodes),
        "--pods",
        String(pods),
        "--passes",
        String(passes),
      ],
      { encoding: "utf8" },
    );
    const line = child.stdout.split("\n").find((l) => l.startsWith("BENCH_RESULT "));
    if (line === undefined || child.status !== 0) failed++;
    if (line !== undefined) {
      console.log(line);
      rows.push(JSON.parse(line.slice("BENCH_RESULT ".length)) as PassResult);
    } else process.stderr.write(child.stderr);
  }
  console.log(`\n${CASES.map((c) => `${c.name}: ${c.what}`).join("\n")}\n\n${table(rows)}`);
  const slowest = Math.max(...rows.flatMap((r) => r.wall));
  console.log(
    `\nslowest pass ${slowest.toFixed(2)} s wall (target < 5 s per pass; ` +
      `wall time depends on the host's load, CPU time does not)`,
  );
  return failed === 0 ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));

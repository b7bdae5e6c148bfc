/**
 * End to end, the real Karpenter v1.15.1 AWS controller beside kerf's operator: each on a fresh real
 * test environment (etcd, kube-apiserver, kube-scheduler, kube-controller-manager, kwok, moto), one
 * after the other, with the same NodePool, EC2NodeClass, workloads and phases (phases.ts), the same
 * moto bridge in front of moto (moto-bridge.ts: catalog spot prices, CreateFleet allocation strategies,
 * the al2023 SSM parameters) and the same kubelet simulation (test/harness/kubelet-sim.ts).
 *
 * Per phase and controller: seconds to every pod Running (scale-up) or until Nodes and NodeClaims stop
 * changing (scale-down, drift), NodeClaims, the running instances' types and catalog $/h, CreateFleet
 * launches (dry runs excluded) and all AWS calls, the controller's CPU seconds (utime + stime from
 * /proc/<pid>/stat, reaped children included) and peak RSS (VmHWM, since the process started).
 * Prints one `BENCH_RESULT {json}` per phase and controller (with the AWS calls by action) and a
 * side-by-side table.
 *
 * Usage: node test/perf/controller/e2e.bench.ts [--no-karpenter] [--no-kerf] [--phases up100,up300,...]
 *   [--timeout SECONDS (cap on every phase)] [--budget MINUTES (per controller, default 13)]
 *   [--consolidate-after 1m] [--logs DIR (keep both controllers' logs)]
 * Karpenter is built from the Go module proxy on first use (karpenter-controller.ts; ~8 min on 2 cores).
 */
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  CLUSTER,
  runKarpenter,
  runKerf,
  startCluster,
  waitNodePoolReady,
  type Cluster,
  type Controller,
} from "./cluster.ts";
import { buildKarpenterController } from "./karpenter-controller.ts";
import { catalogPrices } from "./moto-bridge.ts";
import { ClusterWatch, fleet, processUsage } from "./observe.ts";
import { PHASES, prepareWorkloads, waitPhase, type Desired, type Phase } from "./phases.ts";

const { values } = parseArgs({
  options: {
    "no-karpenter": { type: "boolean", default: false },
    "no-kerf": { type: "boolean", default: false },
    phases: { type: "string", default: PHASES.map((p) => p.name).join(",") },
    timeout: { type: "string" },
    budget: { type: "string", default: "13" },
    "consolidate-after": { type: "string", default: "1m" },
    logs: { type: "string" },
  },
});

const wanted = values.phases
  .split(",")
  .map((s) => s.trim())
  .filter((s) => s !== "");
const unknown = wanted.filter((n) => !PHASES.some((p) => p.name === n));
if (unknown.length > 0) {
  throw new Error(`--phases: unknown ${unknown.join(", ")} (known: ${PHASES.map((p) => p.name).join(", ")})`);
}
// Phases build on each other's workloads, so they always run in the bench's order.
const phases = PHASES.filter((p) => wanted.includes(p.name));
const capS = values.timeout === undefined ? Infinity : Number(values.timeout);
const budgetMs = Number(values.budget) * 60_000;
const consolidateAfterS = durationSeconds(values["consolidate-after"]);
const quietMs = (consolidateAfterS + 60) * 1000;
const prices = catalogPrices();

/** One phase of one controller. */
interface Row {
  readonly controller: string;
  readonly phase: string;
  readonly status: string;
  readonly seconds: number;
  readonly pods: number;
  readonly nodeClaims: number;
  readonly nodes: number;
  readonly instances: number;
  readonly pricePerHour: number;
  readonly instanceTypes: Readonly<Record<string, number>>;
  readonly createFleet: number;
  /** NodeClaims created during the phase (karpenter_nodeclaims_created_total's increase, read from the API). */
  readonly created: number;
  readonly awsCalls: number;
  /** The phase's AWS calls by action (BENCH_RESULT only). */
  readonly awsCallsByAction: Readonly<Record<string, number>>;
  readonly cpuSeconds: number;
  readonly peakRssMiB: number;
}

function durationSeconds(text: string): number {
  const m = /^(\d+)(s|m)$/.exec(text);
  if (m === null) throw new Error(`--consolidate-after: expected e.g. 0s, 30s or 1m, got ${text}`);
  return Number(m[1]) * (m[2] === "m" ? 60 : 1);
}

function log(line: string): void {
  process.stderr.write(`[e2e ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

function sum(map: ReadonlyMap<string, number>): number {
  let n = 0;
  for (const v of map.values()) n += v;
  return n;
}

/** Counts that grew since `before`, by key. */
function since(now: ReadonlyMap<string, number>, before: ReadonlyMap<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of now) if (v > (before.get(k) ?? 0)) out[k] = v - (before.get(k) ?? 0);
  return out;
}

/** Runs one phase and measures it. */
interface PhaseRun {
  readonly cluster: Cluster;
  readonly controller: Controller;
  readonly watch: ClusterWatch;
  readonly phase: Phase;
  readonly timeoutMs: number;
  /** The replicas asked for so far; the phase adds its own. */
  readonly desired: Desired;
}

async function runPhase(o: PhaseRun): Promise<Row> {
  const { cluster, controller, watch, phase } = o;
  const usage0 = processUsage(controller.pid);
  const launches0 = cluster.bridge.launches;
  const created0 = watch.nodeClaimsCreated;
  const calls0 = new Map(cluster.bridge.calls);
  const before = phase.name === "drift" ? new Set(watch.nodeClaims.keys()) : new Set<string>();
  const start = Date.now();
  await phase.act(cluster.kc, o.desired);
  const pods = sum(o.desired);
  const end = await waitPhase(watch, { phase, pods, start, timeoutMs: o.timeoutMs, quietMs, before });
  const usage = processUsage(controller.pid);
  const f = await fleet(cluster.moto, CLUSTER, prices);
  return {
    controller: controller.name,
    phase: phase.name,
    status: end.status,
    seconds: end.seconds,
    pods,
    nodeClaims: watch.liveNodeClaims().length,
    nodes: watch.nodes.size,
    instances: f.instances,
    pricePerHour: f.pricePerHour,
    instanceTypes: f.types,
    createFleet: cluster.bridge.launches - launches0,
    created: watch.nodeClaimsCreated - created0,
    awsCalls: sum(cluster.bridge.calls) - sum(calls0),
    awsCallsByAction: since(cluster.bridge.calls, calls0),
    cpuSeconds: usage.cpuSeconds - usage0.cpuSeconds,
    peakRssMiB: usage.peakRssMiB,
  };
}

/** Every phase on one fresh cluster with one controller; a phase past the controller's budget is skipped. */
async function runController(name: "karpenter" | "kerf", binary: string | undefined): Promise<Row[]> {
  const rows: Row[] = [];
  const began = Date.now();
  log(`${name}: starting a fresh environment`);
  const cluster = await startCluster({ consolidateAfter: values["consolidate-after"] });
  let controller: Controller | undefined;
  let watch: ClusterWatch | undefined;
  try {
    controller = name === "karpenter" ? await runKarpenter(cluster, binary ?? "") : await runKerf(cluster);
    await waitNodePoolReady(cluster.kc);
    log(`${name}: NodePool Ready ${((Date.now() - began) / 1000).toFixed(1)} s after the environment began`);
    await prepareWorkloads(cluster.kc);
    watch = await ClusterWatch.start(cluster.kc);
    const desired: Desired = new Map();
    for (const phase of phases) {
      const left = budgetMs - (Date.now() - began);
      if (left < 30_000) {
        rows.push(skipped(name, phase, "skipped (budget)", sum(desired)));
        continue;
      }
      const timeoutMs = Math.min(phase.timeoutS * 1000, capS * 1000, left);
      const row = await runPhase({ cluster, controller, watch, phase, timeoutMs, desired });
      log(
        `${name} ${phase.name}: ${row.status} ${row.seconds.toFixed(1)} s, ${row.nodeClaims} NodeClaims, ` +
          `$${row.pricePerHour.toFixed(3)}/h, ${row.createFleet} CreateFleet, ${row.cpuSeconds.toFixed(1)} CPU s`,
      );
      rows.push(row);
    }
  } finally {
    await watch?.stop();
    await controller?.stop();
    keepLogs(name, cluster, controller);
    await cluster.stop();
  }
  return rows;
}

function skipped(controller: string, phase: Phase, status: string, pods = Number.NaN): Row {
  return {
    controller,
    phase: phase.name,
    status,
    seconds: Number.NaN,
    pods,
    nodeClaims: 0,
    nodes: 0,
    instances: 0,
    pricePerHour: 0,
    instanceTypes: {},
    createFleet: 0,
    created: 0,
    awsCalls: 0,
    awsCallsByAction: {},
    cpuSeconds: Number.NaN,
    peakRssMiB: Number.NaN,
  };
}

/** Copies the controller's log (and the environment's component logs) to --logs before the environment is removed. */
function keepLogs(name: string, cluster: Cluster, controller: Controller | undefined): void {
  if (values.logs === undefined) return;
  const dir = path.join(values.logs, name);
  mkdirSync(dir, { recursive: true });
  const components = ["kube-apiserver", "kube-scheduler", "kube-controller-manager", "kwok", "moto"];
  const files = [controller?.logFile, ...components.map((c) => path.join(cluster.env.state.dir, `${c}.log`))];
  for (const f of files) if (f !== undefined && existsSync(f)) copyFileSync(f, path.join(dir, path.basename(f)));
}

function fmt(n: number, digits = 1): string {
  return Number.isNaN(n) ? "–" : n.toFixed(digits);
}

function typesOf(r: Row): string {
  const sorted = Object.entries(r.instanceTypes).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return sorted.map(([t, n]) => `${n}× ${t}`).join(", ") || "–";
}

/** Side by side: one row per phase, each cell "karpenter / kerf"; then the instance types of every phase. */
function table(rows: readonly Row[], controllers: readonly string[]): string {
  const row = (c: string, p: Phase): Row | undefined => rows.find((x) => x.controller === c && x.phase === p.name);
  const cell = (p: Phase, value: (r: Row) => string): string =>
    controllers
      .map((c) => {
        const r = row(c, p);
        return r === undefined ? "–" : value(r);
      })
      .join(" / ");
  const columns: readonly [string, (r: Row) => string][] = [
    ["status", (r) => r.status],
    ["seconds", (r) => fmt(r.seconds)],
    ["NodeClaims", (r) => String(r.nodeClaims)],
    ["$/h", (r) => fmt(r.pricePerHour, 3)],
    ["NodeClaims created", (r) => String(r.created)],
    ["CreateFleet", (r) => String(r.createFleet)],
    ["AWS calls", (r) => String(r.awsCalls)],
    ["CPU s", (r) => fmt(r.cpuSeconds, 1)],
    ["peak RSS MiB", (r) => fmt(r.peakRssMiB, 0)],
  ];
  const head = `| phase | ${columns.map(([name]) => name).join(" | ")} |`;
  const sep = `|---|${columns.map(() => "---").join("|")}|`;
  const podsOf = (p: Phase): string =>
    fmt(rows.find((r) => r.phase === p.name && !Number.isNaN(r.pods))?.pods ?? Number.NaN, 0);
  const body = phases.map((p) => {
    const cells = columns.map(([, v]) => cell(p, v)).join(" | ");
    return `| ${p.name} (${podsOf(p)} pods) | ${cells} |`;
  });
  const types = rows.map((r) => `| ${r.controller} | ${r.phase} | ${r.instances} | ${typesOf(r)} |`);
  const typesHead = [
    "| controller | phase | instances | instance types (count × type capacity-type) |",
    "|---|---|---|---|",
  ];
  return [head, sep, ...body, "", ...typesHead, ...types].join("\n");
}

const build = values["no-karpenter"] ? undefined : buildKarpenterController();
const controllers: ("karpenter" | "kerf")[] = [
  ...(values["no-karpenter"] ? [] : ["karpenter" as const]),
  ...(values["no-kerf"] ? [] : ["kerf" as const]),
];
/** The Karpenter binary, once its build (started first thing) is done; throws why it could not be built. */
async function karpenterBinary(): Promise<string> {
  log("karpenter: building (cached after the first time)");
  const built = await build;
  if (built === undefined || "skipped" in built) throw new Error(built === undefined ? "not built" : built.skipped);
  return built.binary;
}

const rows: Row[] = [];
let failed = 0;
for (const name of controllers) {
  try {
    rows.push(...(await runController(name, name === "karpenter" ? await karpenterBinary() : undefined)));
  } catch (error) {
    failed++;
    log(`${name}: failed: ${(error as Error).stack ?? String(error)}`);
    const reason = `failed: ${(error as Error).message.split("\n")[0] ?? ""}`;
    const missing = phases.filter((p) => !rows.some((r) => r.controller === name && r.phase === p.name));
    rows.push(...missing.map((p) => skipped(name, p, reason)));
  }
}
process.stdout.write(
  `End to end, Karpenter v1.15.1 beside kerf (consolidateAfter ${values["consolidate-after"]}, ` +
    `quiet window ${quietMs / 1000} s; each cell: ${controllers.join(" / ")})\n`,
);
process.stdout.write(`${table(rows, controllers)}\n`);
for (const r of rows) {
  process.stdout.write(`BENCH_RESULT ${JSON.stringify({ name: `e2e-${r.controller}-${r.phase}`, ...r })}\n`);
}
process.exitCode = failed === 0 ? 0 : 1;

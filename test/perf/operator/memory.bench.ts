/**
 * Operator memory with a large cluster in its caches (issue 5, item 8): 1,000 Nodes and 10,000
 * Running Pods bound to them, written into a private real apiserver (+ moto for the AWS providers),
 * then the whole operator started in a child process, once per V8 flag variant. Reports the time to
 * sync and the child's RSS (from /proc, after a settle period and a full GC), its peak RSS, and its
 * V8 heap. V8 grows the young generation up to 2 × 64 MiB under allocation bursts (the initial
 * list) and keeps it, so the variants bound it (--max-semi-space-size) or trade JIT speed for size.
 * "shipped" runs the operator as the Helm chart's Deployment does (its node flags, NODE_OPTIONS and malloc
 * settings, rendered by helm; Node's compile cache warm as the image ships it); the 300 MiB target is judged on it.
 * Usage: node test/perf/operator/memory.bench.ts [--nodes 1000] [--pods 10000] [--concurrency 48] [--settle 10s]
 *          [--variants shipped,default,semi-space-2,optimize-for-size]
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { KubeConfig } from "@kubernetes/client-node";
import type { V1Container, V1Deployment } from "@kubernetes/client-node";
import { renderChart } from "../../harness/chart.ts";
import { deploymentContainer, kerfInvocation, only } from "../../harness/manifests.ts";
import { parseDuration } from "../../../policies/domain/duration.ts";
import { startEnvironment } from "../../harness/environment.ts";
import { installCrds } from "../../harness/crds.ts";
import { generatedCrds } from "../../harness/karpenter-crds.ts";
import { benchNode, benchPod, create, forEachConcurrently, patchPodStatus, runningStatus } from "./cluster-objects.ts";

const { values } = parseArgs({
  options: {
    nodes: { type: "string", default: "1000" },
    pods: { type: "string", default: "10000" },
    concurrency: { type: "string", default: "48" },
    settle: { type: "string", default: "10s" },
    variants: { type: "string", default: "shipped,default,semi-space-2,optimize-for-size" },
  },
});
const nodeCount = Number(values.nodes);
const podCount = Number(values.pods);
const concurrency = Number(values.concurrency);
const settleMs = Number(parseDuration(values.settle));
const NAMESPACES = 10;
/** How the operator process runs: V8 flags, extra environment, and whether Node's compile cache is on (and warm). */
interface Variant {
  readonly name: string;
  readonly flags: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly compileCache: boolean;
}

/** The operator container of the Deployment the Helm chart renders with its default values. */
const shippedOperator: V1Container = deploymentContainer(
  only<V1Deployment>(await renderChart(), "Deployment", "kerf-operator"),
  "controller",
);

function shippedContainer(): V1Container {
  return shippedOperator;
}

/** The Node/glibc settings the operator container gets from its environment. */
function shippedEnv(): Record<string, string> {
  const env = shippedContainer().env ?? [];
  return Object.fromEntries(
    env
      .filter((e) => /^(NODE_OPTIONS|MALLOC_|UV_)/.test(e.name) && e.value !== undefined)
      .map((e) => [e.name, e.value ?? ""]),
  );
}

/** The V8 flags the operator container passes on Node's command line. */
function shippedFlags(): readonly string[] {
  return kerfInvocation(shippedContainer()).nodeFlags;
}

const VARIANTS: Readonly<Record<string, () => Variant>> = {
  default: () => ({ name: "default", flags: [], env: {}, compileCache: false }),
  "semi-space-2": () => ({ name: "semi-space-2", flags: ["--max-semi-space-size=2"], env: {}, compileCache: false }),
  "optimize-for-size": () => ({
    name: "optimize-for-size",
    flags: ["--optimize-for-size"],
    env: {},
    compileCache: false,
  }),
  // What the chart's Deployment runs: its env, and the compile cache the image ships warm.
  shipped: () => ({ name: "shipped", flags: shippedFlags(), env: shippedEnv(), compileCache: true }),
  // Candidates for the shipped settings: the shipped ones plus one change each.
  "shipped+trim": () => ({
    name: "shipped+trim",
    flags: shippedFlags(),
    env: { ...shippedEnv(), MALLOC_TRIM_THRESHOLD_: "131072" },
    compileCache: true,
  }),
  "shipped+semi-space-2": () => ({
    name: "shipped+semi-space-2",
    flags: [...shippedFlags(), "--max-semi-space-size=2"],
    env: shippedEnv(),
    compileCache: true,
  }),
  "shipped-without-optimize-for-size": () => ({
    name: "shipped-without-optimize-for-size",
    flags: shippedFlags().filter((f) => f !== "--optimize-for-size"),
    env: shippedEnv(),
    compileCache: true,
  }),
};
const variants = values.variants.split(",").map((v) => {
  const variant = VARIANTS[v];
  if (variant === undefined)
    throw new Error(`--variants: unknown variant ${v} (known: ${Object.keys(VARIANTS).join(", ")})`);
  return variant();
});

function procStatus(pid: number): { rssMiB: number; peakMiB: number } {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0);
  return { rssMiB: kib("VmRSS") / 1024, peakMiB: kib("VmHWM") / 1024 };
}

async function populate(kc: KubeConfig): Promise<{ seconds: number }> {
  const t = performance.now();
  for (let n = 0; n < NAMESPACES; n++) await create(kc, "/api/v1/namespaces", { metadata: { name: `bench-${n}` } });
  const nodes = Array.from({ length: nodeCount }, (_, i) => benchNode(i));
  await forEachConcurrently(nodeCount, concurrency, (i) => create(kc, "/api/v1/nodes", nodes[i]));
  const pods = Array.from({ length: podCount }, (_, i) =>
    benchPod(i, `bench-${i % NAMESPACES}`, nodes[i % nodeCount]?.metadata.name ?? ""),
  );
  await forEachConcurrently(podCount, concurrency, (i) =>
    create(kc, `/api/v1/namespaces/${pods[i]?.metadata.namespace ?? ""}/pods`, pods[i]),
  );
  // Pod status is reset on create; a kubelet would report it Running.
  await forEachConcurrently(podCount, concurrency, (i) =>
    patchPodStatus(kc, pods[i]?.metadata.namespace ?? "", pods[i]?.metadata.name ?? "", runningStatus(i)),
  );
  return { seconds: (performance.now() - t) / 1000 };
}

/** Loads every operator module once with the compile cache on, as the image build does. */
function warmCompileCache(dir: string): void {
  const main = pathToFileURL(path.join(import.meta.dirname, "../../../operator/main.ts")).href;
  // The disruption planner's thread entry too, as the Dockerfile warms it (main.ts imports it only by URL).
  const thread = pathToFileURL(
    path.join(import.meta.dirname, "../../../operator/controllers/disruption/planner-thread.ts"),
  ).href;
  const imports = [main, thread].map((m) => `await import(${JSON.stringify(m)});`).join(" ");
  const warm = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `import m from "node:module"; m.enableCompileCache(${JSON.stringify(dir)}); ${imports} m.flushCompileCache();`,
    ],
    { stdio: "inherit" },
  );
  if (warm.status !== 0) throw new Error("warming the compile cache failed");
}

function runOperator(
  kubeconfig: string,
  awsEndpoint: string,
  variant: Variant,
): Promise<{
  synced: Record<string, number>;
  memory: Record<string, number>;
  proc: { rssMiB: number; peakMiB: number };
}> {
  const args = [
    "--kubeconfig",
    kubeconfig,
    "--aws-endpoint",
    awsEndpoint,
    "--nodes",
    String(nodeCount),
    "--pods",
    String(podCount),
    "--memory-after",
    String(settleMs),
  ];
  if (variant.compileCache) {
    const dir = mkdtempSync(path.join(os.tmpdir(), "kerf-compile-cache-"));
    warmCompileCache(dir);
    args.push("--compile-cache", dir);
  }
  const child = spawn(
    process.execPath,
    [...variant.flags, "--expose-gc", path.join(import.meta.dirname, "operator-process.ts"), ...args],
    { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, ...variant.env } },
  );
  return new Promise((resolve, reject) => {
    let synced: Record<string, number> = {};
    let buffer = "";
    child.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.startsWith("SYNCED ")) synced = JSON.parse(line.slice(7)) as Record<string, number>;
        if (line.startsWith("MEMORY ") && child.pid !== undefined) {
          const proc = procStatus(child.pid);
          child.kill("SIGTERM");
          resolve({ synced, memory: JSON.parse(line.slice(7)) as Record<string, number>, proc });
        }
      }
    });
    child.on("exit", (code) => reject(new Error(`operator process exited with ${code} before reporting memory`)));
  });
}

const env = await startEnvironment({ moto: true });
try {
  const kc = new KubeConfig();
  kc.loadFromFile(env.state.kubeconfig);
  await installCrds(kc, generatedCrds());
  const written = await populate(kc);
  process.stdout.write(`wrote ${nodeCount} Nodes and ${podCount} Running Pods in ${written.seconds.toFixed(1)} s\n`);
  const f = (n: number | undefined): string => (n ?? 0).toFixed(1);
  const rows: string[] = [];
  const results: string[] = [];
  let shippedRss = Number.NaN;
  for (const variant of variants) {
    const { synced, memory, proc } = await runOperator(env.state.kubeconfig, env.state.awsEndpoint ?? "", variant);
    if (variant.name === "shipped") shippedRss = proc.rssMiB;
    const syncSeconds = (synced["syncMs"] ?? 0) / 1000;
    rows.push(
      `| ${variant.name} | ${nodeCount} | ${podCount} | ${syncSeconds.toFixed(2)} | ${f(proc.rssMiB)} | ` +
        `${f(proc.peakMiB)} | ${f(memory["heapUsedMiB"])} | ${f(memory["heapTotalMiB"])} |`,
    );
    const benchResult = {
      name: `operator-memory-${nodeCount}n-${podCount}p-${variant.name}`,
      flags: variant.flags.join(" "),
      env: variant.env,
      compileCache: variant.compileCache,
      nodes: nodeCount,
      pods: podCount,
      syncSeconds,
      rssMiB: proc.rssMiB,
      peakRssMiB: proc.peakMiB,
      heapUsedMiB: memory["heapUsedMiB"],
      heapTotalMiB: memory["heapTotalMiB"],
      target: "rss <= 300 MiB",
      met: proc.rssMiB <= 300,
    };
    results.push(`BENCH_RESULT ${JSON.stringify(benchResult)}`);
  }
  process.stdout.write(
    [
      `operator memory with ${nodeCount} Nodes / ${podCount} Pods in its caches (own process, ` +
        `settled ${settleMs / 1000} s, after full GC)`,
      "| variant | nodes | pods | sync s | RSS MiB | peak RSS MiB | heap used MiB | heap total MiB |",
      "|---|---|---|---|---|---|---|---|",
      ...rows,
      ...results,
    ].join("\n") + "\n",
  );
  // The target is judged on the shipped configuration (what the operator Deployment runs); the
  // others are reported for sizing.
  process.exitCode = Number.isNaN(shippedRss) || shippedRss <= 300 ? 0 : 1;
} finally {
  await env.stop();
}

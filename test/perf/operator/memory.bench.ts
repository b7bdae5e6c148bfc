/**
 * Operator memory with a large cluster in its caches (issue 5, item 8): 1,000 Nodes and 10,000
 * Running Pods bound to them, written into a private real apiserver (+ moto for the AWS providers),
 * then the whole operator started in a child process. Reports the time to sync and the child's RSS
 * (from /proc, after a settle period and a full GC), its peak RSS, and its V8 heap.
 * Usage: node test/perf/operator/memory.bench.ts [--nodes 1000] [--pods 10000] [--concurrency 48] [--settle 10s]
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { KubeConfig } from "@kubernetes/client-node";
import { parseDuration } from "../../../policies/domain/duration.ts";
import { startEnvironment } from "../../harness/environment.ts";
import { installCrds } from "../../harness/crds.ts";
import { generatedCrds } from "../../harness/karpenter-crds.ts";
import { benchNode, benchPod, create, forEachConcurrently, patchPodStatus, runningStatus } from "./cluster-objects.ts";

const { values } = parseArgs({ options: { nodes: { type: "string", default: "1000" }, pods: { type: "string", default: "10000" }, concurrency: { type: "string", default: "48" }, settle: { type: "string", default: "10s" } } });
const nodeCount = Number(values.nodes);
const podCount = Number(values.pods);
const concurrency = Number(values.concurrency);
const settleMs = Number(parseDuration(values.settle));
const NAMESPACES = 10;

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
  const pods = Array.from({ length: podCount }, (_, i) => benchPod(i, `bench-${i % NAMESPACES}`, nodes[i % nodeCount]?.metadata.name ?? ""));
  await forEachConcurrently(podCount, concurrency, (i) => create(kc, `/api/v1/namespaces/${pods[i]?.metadata.namespace ?? ""}/pods`, pods[i]));
  // Pod status is reset on create; a kubelet would report it Running.
  await forEachConcurrently(podCount, concurrency, (i) => patchPodStatus(kc, pods[i]?.metadata.namespace ?? "", pods[i]?.metadata.name ?? "", runningStatus(i)));
  return { seconds: (performance.now() - t) / 1000 };
}

function runOperator(kubeconfig: string, awsEndpoint: string): Promise<{ synced: Record<string, number>; memory: Record<string, number>; proc: { rssMiB: number; peakMiB: number } }> {
  const args = ["--kubeconfig", kubeconfig, "--aws-endpoint", awsEndpoint, "--nodes", String(nodeCount), "--pods", String(podCount), "--memory-after", String(settleMs)];
  const child = spawn(process.execPath, ["--expose-gc", path.join(import.meta.dirname, "operator-process.ts"), ...args], { stdio: ["ignore", "pipe", "inherit"] });
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
  const { synced, memory, proc } = await runOperator(env.state.kubeconfig, env.state.awsEndpoint ?? "");
  const f = (n: number | undefined): string => (n ?? 0).toFixed(1);
  process.stdout.write([
    `operator memory with ${nodeCount} Nodes / ${podCount} Pods in its caches (own process, settled ${settleMs / 1000} s, after full GC)`,
    "| nodes | pods | sync s | RSS MiB | peak RSS MiB | heap used MiB | heap total MiB |",
    "|---|---|---|---|---|---|---|",
    `| ${nodeCount} | ${podCount} | ${((synced["syncMs"] ?? 0) / 1000).toFixed(2)} | ${f(proc.rssMiB)} | ${f(proc.peakMiB)} | ${f(memory["heapUsedMiB"])} | ${f(memory["heapTotalMiB"])} |`,
    `BENCH_RESULT ${JSON.stringify({ name: `operator-memory-${nodeCount}n-${podCount}p`, nodes: nodeCount, pods: podCount, syncSeconds: (synced["syncMs"] ?? 0) / 1000, rssMiB: proc.rssMiB, peakRssMiB: proc.peakMiB, heapUsedMiB: memory["heapUsedMiB"], target: "rss <= 300 MiB", met: proc.rssMiB <= 300 })}`,
  ].join("\n") + "\n");
  process.exitCode = proc.rssMiB <= 300 ? 0 : 1;
} finally {
  await env.stop();
}

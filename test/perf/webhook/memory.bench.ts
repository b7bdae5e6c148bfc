/**
 * Webhook memory under distinct inputs of mixed size: the real kerf webhook in its own process receives
 * `--requests` NodePool CREATE reviews, every one different (re-applied manifests repeat, but an attacker
 * or a generator need not), most small, every 10th medium (~20 KiB of requirements) and every
 * `--large-every`th large (~`--large-mib` MiB of instance-type values, as when a generator lists the whole
 * catalog). It samples the server's RSS every 100 requests and fails when the largest sample or the
 * kernel's peak (VmHWM) reaches `--limit-mib` (the Deployment's limit is 384 Mi; 256 MiB leaves headroom), or
 * when any review is not answered 200 (a server that runs out of heap stops answering).
 * Usage: node test/perf/webhook/memory.bench.ts [--requests 100000] [--large-every 100] [--large-mib 2]
 *        [--concurrency 4] [--limit-mib 256] [--node-flags "--optimize-for-size ..."]
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";

const here = import.meta.dirname;
const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "100000" },
    "large-every": { type: "string", default: "100" },
    "large-mib": { type: "string", default: "2" },
    concurrency: { type: "string", default: "4" },
    "limit-mib": { type: "string", default: "256" },
    "node-flags": { type: "string", default: "" },
  },
});
const total = Number(values.requests);
const largeEvery = Number(values["large-every"]);
const largeBytes = Number(values["large-mib"]) * 1024 * 1024;
const concurrency = Number(values.concurrency);
const limitMiB = Number(values["limit-mib"]);

/** `count` distinct instance-type-like values for request `i` (valid label values, ~30 bytes each). */
function instanceTypes(i: number, count: number): string[] {
  return Array.from({ length: count }, (_, j) => `r${i}-family${j % 997}.size${j}`);
}

function review(i: number, requirements: unknown[]): string {
  const object = {
    apiVersion: "karpenter.sh/v1",
    kind: "NodePool",
    metadata: { name: `pool-${i}` },
    spec: {
      template: {
        metadata: { labels: { team: `t${i}` } },
        spec: { nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" }, requirements },
      },
      limits: { cpu: "1000", memory: "1000Gi" },
      disruption: { consolidationPolicy: "WhenEmptyOrUnderutilized", consolidateAfter: "1m" },
    },
  };
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
      kind: { group: "karpenter.sh", version: "v1", kind: "NodePool" },
      resource: { group: "karpenter.sh", version: "v1", resource: "nodepools" },
      operation: "CREATE",
      userInfo: { username: "kubernetes-admin" },
      object,
      dryRun: false,
    },
  });
}

/** The i-th request's body: small, medium or large, always distinct from every other. */
function body(i: number): { text: string; size: "small" | "medium" | "large" } {
  const category = { key: "karpenter.k8s.aws/instance-category", operator: "In", values: ["c", "m", "r"] };
  if (i % largeEvery === 0) {
    const values = instanceTypes(i, Math.floor(largeBytes / 32));
    return {
      text: review(i, [category, { key: "node.kubernetes.io/instance-type", operator: "In", values }]),
      size: "large",
    };
  }
  if (i % 10 === 0) {
    const requirements = Array.from({ length: 20 }, (_, k) => ({
      key: `example.com/k${k}`,
      operator: "In",
      values: instanceTypes(i, 30),
    }));
    return { text: review(i, [category, ...requirements]), size: "medium" };
  }
  return {
    text: review(i, [
      category,
      { key: "node.kubernetes.io/instance-type", operator: "NotIn", values: [`x${i}.large`] },
    ]),
    size: "small",
  };
}

/**
 * The webhook as the Deployment runs it: the heap limit Node sets itself in the 384 Mi container (V8 sizes
 * the old generation at a quarter of the memory it may use, times 2 on 64-bit; on a host without that
 * limit V8 lets garbage grow towards gigabytes before collecting, which says nothing about what the
 * webhook retains), plus the chart's webhook.nodeFlags, .nodeOptions and .mallocArenaMax
 * (manifests/charts/kerf/values.yaml).
 */
const CONTAINER_FLAGS = ["--max-old-space-size=192", "--max-semi-space-size=4", "--optimize-for-size"];
const CONTAINER_ENV = { MALLOC_ARENA_MAX: "2" };

function startServer(): Promise<{ child: ChildProcess; port: number }> {
  const flags = values["node-flags"] === "" ? [] : values["node-flags"].split(" ");
  const args = [...CONTAINER_FLAGS, ...flags, path.join(here, "server-process.ts"), "kerf"];
  const child = spawn(process.execPath, args, {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...CONTAINER_ENV },
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      const match = /listening (\d+)/.exec(chunk.toString());
      if (match !== null) resolve({ child, port: Number(match[1]) });
    });
    child.on("exit", (code) => reject(new Error(`starting the webhook: exited with ${code}`)));
  });
}

/** VmRSS and VmHWM (peak) of a process in MiB, from /proc. */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
  return { rss: kib("VmRSS") / 1024, peak: kib("VmHWM") / 1024 };
}

function post(agent: http.Agent, port: number, text: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path: "/validate",
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", () => resolve(0));
    req.end(text);
  });
}

const { child, port } = await startServer();
const pid = child.pid as number;
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const sent = { small: 0, medium: 0, large: 0 };
let next = 1;
let failures = 0;
let maxRss = 0;
const started = performance.now();
const startRss = memory(pid).rss;
try {
  const client = async (): Promise<void> => {
    for (let i = next++; i <= total; i = next++) {
      const { text, size } = body(i);
      sent[size]++;
      if ((await post(agent, port, text)) !== 200) failures++;
      if (i % 100 === 0) maxRss = Math.max(maxRss, memory(pid).rss);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
} finally {
  agent.destroy();
}
const seconds = (performance.now() - started) / 1000;
const end = memory(pid);
child.kill("SIGTERM");
maxRss = Math.max(maxRss, end.rss);
const ok = failures === 0 && maxRss < limitMiB && end.peak < limitMiB;
const benchResult = {
  name: "webhook-memory",
  requests: total,
  large: sent.large,
  seconds,
  startRssMiB: startRss,
  maxRssMiB: maxRss,
  endRssMiB: end.rss,
  peakMiB: end.peak,
  limitMiB,
  failures,
  ok,
};
process.stdout.write(
  [
    `webhook memory: ${total} distinct reviews (${sent.small} small, ${sent.medium} medium ~20 KiB, ` +
      `${sent.large} large ~${values["large-mib"]} MiB) over ${concurrency} connections in ${seconds.toFixed(0)} s`,
    "| RSS at start MiB | largest sampled RSS MiB | RSS at end MiB | peak (VmHWM) MiB | limit MiB | non-200 answers |",
    "|---|---|---|---|---|---|",
    `| ${startRss.toFixed(0)} | ${maxRss.toFixed(0)} | ${end.rss.toFixed(0)} | ${end.peak.toFixed(0)} | ` +
      `${limitMiB} | ${failures} |`,
    `BENCH_RESULT ${JSON.stringify(benchResult)}`,
    "",
  ].join("\n"),
);
if (!ok) process.exitCode = 1;

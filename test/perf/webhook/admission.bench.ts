/**
 * Webhook latency and throughput: the real kerf webhook (`POST /validate`, a realistic NodePool
 * CREATE review) side by side with a bare fastify endpoint on the same machine, at a fixed
 * concurrency. Each server runs in its own process pinned to one core (taskset, when available);
 * the load generator runs on the other. Besides throughput and latency it reports the server's own
 * CPU time per review (from /proc), which is what "reviews/s on one core" means and which, unlike
 * wall-clock throughput, does not depend on how much CPU the load generator gets on a shared host.
 * With --rate it also measures latency at a fixed arrival rate below saturation (open loop), where
 * p99 reflects service time rather than the queue of 200 waiting requests.
 * --node-flags gives the kerf server V8 flags (the chart runs the webhook with --optimize-for-size).
 * Usage: node test/perf/webhook/admission.bench.ts [--concurrency 200] [--seconds 10] [--rate 1000] [--node-flags=...]
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { parse } from "yaml";
import { runLoad, type LoadResult } from "./load.ts";

const here = import.meta.dirname;
const root = path.resolve(here, "../../..");
const { values } = parseArgs({
  options: {
    concurrency: { type: "string", default: "200" },
    seconds: { type: "string", default: "10" },
    rate: { type: "string" },
    "node-flags": { type: "string", default: "" },
  },
});
const concurrency = Number(values.concurrency);
const durationMs = Number(values.seconds) * 1000;
const rate = values.rate === undefined ? undefined : Number(values.rate);

function reviewBody(): string {
  const docs = readFileSync(path.join(root, "manifests/examples/production.yaml"), "utf8")
    .split(/^---$/m)
    .map((d) => parse(d) as { kind: string });
  const object = docs.find((d) => d.kind === "NodePool");
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "b0c1d2e3-0000-4000-8000-000000000000",
      kind: { group: "karpenter.sh", version: "v1", kind: "NodePool" },
      resource: { group: "karpenter.sh", version: "v1", resource: "nodepools" },
      operation: "CREATE",
      userInfo: { username: "kubernetes-admin", groups: ["system:masters"] },
      object,
      dryRun: false,
    },
  });
}

const pinned = spawnSync("taskset", ["-V"]).status === 0;

function startServer(which: "kerf" | "bare"): Promise<{ child: ChildProcess; port: number }> {
  const script = path.join(here, "server-process.ts");
  const command = pinned ? "taskset" : process.execPath;
  const flags = which === "kerf" && values["node-flags"] !== "" ? values["node-flags"].split(" ") : [];
  const args = pinned ? ["-c", "0", process.execPath, ...flags, script, which] : [...flags, script, which];
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      const match = /listening (\d+)/.exec(chunk.toString());
      if (match !== null) resolve({ child, port: Number(match[1]) });
    });
    child.on("exit", (code) => reject(new Error(`starting ${which} benchmark server: exited with ${code}`)));
  });
}

/** User + system CPU seconds a process has used so far (Linux /proc; undefined elsewhere). */
function cpuSeconds(pid: number | undefined): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return undefined;
  }
}

interface Measured {
  readonly closed: LoadResult;
  /** Server CPU microseconds per review during the closed-loop window. */
  readonly cpuUsPerReview: number | undefined;
  readonly open: LoadResult | undefined;
}

async function measure(which: "kerf" | "bare", body: string): Promise<Measured> {
  const { child, port } = await startServer(which);
  try {
    await runLoad({ port, path: "/validate", body, concurrency, durationMs: 2000 }); // warm-up: JIT, connections
    const before = cpuSeconds(child.pid);
    const closed = await runLoad({ port, path: "/validate", body, concurrency, durationMs });
    const after = cpuSeconds(child.pid);
    const cpuUsPerReview =
      before === undefined || after === undefined ? undefined : ((after - before) * 1e6) / closed.requests;
    const open =
      rate === undefined
        ? undefined
        : await runLoad({ port, path: "/validate", body, concurrency, durationMs, ratePerSecond: rate });
    return { closed, cpuUsPerReview, open };
  } finally {
    child.kill("SIGTERM");
  }
}

if (pinned) spawnSync("taskset", ["-cp", "1", String(process.pid)], { stdio: "ignore" });
const body = reviewBody();
const bare = await measure("bare", body);
const kerf = await measure("kerf", body);
const cpu = (m: Measured): string =>
  m.cpuUsPerReview === undefined
    ? "n/a | n/a"
    : `${m.cpuUsPerReview.toFixed(0)} | ${(1e6 / m.cpuUsPerReview).toFixed(0)}`;
const row = (name: string, m: Measured): string => {
  const r = m.closed;
  return (
    `| ${name} | ${concurrency} | ${r.requests} | ${r.errors} | ${r.perSecond.toFixed(0)} | ` +
    `${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${cpu(m)} |`
  );
};
const openRow = (name: string, r: LoadResult): string =>
  `| ${name} | ${rate} | ${concurrency} | ${r.requests} | ${r.errors} | ${r.p50Ms.toFixed(2)} | ` +
  `${r.p99Ms.toFixed(2)} |`;
const openLines =
  kerf.open === undefined || bare.open === undefined
    ? []
    : [
        `open loop at ${rate} reviews/s over ${concurrency} connections (latency from the scheduled send time):`,
        "| endpoint | rate/s | connections | requests | errors | p50 ms | p99 ms |",
        "|---|---|---|---|---|---|---|",
        openRow("bare fastify", bare.open),
        openRow("kerf /validate", kerf.open),
        `kerf overhead at ${rate}/s: p50 +${(kerf.open.p50Ms - bare.open.p50Ms).toFixed(2)} ms, ` +
          `p99 +${(kerf.open.p99Ms - bare.open.p99Ms).toFixed(2)} ms`,
      ];
const result = (name: "bare" | "kerf", m: Measured): string => {
  const r = m.closed;
  const open =
    m.open === undefined
      ? {}
      : { openRate: rate, openP50Ms: m.open.p50Ms, openP99Ms: m.open.p99Ms, openErrors: m.open.errors };
  const benchResult = {
    name: `webhook-${name}-c${concurrency}`,
    reviewsPerSecond: Math.round(r.perSecond),
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    errors: r.errors,
    requests: r.requests,
    serverCpuUsPerReview: m.cpuUsPerReview,
    ...open,
  };
  return `BENCH_RESULT ${JSON.stringify(benchResult)}`;
};
process.stdout.write(
  [
    `webhook admission benchmark (${body.length} B review, ${durationMs / 1000} s, ` +
      `server pinned to one core: ${pinned})`,
    "| endpoint | concurrency | requests | errors | reviews/s | p50 ms | p99 ms | server CPU µs/review | " +
      "reviews/s per core |",
    "|---|---|---|---|---|---|---|---|---|",
    row("bare fastify", bare),
    row("kerf /validate", kerf),
    `kerf overhead: p50 +${(kerf.closed.p50Ms - bare.closed.p50Ms).toFixed(2)} ms, ` +
      `p99 +${(kerf.closed.p99Ms - bare.closed.p99Ms).toFixed(2)} ms` +
      (kerf.cpuUsPerReview === undefined || bare.cpuUsPerReview === undefined
        ? ""
        : `, server CPU +${(kerf.cpuUsPerReview - bare.cpuUsPerReview).toFixed(0)} µs/review`),
    ...openLines,
    result("bare", bare),
    result("kerf", kerf),
    "",
  ].join("\n"),
);

/**
 * Webhook latency and throughput: the real kerf webhook (`POST /validate`, a realistic NodePool
 * CREATE review) side by side with a bare fastify endpoint on the same machine, at a fixed
 * concurrency. Each server runs in its own process pinned to one core (taskset, when available);
 * the load generator runs on the other. Usage: node test/perf/webhook/admission.bench.ts [--concurrency 200] [--seconds 10]
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { parse } from "yaml";
import { runLoad, type LoadResult } from "./load.ts";

const here = import.meta.dirname;
const root = path.resolve(here, "../../..");
const { values } = parseArgs({ options: { concurrency: { type: "string", default: "200" }, seconds: { type: "string", default: "10" } } });
const concurrency = Number(values.concurrency);
const durationMs = Number(values.seconds) * 1000;

function reviewBody(): string {
  const docs = readFileSync(path.join(root, "manifests/examples/production.yaml"), "utf8").split(/^---$/m).map((d) => parse(d) as { kind: string });
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
  const args = pinned ? ["-c", "0", process.execPath, script, which] : [script, which];
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      const match = /listening (\d+)/.exec(chunk.toString());
      if (match !== null) resolve({ child, port: Number(match[1]) });
    });
    child.on("exit", (code) => reject(new Error(`starting ${which} benchmark server: exited with ${code}`)));
  });
}

async function measure(which: "kerf" | "bare", body: string): Promise<LoadResult> {
  const { child, port } = await startServer(which);
  try {
    await runLoad({ port, path: "/validate", body, concurrency, durationMs: 2000 }); // warm-up: JIT, connections
    return await runLoad({ port, path: "/validate", body, concurrency, durationMs });
  } finally {
    child.kill("SIGTERM");
  }
}

if (pinned) spawnSync("taskset", ["-cp", "1", String(process.pid)], { stdio: "ignore" });
const body = reviewBody();
const bare = await measure("bare", body);
const kerf = await measure("kerf", body);
const row = (name: string, r: LoadResult): string =>
  `| ${name} | ${concurrency} | ${r.requests} | ${r.errors} | ${r.perSecond.toFixed(0)} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} |`;
process.stdout.write(
  [
    `webhook admission benchmark (${body.length} B review, ${durationMs / 1000} s, server pinned to one core: ${pinned})`,
    "| endpoint | concurrency | requests | errors | reviews/s | p50 ms | p99 ms |",
    "|---|---|---|---|---|---|---|",
    row("bare fastify", bare),
    row("kerf /validate", kerf),
    `kerf overhead: p50 +${(kerf.p50Ms - bare.p50Ms).toFixed(2)} ms, p99 +${(kerf.p99Ms - bare.p99Ms).toFixed(2)} ms`,
    ...(["bare", "kerf"] as const).map((name) => {
      const r = name === "bare" ? bare : kerf;
      return `BENCH_RESULT ${JSON.stringify({ name: `webhook-${name}-c${concurrency}`, reviewsPerSecond: Math.round(r.perSecond), p50Ms: r.p50Ms, p99Ms: r.p99Ms, errors: r.errors, requests: r.requests })}`;
    }),
    "",
  ].join("\n"),
);

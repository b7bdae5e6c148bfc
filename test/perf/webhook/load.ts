/** A closed-loop HTTP load generator: N concurrent keep-alive clients POSTing one body for a fixed time. */
import http from "node:http";

/** What one run measured. */
export interface LoadResult {
  readonly requests: number;
  readonly errors: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** Options of one run. */
export interface LoadOptions {
  readonly port: number;
  readonly path: string;
  readonly body: string;
  readonly concurrency: number;
  readonly durationMs: number;
}

function post(agent: http.Agent, options: LoadOptions): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.request(
      { host: "127.0.0.1", port: options.port, path: options.path, method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(options.body) } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode === 200));
      },
    );
    req.on("error", () => resolve(false));
    req.end(options.body);
  });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** Runs the load and returns latency percentiles and throughput. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + options.durationMs;
  const client = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      const ok = await post(agent, options);
      latencies.push(performance.now() - t0);
      if (!ok) errors++;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, client));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, errors, seconds, perSecond: latencies.length / seconds, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
}

/**
 * An HTTP load generator over N keep-alive connections POSTing one body for a fixed time: closed loop
 * (each connection sends again as soon as it is answered: measures throughput, latency is mostly
 * queueing) or open loop at a fixed arrival rate (measures latency below saturation; each latency
 * counts from the request's scheduled time, so a stalled server is not hidden).
 */
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
  /** Open loop: requests per second, spread evenly over time; closed loop when absent. */
  readonly ratePerSecond?: number | undefined;
}

function post(agent: http.Agent, options: LoadOptions): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port: options.port,
        path: options.path,
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(options.body) },
      },
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

function summary(latencies: number[], errors: number, seconds: number): LoadResult {
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    seconds,
    perSecond: latencies.length / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}

/** Open loop: sends due requests every millisecond, each timed from when it was due. */
async function runOpenLoop(options: LoadOptions & { ratePerSecond: number }): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const latencies: number[] = [];
  const inFlight: Promise<void>[] = [];
  let errors = 0;
  const started = performance.now();
  const total = Math.floor((options.ratePerSecond * options.durationMs) / 1000);
  let sent = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - started) * options.ratePerSecond) / 1000));
      for (; sent < due; sent++) {
        const scheduled = started + (sent * 1000) / options.ratePerSecond;
        inFlight.push(
          post(agent, options).then((ok) => {
            latencies.push(performance.now() - scheduled);
            if (!ok) errors++;
          }),
        );
      }
      if (sent >= total) {
        clearInterval(timer);
        resolve();
      }
    }, 1);
  });
  await Promise.all(inFlight);
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return summary(latencies, errors, seconds);
}

/** Runs the load and returns latency percentiles and throughput. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  if (options.ratePerSecond !== undefined) return runOpenLoop({ ...options, ratePerSecond: options.ratePerSecond });
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
  return summary(latencies, errors, seconds);
}

/**
 * The operator as the operator benchmarks run it: its own process (so RSS and event-loop time are
 * the operator's alone), the real composition root (informers for every kind, every controller, AWS
 * providers), no HTTP servers. Prints `SYNCED {json}` once the caches hold the expected objects and,
 * with --memory-after, `MEMORY {json}` after that settle period and a full GC; exits on SIGTERM.
 * Usage: node --expose-gc operator-process.ts --kubeconfig FILE --aws-endpoint URL [--ssm-prefix P]
 *          [--cluster-name N] [--nodes N] [--pods N] [--memory-after MS] [--log FILE] [--compile-cache DIR]
 * --compile-cache enables Node's compile cache in DIR before any operator module loads, as the
 * `kerf` launcher does (and the image ships it warm), so the operator's code is not re-stripped and
 * re-compiled from source.
 */
import module from "node:module";
import { parseArgs } from "node:util";
import { setTimeout as sleep } from "node:timers/promises";
import v8 from "node:v8";

const { values } = parseArgs({
  options: {
    kubeconfig: { type: "string", default: "" },
    "aws-endpoint": { type: "string", default: "" },
    "ssm-prefix": { type: "string", default: "/kerf-bench/aws/service" },
    "cluster-name": { type: "string", default: "kerf-bench" },
    nodes: { type: "string", default: "0" },
    pods: { type: "string", default: "0" },
    "memory-after": { type: "string" },
    log: { type: "string" },
    "compile-cache": { type: "string" },
  },
});
if (values["compile-cache"] !== undefined) module.enableCompileCache(values["compile-cache"]);
const { KubeConfig } = await import("@kubernetes/client-node");
const { pino } = await import("pino");
const { loadConfig } = await import("../../../operator/config.ts");
const { startOperator } = await import("../../../operator/main.ts");
const { createLogger, silentLogger } = await import("../../../operator/observability/logger.ts");
const started = performance.now();
const kc = new KubeConfig();
kc.loadFromFile(values.kubeconfig);
const config = loadConfig({
  argv: [],
  env: {
    CLUSTER_NAME: values["cluster-name"],
    AWS_REGION: "us-east-1",
    AWS_ENDPOINT_URL: values["aws-endpoint"],
    CLUSTER_ENDPOINT: kc.getCurrentCluster()?.server ?? "",
    DISABLE_LEADER_ELECTION: "true",
    LEADER_ELECTION_IDENTITY: "bench",
  },
});
const logger =
  values.log === undefined ? silentLogger() : createLogger("info", pino.destination({ dest: values.log, sync: false }));
const operator = await startOperator(config, {
  kubeConfig: kc,
  logger,
  serveHttp: false,
  awsCredentials: { accessKeyId: "testing", secretAccessKey: "testing" },
  ssmPrefix: values["ssm-prefix"],
});
while (!(
  operator.state.synced &&
  operator.state.nodes().length >= Number(values.nodes) &&
  operator.state.pods().length >= Number(values.pods)
))
  await sleep(100);
const syncedReport = {
  syncMs: performance.now() - started,
  nodes: operator.state.nodes().length,
  pods: operator.state.pods().length,
};
process.stdout.write(`SYNCED ${JSON.stringify(syncedReport)}\n`);
if (values["memory-after"] !== undefined) {
  // Controllers reconcile every Node once after the initial list; measure after that work, not during.
  await sleep(Number(values["memory-after"]));
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  const mib = (n: number): number => Math.round((n / 2 ** 20) * 10) / 10;
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, mib(s.space_size)]));
  const memoryReport = {
    rssMiB: mib(m.rss),
    heapUsedMiB: mib(m.heapUsed),
    heapTotalMiB: mib(m.heapTotal),
    externalMiB: mib(m.external),
    arrayBuffersMiB: mib(m.arrayBuffers),
    spaces,
    gc: gc !== undefined,
  };
  process.stdout.write(`MEMORY ${JSON.stringify(memoryReport)}\n`);
}
await new Promise<void>((resolve) => process.once("SIGTERM", () => resolve()));
await operator.stop();
process.exit(0);

/**
 * One operator replica as its own process, so a test can SIGKILL it (in-process replicas can only be
 * stopped politely). The real composition root with leader election; settings come as a JSON object
 * of operator environment variables in KERF_REPLICA_ENV, plus KERF_REPLICA_KUBECONFIG, KERF_REPLICA_SSM_PREFIX
 * and, optionally, KERF_REPLICA_DISRUPTION (JSON of the disruption timings). Logs JSON lines to stdout
 * and prints `READY` once started; exits on SIGTERM after releasing the Lease.
 */
import module from "node:module";
import os from "node:os";
import path from "node:path";

module.enableCompileCache(path.join(os.tmpdir(), "kerf-replica-compile-cache"));
const { KubeConfig } = await import("@kubernetes/client-node");
const { loadConfig } = await import("../../operator/config.ts");
const { startOperator } = await import("../../operator/main.ts");
const { createLogger } = await import("../../operator/observability/logger.ts");

const env = JSON.parse(process.env["KERF_REPLICA_ENV"] ?? "{}") as Record<string, string>;
const kc = new KubeConfig();
kc.loadFromFile(process.env["KERF_REPLICA_KUBECONFIG"] ?? "");
const disruption = JSON.parse(process.env["KERF_REPLICA_DISRUPTION"] ?? "{}") as {
  pollMs?: number;
  validationDelayMs?: number;
};
const operator = await startOperator(loadConfig({ argv: [], env }), {
  kubeConfig: kc,
  logger: createLogger("info"),
  serveHttp: false,
  disruption,
  awsCredentials: { accessKeyId: "testing", secretAccessKey: "testing" },
  ssmPrefix: process.env["KERF_REPLICA_SSM_PREFIX"] ?? "",
});
process.stdout.write("READY\n");
await new Promise<void>((resolve) => process.once("SIGTERM", () => resolve()));
await operator.stop();
process.exit(0);

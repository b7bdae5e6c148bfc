/**
 * Karpenter's real AWS controller (github.com/aws/karpenter-provider-aws v1.15.1, `cmd/controller`),
 * built from the Go module proxy in the throwaway module karpenter/ (go.mod and go.sum only: the
 * package is built straight from the module cache; the `replace` lines there say why they exist),
 * and run as a child process against the bench's environment.
 *
 * The build uses `go` from PATH with GOTOOLCHAIN=auto: the provider's go.mod asks for go >= 1.26.10,
 * which Go fetches from the module proxy when the local one is older. Module and build caches live
 * under ${KERF_CACHE_DIR:-~/.cache/kerf}/go (shared with the other Go builds of the test environment);
 * the binary in ${KERF_CACHE_DIR}/bin, named by a hash of go.mod and go.sum, so a second run does
 * not call Go at all.
 *
 * Settings (read from the provider's pkg/operator/options and core's pkg/operator/options at these
 * versions): CLUSTER_NAME; CLUSTER_ENDPOINT (the apiserver, so no EKS DescribeCluster); ISOLATED_VPC
 * (on-demand prices from the bundled table instead of the Pricing API); no INTERRUPTION_QUEUE (the
 * interruption controller is off); DISABLE_LEADER_ELECTION; METRICS_PORT and HEALTH_PROBE_PORT on free
 * ports (controller-runtime binds them as ":port", every interface; nothing else listens). v1.15 has no
 * webhooks. The Kubernetes client comes from KUBECONFIG; every AWS client (EC2, SSM, IAM, Pricing,
 * SQS, EKS) from AWS_ENDPOINT_URL, the bench's proxy in front of moto on loopback, with static test
 * credentials and IMDS off, and no shared AWS config or credentials files read.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { freePorts } from "../../harness/ports.ts";
import { answers200 } from "../../harness/probes.ts";
import { ManagedProcess } from "../../harness/process.ts";

export const KARPENTER_VERSION = "1.15.1";
const PACKAGE = "github.com/aws/karpenter-provider-aws/cmd/controller";
const moduleDir = path.join(import.meta.dirname, "karpenter");
const cacheDir = process.env["KERF_CACHE_DIR"] ?? path.join(homedir(), ".cache", "kerf");

function goEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GOTOOLCHAIN: "auto",
    CGO_ENABLED: "0",
    GOFLAGS: "-modcacherw",
    GOMODCACHE: path.join(cacheDir, "go", "mod"),
    GOCACHE: path.join(cacheDir, "go", "build"),
  };
}

/** Where the binary for the committed go.mod/go.sum lives. */
export function karpenterBinaryPath(): string {
  const hash = createHash("sha256");
  for (const f of ["go.mod", "go.sum"]) hash.update(readFileSync(path.join(moduleDir, f)));
  return path.join(cacheDir, "bin", `karpenter-controller-v${KARPENTER_VERSION}-${hash.digest("hex").slice(0, 12)}`);
}

/**
 * Builds the controller unless the binary for this go.mod/go.sum exists; resolves to its path, or to
 * why it could not be built. Runs in the background (the first build compiles ~1,500 packages).
 */
export function buildKarpenterController(): Promise<{ binary: string } | { skipped: string }> {
  const binary = karpenterBinaryPath();
  if (existsSync(binary)) return Promise.resolve({ binary });
  if (spawnSync("go", ["version"], { encoding: "utf8" }).status !== 0) {
    return Promise.resolve({ skipped: "no `go` on PATH" });
  }
  mkdirSync(path.dirname(binary), { recursive: true });
  const tmp = `${binary}.tmp-${process.pid}`;
  const ldflags = `-X=sigs.k8s.io/karpenter/pkg/operator.Version=${KARPENTER_VERSION}`;
  const args = ["build", "-trimpath", `-ldflags=${ldflags}`, "-o", tmp, PACKAGE];
  const child = spawn("go", args, { cwd: moduleDir, env: goEnv(), stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-8000);
  });
  return new Promise((resolve) => {
    child.on("exit", (code) => {
      if (code !== 0 || !existsSync(tmp)) {
        resolve({ skipped: `building ${PACKAGE}: ${stderr.trim().split("\n").slice(-4).join(" | ")}` });
        return;
      }
      renameSync(tmp, binary);
      resolve({ binary });
    });
  });
}

/** Where the controller reaches the cluster and AWS. */
export interface KarpenterTarget {
  readonly binary: string;
  readonly kubeconfig: string;
  readonly apiserverUrl: string;
  readonly awsEndpoint: string;
  readonly clusterName: string;
  readonly logDir: string;
}

/**
 * The settings of the controller process. ManagedProcess adds the host's environment: every AWS_*
 * variable of the host that is not set here is blanked, so no host profile or endpoint leaks in.
 */
export function karpenterEnv(t: KarpenterTarget, ports: { metrics: number; health: number }): Record<string, string> {
  const blanked = Object.fromEntries(
    Object.keys(process.env)
      .filter((k) => k.startsWith("AWS_"))
      .map((k) => [k, ""]),
  );
  return {
    ...blanked,
    KUBECONFIG: t.kubeconfig,
    CLUSTER_NAME: t.clusterName,
    CLUSTER_ENDPOINT: t.apiserverUrl,
    ISOLATED_VPC: "true",
    DISABLE_LEADER_ELECTION: "true",
    METRICS_PORT: String(ports.metrics),
    HEALTH_PROBE_PORT: String(ports.health),
    LOG_LEVEL: "info",
    AWS_REGION: "us-east-1",
    AWS_ENDPOINT_URL: t.awsEndpoint,
    AWS_ACCESS_KEY_ID: "testing",
    AWS_SECRET_ACCESS_KEY: "testing",
    AWS_EC2_METADATA_DISABLED: "true",
    AWS_CONFIG_FILE: "/dev/null",
    AWS_SHARED_CREDENTIALS_FILE: "/dev/null",
  };
}

/** Starts the controller (log: `<logDir>/karpenter.log`, JSON lines); resolves once its readiness probe answers 200. */
export async function startKarpenter(t: KarpenterTarget, readyTimeoutMs = 180_000): Promise<ManagedProcess> {
  const [metrics = 0, health = 0] = await freePorts(2);
  const env = karpenterEnv(t, { metrics, health });
  const proc = new ManagedProcess({ name: "karpenter", command: t.binary, args: [], logDir: t.logDir, env });
  try {
    await proc.waitReady(answers200(`http://127.0.0.1:${health}/readyz`), readyTimeoutMs);
  } catch (error) {
    await proc.kill();
    throw error;
  }
  return proc;
}

/**
 * Runs Karpenter's own scheduler on the bench's input (karpenter/main.go, built with the Go
 * toolchain the test environment uses: a `go` ≥ 1.26 on PATH, else the one .ci/testenv/ensure.sh
 * fetched into the kerf cache). The Go module pins sigs.k8s.io/karpenter; `go build` fetches it
 * from the Go module proxy the first time (a few minutes), then reuses the build cache.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import type { SimPod } from "../../../operator/core/scheduling/types.ts";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";

export interface ClaimSummary {
  readonly instanceType: string;
  readonly capacityType: string;
  readonly pods: number;
  readonly pricePerHour: number;
}

export interface KarpenterResult {
  readonly nodes: number;
  readonly placed: number;
  readonly unschedulable: number;
  readonly pricePerHour: number;
  readonly wallSeconds: number;
  readonly cpuSeconds: number;
  readonly minPods: number;
  readonly maxPods: number;
  readonly priciest: ClaimSummary;
}

const cacheDir = process.env["KERF_CACHE_DIR"] ?? path.join(homedir(), ".cache", "kerf");
const moduleDir = path.join(import.meta.dirname, "karpenter");

function goBinary(): string | undefined {
  const candidates = [
    "go",
    ...["1.26.9", "1.26.8"].map((v) => path.join(cacheDir, "go-toolchain", `go${v}`, "bin", "go")),
  ];
  return candidates.find((go) => spawnSync(go, ["version"], { encoding: "utf8" }).status === 0);
}

/** Builds the harness; returns its path, or why it cannot run. */
export function buildKarpenter(): { binary: string } | { skipped: string } {
  const go = goBinary();
  if (go === undefined) return { skipped: "no Go toolchain (run .ci/testenv/ensure.sh or put go >= 1.26 on PATH)" };
  mkdirSync(path.join(cacheDir, "bin"), { recursive: true });
  const binary = path.join(cacheDir, "bin", "karpenter-solve");
  const env = {
    ...process.env,
    GOTOOLCHAIN: "auto",
    CGO_ENABLED: "0",
    GOFLAGS: "-modcacherw",
    GOMODCACHE: path.join(cacheDir, "go", "mod"),
    GOCACHE: path.join(cacheDir, "go", "build"),
  };
  const built = spawnSync(go, ["build", "-o", binary, "."], { cwd: moduleDir, env, encoding: "utf8" });
  if (built.status !== 0 || !existsSync(binary))
    return { skipped: `building ${moduleDir}: ${built.stderr.trim().split("\n").slice(-3).join(" | ")}` };
  return { binary };
}

/** The input main.go reads: the instance types and pods exactly as kerf's simulation gets them. */
function input(types: readonly InstanceType[], pods: readonly SimPod[], limits: boolean): string {
  return JSON.stringify({
    limits,
    types: types.map((t) => ({
      name: t.name,
      labels: t.labels,
      capacity: t.capacity,
      allocatable: t.allocatable,
      offerings: t.offerings,
    })),
    pods: pods.map((p) => ({
      uid: p.uid,
      name: p.name,
      labels: p.labels,
      requests: p.requests,
      spread: p.spread,
      affinity: p.affinity,
      antiAffinity: p.antiAffinity,
    })),
  });
}

/**
 * Solves once with Karpenter's scheduler (`limits`: the benchmark's NodePool limits, as kerf's bench
 * sets them on the fake catalog only); throws with its stderr when it fails.
 */
export function runKarpenter(
  binary: string,
  workload: { types: readonly InstanceType[]; pods: readonly SimPod[]; limits: boolean },
): KarpenterResult {
  const child = spawnSync(binary, [], {
    input: input(workload.types, workload.pods, workload.limits),
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024,
  });
  if (child.status !== 0) throw new Error(`running Karpenter's scheduler: ${child.stderr.trim()}`);
  return JSON.parse(child.stdout) as KarpenterResult;
}

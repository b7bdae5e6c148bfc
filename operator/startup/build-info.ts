/**
 * The operator's metric registry with karpenter_build_info set from kerf's package.json (operator/startup/ is two
 * folders below it).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { createMetrics, type Metrics } from "../observability/metrics.ts";

/** karpenter_build_info's labels: kerf's package version; Node's version and architecture stand for Go's. */
export function buildInfo(): { version: string; goversion: string; goarch: string; commit: string } {
  let version = "unknown";
  try {
    const pkg = JSON.parse(readFileSync(path.join(import.meta.dirname, "..", "..", "package.json"), "utf8")) as {
      version?: string;
    };
    version = pkg.version ?? version;
  } catch {
    /* a bundle without package.json: the version stays unknown */
  }
  return { version, goversion: process.version, goarch: process.arch, commit: "" };
}

/** The operator's registry (process metrics when it serves them), karpenter_build_info set. */
export function operatorMetrics(processMetrics: boolean): Metrics {
  const metrics = createMetrics({ processMetrics });
  metrics.buildInfo.set(buildInfo(), 1);
  return metrics;
}

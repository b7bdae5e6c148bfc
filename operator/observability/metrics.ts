/**
 * Every Prometheus metric the operator exports, in one place: Karpenter v1.15's (karpenter-behaviour.md §8) under
 * the same names, types, label names and buckets — operator/observability/karpenter-metrics.json, read out of
 * Karpenter's Go sources by scripts/metrics/karpenter-metrics.ts, is the contract metrics.test.ts holds this to —
 * plus operatorpkg's status-condition metrics and kerf's own (kerf_*). The families are defined by subsystem under
 * metrics/; this module puts them into one registry and one object of handles.
 */
import { Registry, collectDefaultMetrics } from "prom-client";
import { cloudProviderMetrics } from "./metrics/cloudprovider.ts";
import { disruptionMetrics } from "./metrics/disruption.ts";
import { kerfMetrics } from "./metrics/kerf.ts";
import { nodePoolMetrics } from "./metrics/nodepools.ts";
import { nodeMetrics } from "./metrics/nodes.ts";
import { podMetrics } from "./metrics/pods.ts";
import { runtimeMetrics } from "./metrics/runtime.ts";
import { schedulingMetrics } from "./metrics/scheduling.ts";
import { statusConditionMetrics } from "./status-metrics.ts";

export { DEFAULT_BUCKETS, KARPENTER_DURATION_BUCKETS } from "./metrics/buckets.ts";

/** Every family registered in `registry`; handle names are unique across the families. */
function metrics(registry: Registry) {
  const r = [registry];
  return {
    registry,
    ...nodeMetrics(r),
    ...podMetrics(r),
    ...schedulingMetrics(r),
    ...nodePoolMetrics(r),
    ...disruptionMetrics(r),
    ...cloudProviderMetrics(r),
    status: statusConditionMetrics(r),
    ...kerfMetrics(r),
    ...runtimeMetrics(r),
  };
}

/** The operator's metric handles; pass this object to whoever records. */
export type Metrics = ReturnType<typeof metrics>;

/** Creates a fresh registry (process metrics optional) with every metric defined. */
export function createMetrics(options: { processMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics === true) collectDefaultMetrics({ register: registry });
  return metrics(registry);
}

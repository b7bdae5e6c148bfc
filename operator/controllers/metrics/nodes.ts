/**
 * The metrics.node controller (Karpenter's, every 5 s): per Node, `karpenter_nodes_allocatable`,
 * `_total_pod_requests`, `_total_pod_limits`, `_total_daemon_requests`, `_total_daemon_limits` and `_system_overhead`
 * for each resource, `karpenter_nodes_current_lifetime_seconds`, and `karpenter_cluster_utilization_percent` per
 * resource (rules in core/metrics/nodes.ts). Each pass replaces the previous one's series, so the gauges' cardinality
 * follows the Nodes (× their resources) and a deleted Node's series go with the next pass.
 */
import type { Clock } from "../../core/clock.ts";
import type { Node, Pod } from "../../core/lifecycle/objects.ts";
import {
  clusterUtilization,
  gaugeValue,
  nodeLifetimeSeconds,
  nodeResources,
  nodeSeriesLabels,
  resourceType,
  type NodeResources,
} from "../../core/metrics/nodes.ts";
import type { Metrics } from "../../observability/metrics.ts";
import type { ControllerDeps } from "../controller-deps.ts";
import type { ControllerSpec } from "../controller-spec.ts";
import type { Result } from "../runtime.ts";

/** Karpenter's node metrics period. */
export const NODE_METRICS_PERIOD_MS = 5000;

type NodeGauges = Pick<
  Metrics,
  | "nodesAllocatable"
  | "nodesTotalPodRequests"
  | "nodesTotalPodLimits"
  | "nodesTotalDaemonRequests"
  | "nodesTotalDaemonLimits"
  | "nodesSystemOverhead"
  | "nodesCurrentLifetime"
  | "clusterUtilization"
>;

/** What the controller reads. */
export interface NodeMetricsDeps {
  readonly cluster: {
    readonly synced: boolean;
    nodes(): readonly Node[];
    podsOnNode(nodeName: string): readonly Pod[];
  };
  readonly metrics: NodeGauges;
  readonly clock: Clock;
}

const GAUGES: readonly [keyof NodeResources, keyof NodeGauges][] = [
  ["allocatable", "nodesAllocatable"],
  ["podRequests", "nodesTotalPodRequests"],
  ["podLimits", "nodesTotalPodLimits"],
  ["daemonRequests", "nodesTotalDaemonRequests"],
  ["daemonLimits", "nodesTotalDaemonLimits"],
  ["systemOverhead", "nodesSystemOverhead"],
];

/** One pass: every Node's series written afresh. */
export function publishNodeMetrics(deps: NodeMetricsDeps): Result {
  if (!deps.cluster.synced) return { requeueAfter: 1000 };
  const m = deps.metrics;
  for (const [, gauge] of GAUGES) m[gauge].reset();
  m.nodesCurrentLifetime.reset();
  m.clusterUtilization.reset();
  const now = deps.clock.now().getTime();
  const all: NodeResources[] = [];
  for (const node of deps.cluster.nodes()) {
    const labels = nodeSeriesLabels(node);
    const resources = nodeResources(node, deps.cluster.podsOnNode(node.metadata?.name ?? ""));
    all.push(resources);
    for (const [part, gauge] of GAUGES) {
      for (const [name, amount] of Object.entries(resources[part])) {
        m[gauge].set({ ...labels, resource_type: resourceType(name) }, gaugeValue(name, amount));
      }
    }
    m.nodesCurrentLifetime.set(labels, nodeLifetimeSeconds(node, now));
  }
  for (const [resource, percent] of Object.entries(clusterUtilization(all))) {
    m.clusterUtilization.set({ resource_type: resource }, percent);
  }
  return { requeueAfter: NODE_METRICS_PERIOD_MS };
}

/** The registry entry: a singleton loop. */
export function nodeMetricsController(deps: ControllerDeps): ControllerSpec {
  return {
    name: "metrics.node",
    singleton: "nodes",
    watches: {},
    reconcile: async () => publishNodeMetrics({ cluster: deps.cluster, metrics: deps.metrics, clock: deps.clock }),
  };
}

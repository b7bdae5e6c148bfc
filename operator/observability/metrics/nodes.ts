// Karpenter's NodeClaim and node families (karpenter_nodeclaims_*, karpenter_nodes_*,
// karpenter_cluster_utilization_percent): lifecycle counters and durations, and the per-node resource gauges
// operator/controllers/metrics/nodes.ts sets.
import { Counter, Gauge, Histogram, Summary, type Registry } from "prom-client";
import { NODE_LABELS, NODE_RESOURCE_LABELS } from "../../core/metrics/nodes.ts";
import { LIFETIME_BUCKETS, SUMMARY, powersOfTwo } from "./buckets.ts";

/**
 * A voluntary disruption's labels, on karpenter_nodeclaims_disrupted_total and on
 * karpenter_pods_disruption_initiated_total.
 */
export const DISRUPTED_LABELS = [
  "reason",
  "nodepool",
  "capacity_type",
  "consolidation_policy",
  "termination_mode",
] as const;

/** NodeClaim and node metrics, registered in `r`. */
export const nodeMetrics = (r: Registry[]) =>
  ({
    nodeClaimsCreated: new Counter({
      name: "karpenter_nodeclaims_created_total",
      help:
        "Number of nodeclaims created in total by Karpenter, by reason, " +
        "nodepool and whether minValues was relaxed.",
      labelNames: ["reason", "nodepool", "min_values_relaxed"],
      registers: r,
    }),
    nodeClaimsTerminated: new Counter({
      name: "karpenter_nodeclaims_terminated_total",
      help: "Number of nodeclaims terminated in total by Karpenter, by nodepool, capacity type and zone.",
      labelNames: ["nodepool", "capacity_type", "zone"],
      registers: r,
    }),
    nodeClaimsDisrupted: new Counter({
      name: "karpenter_nodeclaims_disrupted_total",
      help:
        "Number of nodeclaims disrupted in total by Karpenter, by reason, nodepool, " +
        "capacity type, consolidation policy and termination mode.",
      labelNames: DISRUPTED_LABELS,
      registers: r,
    }),
    nodeClaimsUnhealthyDisrupted: new Counter({
      name: "karpenter_nodeclaims_unhealthy_disrupted_total",
      help:
        "Number of unhealthy nodeclaims disrupted by node repair, by condition, " +
        "nodepool, capacity type, image and termination mode.",
      labelNames: ["condition", "nodepool", "capacity_type", "image_id", "termination_mode"],
      registers: r,
    }),
    instanceTerminationDuration: new Histogram({
      name: "karpenter_nodeclaims_instance_termination_duration_seconds",
      help: "Duration of CloudProvider Instance termination in seconds.",
      labelNames: ["nodepool"],
      buckets: powersOfTwo(1, 11),
      registers: r,
    }),
    nodeClaimsTerminationDuration: new Histogram({
      name: "karpenter_nodeclaims_termination_duration_seconds",
      help: "Duration of NodeClaim termination in seconds.",
      labelNames: ["nodepool"],
      buckets: powersOfTwo(1, 12),
      registers: r,
    }),
    nodesCreated: new Counter({
      name: "karpenter_nodes_created_total",
      help: "Number of nodes created in total by Karpenter, by nodepool and zone.",
      labelNames: ["nodepool", "zone"],
      registers: r,
    }),
    nodesTerminated: new Counter({
      name: "karpenter_nodes_terminated_total",
      help: "Number of nodes terminated in total by Karpenter, by nodepool and zone.",
      labelNames: ["nodepool", "zone"],
      registers: r,
    }),
    nodesTerminationDuration: new Summary({
      name: "karpenter_nodes_termination_duration_seconds",
      help: "The time taken between a node's deletion request and the removal of its finalizer.",
      labelNames: ["nodepool"],
      ...SUMMARY,
      registers: r,
    }),
    nodesLifetimeDuration: new Histogram({
      name: "karpenter_nodes_lifetime_duration_seconds",
      help: "The lifetime of nodes from creation to deletion.",
      labelNames: ["nodepool"],
      buckets: LIFETIME_BUCKETS,
      registers: r,
    }),
    nodesDrained: new Counter({
      name: "karpenter_nodes_drained_total",
      help: "The total number of nodes drained by Karpenter.",
      labelNames: ["nodepool"],
      registers: r,
    }),
    nodesAllocatable: new Gauge({
      name: "karpenter_nodes_allocatable",
      help: "Node allocatable, by node labels and resource type (cpu in cores).",
      labelNames: NODE_RESOURCE_LABELS,
      registers: r,
    }),
    nodesTotalPodRequests: new Gauge({
      name: "karpenter_nodes_total_pod_requests",
      help: "Requests of the pods on a node, daemons included.",
      labelNames: NODE_RESOURCE_LABELS,
      registers: r,
    }),
    nodesTotalPodLimits: new Gauge({
      name: "karpenter_nodes_total_pod_limits",
      help: "Limits of the pods on a node, daemons included.",
      labelNames: NODE_RESOURCE_LABELS,
      registers: r,
    }),
    nodesTotalDaemonRequests: new Gauge({
      name: "karpenter_nodes_total_daemon_requests",
      help: "Requests of the DaemonSet pods on a node.",
      labelNames: NODE_RESOURCE_LABELS,
      registers: r,
    }),
    nodesTotalDaemonLimits: new Gauge({
      name: "karpenter_nodes_total_daemon_limits",
      help: "Limits of the DaemonSet pods on a node.",
      labelNames: NODE_RESOURCE_LABELS,
      registers: r,
    }),
    nodesSystemOverhead: new Gauge({
      name: "karpenter_nodes_system_overhead",
      help: "Node capacity minus allocatable: what the system reserves.",
      labelNames: NODE_RESOURCE_LABELS,
      registers: r,
    }),
    nodesCurrentLifetime: new Gauge({
      name: "karpenter_nodes_current_lifetime_seconds",
      help: "Seconds since each node was created.",
      labelNames: NODE_LABELS,
      registers: r,
    }),
    clusterUtilization: new Gauge({
      name: "karpenter_cluster_utilization_percent",
      help: "Pod requests as a percentage of the allocatable of all nodes, by resource type.",
      labelNames: ["resource_type"],
      registers: r,
    }),
    nodesReboots: new Counter({
      name: "karpenter_nodes_reboots_total",
      help: "Node reboots by node repair, by result.",
      labelNames: ["result"],
      registers: r,
    }),
    nodesRebootDuration: new Histogram({
      name: "karpenter_nodes_reboot_duration_seconds",
      help: "Duration of node reboots, by result.",
      labelNames: ["result"],
      buckets: powersOfTwo(10, 8),
      registers: r,
    }),
    nodesRebootRecoveryDuration: new Histogram({
      name: "karpenter_nodes_reboot_recovery_duration_seconds",
      help: "Time for a rebooted node to become healthy again.",
      buckets: powersOfTwo(10, 8),
      registers: r,
    }),
  }) as const;

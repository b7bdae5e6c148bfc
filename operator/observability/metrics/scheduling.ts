// Karpenter's cluster-state and scheduler families (karpenter_cluster_state_*, karpenter_scheduler_*): whether the
// operator's view of the cluster is synced, and the provisioning and disruption simulations' progress.
import { Gauge, Histogram, type Registry } from "prom-client";
import { KARPENTER_DURATION_BUCKETS } from "./buckets.ts";

/** Cluster-state and scheduler metrics, registered in `r`. */
export const schedulingMetrics = (r: Registry[]) =>
  ({
    clusterStateSynced: new Gauge({
      name: "karpenter_cluster_state_synced",
      help: "1 when the cluster state is synced with the apiserver, else 0.",
      registers: r,
    }),
    clusterStateNodeCount: new Gauge({
      name: "karpenter_cluster_state_node_count",
      help: "Current count of nodes in cluster state.",
      registers: r,
    }),
    clusterStateUnsyncedTime: new Gauge({
      name: "karpenter_cluster_state_unsynced_time_seconds",
      help: "Seconds the cluster state has been unsynced.",
      registers: r,
    }),
    schedulingDuration: new Histogram({
      name: "karpenter_scheduler_scheduling_duration_seconds",
      help: "Duration of scheduling simulations used for deprovisioning and provisioning in seconds.",
      labelNames: ["controller"],
      buckets: KARPENTER_DURATION_BUCKETS,
      registers: r,
    }),
    schedulerQueueDepth: new Gauge({
      name: "karpenter_scheduler_queue_depth",
      help: "The number of pods the scheduler is currently scheduling.",
      labelNames: ["controller", "scheduling_id"],
      registers: r,
    }),
    schedulerUnfinishedWork: new Gauge({
      name: "karpenter_scheduler_unfinished_work_seconds",
      help: "Seconds the running scheduling simulation has been going.",
      labelNames: ["controller", "scheduling_id"],
      registers: r,
    }),
    schedulerIgnoredPods: new Gauge({
      name: "karpenter_scheduler_ignored_pods_count",
      help: "Number of pods the scheduler ignores (invalid or not provisionable).",
      registers: r,
    }),
    schedulerPendingPodsByZone: new Gauge({
      name: "karpenter_scheduler_pending_pods_by_effective_zone_count",
      help: 'Pending pods by the zone their requirements allow ("" when several).',
      labelNames: ["controller", "zone"],
      registers: r,
    }),
    unschedulablePods: new Gauge({
      name: "karpenter_scheduler_unschedulable_pods_count",
      help: "The number of unschedulable pods in the last provisioning simulation.",
      labelNames: ["controller"],
      registers: r,
    }),
  }) as const;

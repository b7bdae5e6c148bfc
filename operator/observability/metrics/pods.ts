// Karpenter's pod families (karpenter_pods_*, karpenter_pod_deletion_cost_*): drains, evictions, pod state and the
// startup, binding and scheduling-decision latencies operator/controllers/metrics/pods.ts records.
import { Counter, Gauge, Histogram, Summary, type Registry } from "prom-client";
import { POD_STATE_LABELS } from "../../core/metrics/pods.ts";
import { KARPENTER_DURATION_BUCKETS, SUMMARY } from "./buckets.ts";
import { DISRUPTED_LABELS } from "./nodes.ts";

/** The labels of a per-pod series. */
const POD_LABELS = ["name", "namespace"] as const;

/** Pod metrics, registered in `r`. */
export const podMetrics = (r: Registry[]) =>
  ({
    podsDrained: new Counter({
      name: "karpenter_pods_drained_total",
      help: "Number of pods drained during node termination.",
      labelNames: ["reason"],
      registers: r,
    }),
    podsDisruptionInitiated: new Counter({
      name: "karpenter_pods_disruption_initiated_total",
      help:
        "Reschedulable pods on disrupted nodeclaims, by the disruption's reason, nodepool, " +
        "capacity type, consolidation policy and termination mode.",
      labelNames: DISRUPTED_LABELS,
      registers: r,
    }),
    podsState: new Gauge({
      name: "karpenter_pods_state",
      help:
        "Pod state is the current state of pods. " +
        "This metric can be used several ways as it is labeled by the pod name, namespace, owner, node, " +
        "whether it is scheduled, nodepool name, zone, architecture, capacity type, instance type, pod phase, " +
        "readiness and whether the node is managed.",
      labelNames: POD_STATE_LABELS,
      registers: r,
    }),
    podsStartupDuration: new Summary({
      name: "karpenter_pods_startup_duration_seconds",
      help: "The time from pod creation until the pod is running.",
      ...SUMMARY,
      registers: r,
    }),
    podsUnstartedTime: new Gauge({
      name: "karpenter_pods_unstarted_time_seconds",
      help: "Seconds a pod has waited to start since its creation.",
      labelNames: POD_LABELS,
      registers: r,
    }),
    podsBoundDuration: new Histogram({
      name: "karpenter_pods_bound_duration_seconds",
      help: "The time from pod creation until the pod is bound.",
      labelNames: ["dynamic_resources"],
      buckets: KARPENTER_DURATION_BUCKETS,
      registers: r,
    }),
    podsUnboundTime: new Gauge({
      name: "karpenter_pods_unbound_time_seconds",
      help: "Seconds a pod has waited to be bound since its creation.",
      labelNames: [...POD_LABELS, "dynamic_resources"],
      registers: r,
    }),
    podsProvisioningBoundDuration: new Histogram({
      name: "karpenter_pods_provisioning_bound_duration_seconds",
      help: "The time from Karpenter first seeing a pod until it is bound.",
      labelNames: ["dynamic_resources"],
      buckets: KARPENTER_DURATION_BUCKETS,
      registers: r,
    }),
    podsProvisioningUnboundTime: new Gauge({
      name: "karpenter_pods_provisioning_unbound_time_seconds",
      help: "Seconds since Karpenter first saw a pod that is not bound yet.",
      labelNames: [...POD_LABELS, "dynamic_resources"],
      registers: r,
    }),
    podsProvisioningStartupDuration: new Histogram({
      name: "karpenter_pods_provisioning_startup_duration_seconds",
      help: "The time from Karpenter first seeing a pod until it is running.",
      buckets: KARPENTER_DURATION_BUCKETS,
      registers: r,
    }),
    podsProvisioningUnstartedTime: new Gauge({
      name: "karpenter_pods_provisioning_unstarted_time_seconds",
      help: "Seconds since Karpenter first saw a pod that has not started yet.",
      labelNames: POD_LABELS,
      registers: r,
    }),
    podsSchedulingUndecidedTime: new Gauge({
      name: "karpenter_pods_provisioning_scheduling_undecided_time_seconds",
      help: "Seconds since Karpenter first saw a pod it has not made a scheduling decision for.",
      labelNames: POD_LABELS,
      registers: r,
    }),
    podsSchedulingDecisionDuration: new Histogram({
      name: "karpenter_pods_scheduling_decision_duration_seconds",
      help: "The time from Karpenter first seeing a pod until its first scheduling decision.",
      buckets: KARPENTER_DURATION_BUCKETS,
      registers: r,
    }),
    podsEvictionRequests: new Counter({
      name: "karpenter_pods_eviction_requests_total",
      help: "The number of eviction requests, by response code.",
      labelNames: ["code"],
      registers: r,
    }),
    podDeletionCostPendingWrites: new Gauge({
      name: "karpenter_pod_deletion_cost_nodes_with_pending_annotation_writes",
      help: "Nodes whose pods wait for a pod-deletion-cost annotation write, by nodepool.",
      labelNames: ["nodepool"],
      registers: r,
    }),
    podDeletionCostWrites: new Counter({
      name: "karpenter_pod_deletion_cost_pod_annotation_writes_total",
      help: "Pod-deletion-cost annotation writes, by result.",
      labelNames: ["result"],
      registers: r,
    }),
  }) as const;

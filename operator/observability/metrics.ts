/**
 * Every Prometheus metric the operator exports, in one place: Karpenter v1.15's (karpenter-behaviour.md §8) under
 * the same names, types, label names and buckets — operator/observability/karpenter-metrics.json, read out of
 * Karpenter's Go sources by scripts/metrics/karpenter-metrics.ts, is the contract metrics.test.ts holds this to —
 * plus operatorpkg's status-condition metrics and kerf's own (kerf_*).
 */
import { Counter, Gauge, Histogram, Registry, Summary, collectDefaultMetrics } from "prom-client";
import { NODE_LABELS, NODE_RESOURCE_LABELS } from "../core/metrics/nodes.ts";
import { POD_STATE_LABELS } from "../core/metrics/pods.ts";
import { statusConditionMetrics } from "./status-metrics.ts";

/** kerf's own controller buckets (controller_runtime_*). */
const durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** Karpenter's metrics.DurationBuckets(): controller-runtime's thresholds plus longer ones. */
export const KARPENTER_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5,
  0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60, 120,
  150, 300, 450, 600];

/** client_golang's prometheus.DefBuckets. */
export const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const powersOfTwo = (from: number, count: number): number[] => Array.from({ length: count }, (_, i) => from * 2 ** i);
const HOUR = 3600;
const DAY = 24 * HOUR;
/** karpenter_nodes_lifetime_duration_seconds: 15 minutes to 30 days. */
const LIFETIME_BUCKETS = [900, 1800, 2700, HOUR, 2 * HOUR, 4 * HOUR, 6 * HOUR, 8 * HOUR, 10 * HOUR, 12 * HOUR, 16 * HOUR,
  20 * HOUR, DAY, 2 * DAY, 3 * DAY, 5 * DAY, 10 * DAY, 15 * DAY, 20 * DAY, 25 * DAY, 30 * DAY];
const BATCH_SIZE_BUCKETS = [1, 2, 4, 5, 10, 15, 20, 25, 30, 40, 50, 60, 70, 80, 90, 100, 125, 150, 175, 200, 225, 250,
  275, 300, 350, 400, 450, 500, 550, 600, 700, 800, 900, 1000];
/** Karpenter's summaries (metrics.SummaryObjectives) over client_golang's default 10-minute window of 5 buckets. */
const SUMMARY = { percentiles: [0, 0.5, 0.9, 0.99, 1], maxAgeSeconds: 600, ageBuckets: 5 };
const POD = ["name", "namespace"] as const;
const DISRUPTED = ["reason", "nodepool", "capacity_type", "consolidation_policy", "termination_mode"] as const;

function karpenterMetrics(r: Registry[]) {
  return {
    nodeClaimsCreated: new Counter({ name: "karpenter_nodeclaims_created_total", help: "Number of nodeclaims created in total by Karpenter, by reason, nodepool and whether minValues was relaxed.", labelNames: ["reason", "nodepool", "min_values_relaxed"], registers: r }),
    nodeClaimsTerminated: new Counter({ name: "karpenter_nodeclaims_terminated_total", help: "Number of nodeclaims terminated in total by Karpenter, by nodepool, capacity type and zone.", labelNames: ["nodepool", "capacity_type", "zone"], registers: r }),
    nodeClaimsDisrupted: new Counter({ name: "karpenter_nodeclaims_disrupted_total", help: "Number of nodeclaims disrupted in total by Karpenter, by reason, nodepool, capacity type, consolidation policy and termination mode.", labelNames: DISRUPTED, registers: r }),
    nodeClaimsUnhealthyDisrupted: new Counter({ name: "karpenter_nodeclaims_unhealthy_disrupted_total", help: "Number of unhealthy nodeclaims disrupted by node repair, by condition, nodepool, capacity type, image and termination mode.", labelNames: ["condition", "nodepool", "capacity_type", "image_id", "termination_mode"], registers: r }),
    instanceTerminationDuration: new Histogram({ name: "karpenter_nodeclaims_instance_termination_duration_seconds", help: "Duration of CloudProvider Instance termination in seconds.", labelNames: ["nodepool"], buckets: powersOfTwo(1, 11), registers: r }),
    nodeClaimsTerminationDuration: new Histogram({ name: "karpenter_nodeclaims_termination_duration_seconds", help: "Duration of NodeClaim termination in seconds.", labelNames: ["nodepool"], buckets: powersOfTwo(1, 12), registers: r }),
    nodesCreated: new Counter({ name: "karpenter_nodes_created_total", help: "Number of nodes created in total by Karpenter, by nodepool and zone.", labelNames: ["nodepool", "zone"], registers: r }),
    nodesTerminated: new Counter({ name: "karpenter_nodes_terminated_total", help: "Number of nodes terminated in total by Karpenter, by nodepool and zone.", labelNames: ["nodepool", "zone"], registers: r }),
    nodesTerminationDuration: new Summary({ name: "karpenter_nodes_termination_duration_seconds", help: "The time taken between a node's deletion request and the removal of its finalizer.", labelNames: ["nodepool"], ...SUMMARY, registers: r }),
    nodesLifetimeDuration: new Histogram({ name: "karpenter_nodes_lifetime_duration_seconds", help: "The lifetime of nodes from creation to deletion.", labelNames: ["nodepool"], buckets: LIFETIME_BUCKETS, registers: r }),
    nodesDrained: new Counter({ name: "karpenter_nodes_drained_total", help: "The total number of nodes drained by Karpenter.", labelNames: ["nodepool"], registers: r }),
    nodesAllocatable: new Gauge({ name: "karpenter_nodes_allocatable", help: "Node allocatable, by node labels and resource type (cpu in cores).", labelNames: NODE_RESOURCE_LABELS, registers: r }),
    nodesTotalPodRequests: new Gauge({ name: "karpenter_nodes_total_pod_requests", help: "Requests of the pods on a node, daemons included.", labelNames: NODE_RESOURCE_LABELS, registers: r }),
    nodesTotalPodLimits: new Gauge({ name: "karpenter_nodes_total_pod_limits", help: "Limits of the pods on a node, daemons included.", labelNames: NODE_RESOURCE_LABELS, registers: r }),
    nodesTotalDaemonRequests: new Gauge({ name: "karpenter_nodes_total_daemon_requests", help: "Requests of the DaemonSet pods on a node.", labelNames: NODE_RESOURCE_LABELS, registers: r }),
    nodesTotalDaemonLimits: new Gauge({ name: "karpenter_nodes_total_daemon_limits", help: "Limits of the DaemonSet pods on a node.", labelNames: NODE_RESOURCE_LABELS, registers: r }),
    nodesSystemOverhead: new Gauge({ name: "karpenter_nodes_system_overhead", help: "Node capacity minus allocatable: what the system reserves.", labelNames: NODE_RESOURCE_LABELS, registers: r }),
    nodesCurrentLifetime: new Gauge({ name: "karpenter_nodes_current_lifetime_seconds", help: "Seconds since each node was created.", labelNames: NODE_LABELS, registers: r }),
    clusterUtilization: new Gauge({ name: "karpenter_cluster_utilization_percent", help: "Pod requests as a percentage of the allocatable of all nodes, by resource type.", labelNames: ["resource_type"], registers: r }),
    nodesReboots: new Counter({ name: "karpenter_nodes_reboots_total", help: "Node reboots by node repair, by result.", labelNames: ["result"], registers: r }),
    nodesRebootDuration: new Histogram({ name: "karpenter_nodes_reboot_duration_seconds", help: "Duration of node reboots, by result.", labelNames: ["result"], buckets: powersOfTwo(10, 8), registers: r }),
    nodesRebootRecoveryDuration: new Histogram({ name: "karpenter_nodes_reboot_recovery_duration_seconds", help: "Time for a rebooted node to become healthy again.", buckets: powersOfTwo(10, 8), registers: r }),
    podsDrained: new Counter({ name: "karpenter_pods_drained_total", help: "Number of pods drained during node termination.", labelNames: ["reason"], registers: r }),
    podsDisruptionInitiated: new Counter({ name: "karpenter_pods_disruption_initiated_total", help: "Reschedulable pods on disrupted nodeclaims, by the disruption's reason, nodepool, capacity type, consolidation policy and termination mode.", labelNames: DISRUPTED, registers: r }),
    podsState: new Gauge({ name: "karpenter_pods_state", help: "Pod state is the current state of pods. This metric can be used several ways as it is labeled by the pod name, namespace, owner, node, whether it is scheduled, nodepool name, zone, architecture, capacity type, instance type, pod phase, readiness and whether the node is managed.", labelNames: POD_STATE_LABELS, registers: r }),
    podsStartupDuration: new Summary({ name: "karpenter_pods_startup_duration_seconds", help: "The time from pod creation until the pod is running.", ...SUMMARY, registers: r }),
    podsUnstartedTime: new Gauge({ name: "karpenter_pods_unstarted_time_seconds", help: "Seconds a pod has waited to start since its creation.", labelNames: POD, registers: r }),
    podsBoundDuration: new Histogram({ name: "karpenter_pods_bound_duration_seconds", help: "The time from pod creation until the pod is bound.", labelNames: ["dynamic_resources"], buckets: KARPENTER_DURATION_BUCKETS, registers: r }),
    podsUnboundTime: new Gauge({ name: "karpenter_pods_unbound_time_seconds", help: "Seconds a pod has waited to be bound since its creation.", labelNames: [...POD, "dynamic_resources"], registers: r }),
    podsProvisioningBoundDuration: new Histogram({ name: "karpenter_pods_provisioning_bound_duration_seconds", help: "The time from Karpenter first seeing a pod until it is bound.", labelNames: ["dynamic_resources"], buckets: KARPENTER_DURATION_BUCKETS, registers: r }),
    podsProvisioningUnboundTime: new Gauge({ name: "karpenter_pods_provisioning_unbound_time_seconds", help: "Seconds since Karpenter first saw a pod that is not bound yet.", labelNames: [...POD, "dynamic_resources"], registers: r }),
    podsProvisioningStartupDuration: new Histogram({ name: "karpenter_pods_provisioning_startup_duration_seconds", help: "The time from Karpenter first seeing a pod until it is running.", buckets: KARPENTER_DURATION_BUCKETS, registers: r }),
    podsProvisioningUnstartedTime: new Gauge({ name: "karpenter_pods_provisioning_unstarted_time_seconds", help: "Seconds since Karpenter first saw a pod that has not started yet.", labelNames: POD, registers: r }),
    podsSchedulingUndecidedTime: new Gauge({ name: "karpenter_pods_provisioning_scheduling_undecided_time_seconds", help: "Seconds since Karpenter first saw a pod it has not made a scheduling decision for.", labelNames: POD, registers: r }),
    podsSchedulingDecisionDuration: new Histogram({ name: "karpenter_pods_scheduling_decision_duration_seconds", help: "The time from Karpenter first seeing a pod until its first scheduling decision.", buckets: KARPENTER_DURATION_BUCKETS, registers: r }),
    podsEvictionRequests: new Counter({ name: "karpenter_pods_eviction_requests_total", help: "The number of eviction requests, by response code.", labelNames: ["code"], registers: r }),
    podDeletionCostPendingWrites: new Gauge({ name: "karpenter_pod_deletion_cost_nodes_with_pending_annotation_writes", help: "Nodes whose pods wait for a pod-deletion-cost annotation write, by nodepool.", labelNames: ["nodepool"], registers: r }),
    podDeletionCostWrites: new Counter({ name: "karpenter_pod_deletion_cost_pod_annotation_writes_total", help: "Pod-deletion-cost annotation writes, by result.", labelNames: ["result"], registers: r }),
    clusterStateSynced: new Gauge({ name: "karpenter_cluster_state_synced", help: "1 when the cluster state is synced with the apiserver, else 0.", registers: r }),
    clusterStateNodeCount: new Gauge({ name: "karpenter_cluster_state_node_count", help: "Current count of nodes in cluster state.", registers: r }),
    clusterStateUnsyncedTime: new Gauge({ name: "karpenter_cluster_state_unsynced_time_seconds", help: "Seconds the cluster state has been unsynced.", registers: r }),
    schedulingDuration: new Histogram({ name: "karpenter_scheduler_scheduling_duration_seconds", help: "Duration of scheduling simulations used for deprovisioning and provisioning in seconds.", labelNames: ["controller"], buckets: KARPENTER_DURATION_BUCKETS, registers: r }),
    schedulerQueueDepth: new Gauge({ name: "karpenter_scheduler_queue_depth", help: "The number of pods the scheduler is currently scheduling.", labelNames: ["controller", "scheduling_id"], registers: r }),
    schedulerUnfinishedWork: new Gauge({ name: "karpenter_scheduler_unfinished_work_seconds", help: "Seconds the running scheduling simulation has been going.", labelNames: ["controller", "scheduling_id"], registers: r }),
    schedulerIgnoredPods: new Gauge({ name: "karpenter_scheduler_ignored_pods_count", help: "Number of pods the scheduler ignores (invalid or not provisionable).", registers: r }),
    schedulerPendingPodsByZone: new Gauge({ name: "karpenter_scheduler_pending_pods_by_effective_zone_count", help: "Pending pods by the zone their requirements allow (\"\" when several).", labelNames: ["controller", "zone"], registers: r }),
    unschedulablePods: new Gauge({ name: "karpenter_scheduler_unschedulable_pods_count", help: "The number of unschedulable pods in the last provisioning simulation.", labelNames: ["controller"], registers: r }),
    nodePoolUsage: new Gauge({ name: "karpenter_nodepools_usage", help: "The amount of resources used by the nodepool.", labelNames: ["nodepool", "resource_type"], registers: r }),
    nodePoolLimit: new Gauge({ name: "karpenter_nodepools_limit", help: "Limits specified on the nodepool.", labelNames: ["nodepool", "resource_type"], registers: r }),
    nodePoolCost: new Gauge({ name: "karpenter_nodepools_cost_total", help: "Estimated hourly cost of a nodepool's nodes.", labelNames: ["nodepool"], registers: r }),
    nodePoolCostTrackerErrors: new Counter({ name: "karpenter_nodepools_cost_tracker_errors_total", help: "Failures to price a nodepool's nodes.", labelNames: ["nodepool"], registers: r }),
    nodePoolAllowedDisruptions: new Gauge({ name: "karpenter_nodepools_allowed_disruptions", help: "The number of nodes for a given NodePool that can be concurrently disrupting at a point in time. Labeled by NodePool and reason.", labelNames: ["nodepool", "reason"], registers: r }),
    nodePoolNodesConsumingBudgets: new Gauge({ name: "karpenter_nodepools_nodes_consuming_budgets", help: "Nodes counted against a nodepool's disruption budget, by reason.", labelNames: ["nodepool", "reason"], registers: r }),
    disruptionDecisions: new Counter({ name: "karpenter_voluntary_disruption_decisions_total", help: "Number of disruption decisions performed.", labelNames: ["decision", "reason", "consolidation_type"], registers: r }),
    disruptionDecisionsByNodePool: new Counter({ name: "karpenter_voluntary_disruption_decisions_by_nodepool_total", help: "Number of disruption decisions performed, per NodePool.", labelNames: ["decision", "reason", "consolidation_type", "nodepool"], registers: r }),
    disruptionTerminateFirst: new Counter({ name: "karpenter_voluntary_disruption_terminate_first_decisions_total", help: "Disruption decisions that terminate before the replacement is ready, by nodepool, reason and why.", labelNames: ["nodepool", "reason", "terminate_first_reason"], registers: r }),
    disruptionEligibleNodes: new Gauge({ name: "karpenter_voluntary_disruption_eligible_nodes", help: "Number of nodes eligible for disruption by Karpenter. Labeled by disruption reason.", labelNames: ["reason"], registers: r }),
    disruptionEvaluationDuration: new Histogram({ name: "karpenter_voluntary_disruption_decision_evaluation_duration_seconds", help: "Duration of the disruption decision evaluation process in seconds. Labeled by reason and consolidation type.", labelNames: ["reason", "consolidation_type"], buckets: KARPENTER_DURATION_BUCKETS, registers: r }),
    disruptionConsolidationTimeouts: new Counter({ name: "karpenter_voluntary_disruption_consolidation_timeouts_total", help: "Number of times the consolidation algorithm has reached its evaluation bound. Labeled by consolidation type.", labelNames: ["consolidation_type"], registers: r }),
    disruptionQueueFailures: new Counter({ name: "karpenter_voluntary_disruption_queue_failures_total", help: "The number of times that an enqueued disruption decision failed. Labeled by disruption method.", labelNames: ["decision", "reason", "consolidation_type"], registers: r }),
    disruptionFailedValidations: new Counter({ name: "karpenter_voluntary_disruption_failed_validations_total", help: "Number of candidates that were selected for disruption but failed validation.", labelNames: ["consolidation_type"], registers: r }),
    consolidationScore: new Histogram({ name: "karpenter_consolidation_score", help: "Score of balanced consolidation moves, by decision, nodepool and policy.", labelNames: ["decision", "nodepool", "policy"], buckets: [0.1, 0.25, 0.33, 0.5, 1, 2, 5, 10], registers: r }),
    consolidationMoves: new Counter({ name: "karpenter_consolidation_moves_total", help: "Balanced consolidation moves, by decision, nodepool and policy.", labelNames: ["decision", "nodepool", "policy"], registers: r }),
    interruptionReceived: new Counter({ name: "karpenter_interruption_received_messages_total", help: "Count of messages received from the SQS queue. Broken down by message type and whether the message was actionable.", labelNames: ["message_type"], registers: r }),
    interruptionDeleted: new Counter({ name: "karpenter_interruption_deleted_messages_total", help: "Count of messages deleted from the SQS queue.", registers: r }),
    interruptionQueueDuration: new Histogram({ name: "karpenter_interruption_message_queue_duration_seconds", help: "Amount of time an interruption message is on the queue before it is processed by karpenter.", buckets: KARPENTER_DURATION_BUCKETS, registers: r }),
    interruptionUnhealthyStatus: new Counter({ name: "karpenter_interruption_instance_status_unhealthy_total", help: "Instances EC2 reports with an unhealthy status, by category.", labelNames: ["category"], registers: r }),
    cloudProviderDuration: new Histogram({ name: "karpenter_cloudprovider_duration_seconds", help: "Duration of cloud provider method calls.", labelNames: ["controller", "method", "provider"], buckets: DEFAULT_BUCKETS, registers: r }),
    cloudProviderErrors: new Counter({ name: "karpenter_cloudprovider_errors_total", help: "Total number of errors returned from CloudProvider calls.", labelNames: ["controller", "method", "provider", "error", "nodepool"], registers: r }),
    batcherBatchSize: new Histogram({ name: "karpenter_cloudprovider_batcher_batch_size", help: "Size of the request batch per batcher.", labelNames: ["batcher"], buckets: BATCH_SIZE_BUCKETS, registers: r }),
    batcherBatchTime: new Histogram({ name: "karpenter_cloudprovider_batcher_batch_time_seconds", help: "Duration of the batching window per batcher.", labelNames: ["batcher"], buckets: KARPENTER_DURATION_BUCKETS, registers: r }),
    instanceLaunchFailures: new Counter({ name: "karpenter_cloudprovider_instance_launch_failures_total", help: "Failed instance launches, by capacity type, zone, zone id and reason.", labelNames: ["capacity_type", "zone", "zone_id", "reason"], registers: r }),
    instanceTerminationFailures: new Counter({ name: "karpenter_cloudprovider_instance_termination_failures_total", help: "Failed instance terminations, by zone and zone id.", labelNames: ["zone", "zone_id"], registers: r }),
    offeringAvailable: new Gauge({ name: "karpenter_cloudprovider_instance_type_offering_available", help: "Instance type offering availability, based on instance type, capacity type, and zone", labelNames: ["instance_type", "capacity_type", "zone"], registers: r }),
    offeringPrice: new Gauge({ name: "karpenter_cloudprovider_instance_type_offering_price_estimate", help: "Instance type offering estimated hourly price used when making informed decisions on node cost calculation, based on instance type, capacity type, and zone.", labelNames: ["instance_type", "capacity_type", "zone"], registers: r }),
    instanceTypeCpu: new Gauge({ name: "karpenter_cloudprovider_instance_type_cpu_cores", help: "VCPUs cores for a given instance type.", labelNames: ["instance_type"], registers: r }),
    instanceTypeMemory: new Gauge({ name: "karpenter_cloudprovider_instance_type_memory_bytes", help: "Memory, in bytes, for a given instance type.", labelNames: ["instance_type"], registers: r }),
    userDataBytes: new Gauge({ name: "karpenter_ec2nodeclasses_userdata_bytes", help: "Size in bytes of the user data an EC2NodeClass renders.", labelNames: ["nodeclass"], registers: r }),
  };
}

function metrics(registry: Registry) {
  const r = [registry];
  return {
    registry,
    ...karpenterMetrics(r),
    status: statusConditionMetrics(r),
    // kerf's own: Karpenter has no metric for its catalog's freshness.
    catalogRefreshed: new Gauge({ name: "kerf_catalog_refreshed_timestamp_seconds", help: "When each part of the instance-type catalog (instanceTypes, spotPrices, onDemandPrices) last refreshed from AWS.", labelNames: ["part"], registers: r }),
    catalogRefreshErrors: new Counter({ name: "kerf_catalog_refresh_errors_total", help: "Failed refreshes of the instance-type catalog from AWS, by part; the last good answer stays in force.", labelNames: ["part"], registers: r }),
    reconcileTotal: new Counter({ name: "controller_runtime_reconcile_total", help: "Total number of reconciliations per controller.", labelNames: ["controller", "result"], registers: r }),
    reconcileErrors: new Counter({ name: "controller_runtime_reconcile_errors_total", help: "Total number of reconciliation errors per controller.", labelNames: ["controller"], registers: r }),
    reconcileDuration: new Histogram({ name: "controller_runtime_reconcile_time_seconds", help: "Length of time per reconciliation per controller.", labelNames: ["controller"], buckets: durationBuckets, registers: r }),
    workqueueDepth: new Gauge({ name: "workqueue_depth", help: "Current depth of workqueue.", labelNames: ["name"], registers: r }),
    leaderElectionMaster: new Gauge({ name: "leader_election_master_status", help: "1 when this replica holds the Lease, else 0.", labelNames: ["name"], registers: r }),
    // kerf's own: Karpenter deletes launch templates on cache eviction and exports nothing about it.
    launchTemplatesDeleted: new Counter({
      name: "kerf_launch_templates_deleted_total", labelNames: ["reason"], registers: r,
      help: "Launch templates deleted by garbage collection, by reason "
        + "(ami-superseded, security-groups-superseded, node-class-changed, node-class-gone, idle).",
    }),
    launchTemplates: new Gauge({
      name: "kerf_launch_templates", labelNames: ["state"], registers: r,
      help: "The cluster's launch templates after the last garbage-collection pass, by state "
        + "(current; retiring: superseded, deleted once unused for the grace).",
    }),
    // goversion and goarch carry Node's version and architecture: kerf is no Go program.
    buildInfo: new Gauge({
      name: "karpenter_build_info", help: "kerf build information.",
      labelNames: ["version", "goversion", "goarch", "commit"], registers: r,
    }),
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

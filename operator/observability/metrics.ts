/** Every Prometheus metric the operator exports, under Karpenter's names (karpenter-behaviour.md §8), in one place. */
import { Counter, Gauge, Histogram, Registry, Summary, collectDefaultMetrics } from "prom-client";
import { POD_STATE_LABELS } from "../core/metrics/pods.ts";

const durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

function metrics(registry: Registry) {
  const r = [registry];
  return {
    registry,
    nodeClaimsCreated: new Counter({ name: "karpenter_nodeclaims_created_total", help: "Number of nodeclaims created in total by Karpenter.", labelNames: ["reason", "nodepool", "capacity_type"], registers: r }),
    nodeClaimsTerminated: new Counter({ name: "karpenter_nodeclaims_terminated_total", help: "Number of nodeclaims terminated in total by Karpenter.", labelNames: ["nodepool", "capacity_type"], registers: r }),
    nodeClaimsDisrupted: new Counter({ name: "karpenter_nodeclaims_disrupted_total", help: "Number of nodeclaims disrupted in total by Karpenter.", labelNames: ["reason", "nodepool", "capacity_type"], registers: r }),
    nodeClaimsUnhealthyDisrupted: new Counter({
      name: "karpenter_nodeclaims_unhealthy_disrupted_total", registers: r,
      help: "Number of unhealthy nodeclaims disrupted in total by node repair. Labeled by the condition the node was "
        + "disrupted on, the owning nodepool, the capacity type, the image ID, and the termination mode.",
      labelNames: ["condition", "nodepool", "capacity_type", "image_id", "termination_mode"],
    }),
    instanceTerminationDuration: new Histogram({ name: "karpenter_nodeclaims_instance_termination_duration_seconds", help: "Duration of CloudProvider Instance termination in seconds.", labelNames: ["nodepool"], buckets: durationBuckets, registers: r }),
    nodesCreated: new Counter({ name: "karpenter_nodes_created_total", help: "Number of nodes created in total by Karpenter.", labelNames: ["nodepool"], registers: r }),
    nodesTerminated: new Counter({ name: "karpenter_nodes_terminated_total", help: "Number of nodes terminated in total by Karpenter.", labelNames: ["nodepool"], registers: r }),
    nodesTerminationDuration: new Histogram({ name: "karpenter_nodes_termination_duration_seconds", help: "The time taken between a node's deletion request and the removal of its finalizer.", labelNames: ["nodepool"], buckets: durationBuckets, registers: r }),
    nodesDrained: new Counter({ name: "karpenter_nodes_drained_total", help: "The total number of nodes drained by Karpenter.", labelNames: ["nodepool"], registers: r }),
    podsDrained: new Counter({ name: "karpenter_pods_drained_total", help: "Number of pods drained during node termination.", labelNames: ["reason"], registers: r }),
    podsState: new Gauge({ name: "karpenter_pods_state", help: "Pod state is the current state of pods. This metric can be used several ways as it is labeled by the pod name, namespace, owner, node, nodepool name, zone, architecture, capacity type, instance type and pod phase.", labelNames: POD_STATE_LABELS, registers: r }),
    // Karpenter's summary: objectives 0, 0.5, 0.9, 0.99 and 1 over client_golang's default 10-minute window of 5 age buckets.
    podsStartupDuration: new Summary({ name: "karpenter_pods_startup_duration_seconds", help: "The time from pod creation until the pod is running.", percentiles: [0, 0.5, 0.9, 0.99, 1], maxAgeSeconds: 600, ageBuckets: 5, registers: r }),
    podsEvictionRequests: new Counter({ name: "karpenter_pods_eviction_requests_total", help: "The number of eviction requests, by response code.", labelNames: ["code"], registers: r }),
    clusterStateSynced: new Gauge({ name: "karpenter_cluster_state_synced", help: "1 when the cluster state is synced with the apiserver, else 0.", registers: r }),
    clusterStateNodeCount: new Gauge({ name: "karpenter_cluster_state_node_count", help: "Current count of nodes in cluster state.", registers: r }),
    clusterStateUnsyncedTime: new Gauge({ name: "karpenter_cluster_state_unsynced_time_seconds", help: "Seconds the cluster state has been unsynced.", registers: r }),
    schedulingDuration: new Histogram({ name: "karpenter_scheduler_scheduling_duration_seconds", help: "Duration of scheduling simulations used for deprovisioning and provisioning in seconds.", labelNames: ["controller"], buckets: durationBuckets, registers: r }),
    schedulerQueueDepth: new Gauge({ name: "karpenter_scheduler_queue_depth", help: "The number of pods the scheduler is currently scheduling.", labelNames: ["controller"], registers: r }),
    unschedulablePods: new Gauge({ name: "karpenter_scheduler_unschedulable_pods_count", help: "The number of unschedulable pods in the last provisioning simulation.", labelNames: ["controller"], registers: r }),
    nodePoolUsage: new Gauge({ name: "karpenter_nodepools_usage", help: "The amount of resources used by the nodepool.", labelNames: ["nodepool", "resource_type"], registers: r }),
    nodePoolLimit: new Gauge({ name: "karpenter_nodepools_limit", help: "Limits specified on the nodepool.", labelNames: ["nodepool", "resource_type"], registers: r }),
    disruptionDecisions: new Counter({ name: "karpenter_voluntary_disruption_decisions_total", help: "Number of disruption decisions performed.", labelNames: ["decision", "reason", "consolidation_type"], registers: r }),
    disruptionDecisionsByNodePool: new Counter({ name: "karpenter_voluntary_disruption_decisions_by_nodepool_total", help: "Number of disruption decisions performed, per NodePool.", labelNames: ["decision", "reason", "consolidation_type", "nodepool"], registers: r }),
    disruptionEligibleNodes: new Gauge({ name: "karpenter_voluntary_disruption_eligible_nodes", help: "Number of nodes eligible for disruption by Karpenter. Labeled by disruption reason.", labelNames: ["reason"], registers: r }),
    disruptionEvaluationDuration: new Histogram({ name: "karpenter_voluntary_disruption_decision_evaluation_duration_seconds", help: "Duration of the disruption decision evaluation process in seconds. Labeled by method and consolidation type.", labelNames: ["method", "consolidation_type"], buckets: durationBuckets, registers: r }),
    disruptionConsolidationTimeouts: new Counter({ name: "karpenter_voluntary_disruption_consolidation_timeouts_total", help: "Number of times the consolidation algorithm has reached its evaluation bound. Labeled by consolidation type.", labelNames: ["consolidation_type"], registers: r }),
    disruptionQueueFailures: new Counter({ name: "karpenter_voluntary_disruption_queue_failures_total", help: "The number of times that an enqueued disruption decision failed. Labeled by disruption method.", labelNames: ["decision", "reason", "consolidation_type"], registers: r }),
    disruptionFailedValidations: new Counter({ name: "karpenter_voluntary_disruption_failed_validations_total", help: "Number of candidates that were selected for disruption but failed validation.", labelNames: ["consolidation_type"], registers: r }),
    nodePoolAllowedDisruptions: new Gauge({ name: "karpenter_nodepools_allowed_disruptions", help: "The number of nodes for a given NodePool that can be concurrently disrupting at a point in time. Labeled by NodePool and reason.", labelNames: ["nodepool", "reason"], registers: r }),
    interruptionReceived: new Counter({ name: "karpenter_interruption_received_messages_total", help: "Count of messages received from the SQS queue. Broken down by message type and whether the message was actionable.", labelNames: ["message_type"], registers: r }),
    interruptionDeleted: new Counter({ name: "karpenter_interruption_deleted_messages_total", help: "Count of messages deleted from the SQS queue.", registers: r }),
    interruptionQueueDuration: new Histogram({ name: "karpenter_interruption_message_queue_duration_seconds", help: "Amount of time an interruption message is on the queue before it is processed by karpenter.", buckets: durationBuckets, registers: r }),
    cloudProviderDuration: new Histogram({ name: "karpenter_cloudprovider_duration_seconds", help: "Duration of cloud provider method calls.", labelNames: ["controller", "method", "provider", "error"], buckets: durationBuckets, registers: r }),
    cloudProviderErrors: new Counter({ name: "karpenter_cloudprovider_errors_total", help: "Total number of errors returned from CloudProvider calls.", labelNames: ["controller", "method", "provider", "error"], registers: r }),
    offeringAvailable: new Gauge({ name: "karpenter_cloudprovider_instance_type_offering_available", help: "Instance type offering availability, based on instance type, capacity type, and zone", labelNames: ["instance_type", "capacity_type", "zone"], registers: r }),
    offeringPrice: new Gauge({ name: "karpenter_cloudprovider_instance_type_offering_price_estimate", help: "Instance type offering estimated hourly price used when making informed decisions on node cost calculation, based on instance type, capacity type, and zone.", labelNames: ["instance_type", "capacity_type", "zone"], registers: r }),
    instanceTypeCpu: new Gauge({ name: "karpenter_cloudprovider_instance_type_cpu_cores", help: "VCPUs cores for a given instance type.", labelNames: ["instance_type"], registers: r }),
    instanceTypeMemory: new Gauge({ name: "karpenter_cloudprovider_instance_type_memory_bytes", help: "Memory, in bytes, for a given instance type.", labelNames: ["instance_type"], registers: r }),
    // kerf's own: Karpenter has no metric for its catalog's freshness.
    catalogRefreshed: new Gauge({ name: "kerf_catalog_refreshed_timestamp_seconds", help: "When each part of the instance-type catalog (instanceTypes, spotPrices, onDemandPrices) last refreshed from AWS.", labelNames: ["part"], registers: r }),
    catalogRefreshErrors: new Counter({ name: "kerf_catalog_refresh_errors_total", help: "Failed refreshes of the instance-type catalog from AWS, by part; the last good answer stays in force.", labelNames: ["part"], registers: r }),
    reconcileTotal: new Counter({ name: "controller_runtime_reconcile_total", help: "Total number of reconciliations per controller.", labelNames: ["controller", "result"], registers: r }),
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
    buildInfo: new Gauge({ name: "karpenter_build_info", help: "kerf build information.", labelNames: ["version", "goversion", "commit"], registers: r }),
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

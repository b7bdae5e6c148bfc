// The AWS provider's families: the interruption queue (karpenter_interruption_*), cloud provider calls and their
// batching, instance launches and terminations, offerings and instance types (karpenter_cloudprovider_*), and the
// user data an EC2NodeClass renders (karpenter_ec2nodeclasses_userdata_bytes).
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import { BATCH_SIZE_BUCKETS, DEFAULT_BUCKETS, KARPENTER_DURATION_BUCKETS } from "./buckets.ts";

/** AWS provider metrics, registered in `r`. */
export const cloudProviderMetrics = (r: Registry[]) =>
  ({
    interruptionReceived: new Counter({
      name: "karpenter_interruption_received_messages_total",
      help:
        "Count of messages received from the SQS queue. Broken down by message type " +
        "and whether the message was actionable.",
      labelNames: ["message_type"],
      registers: r,
    }),
    interruptionDeleted: new Counter({
      name: "karpenter_interruption_deleted_messages_total",
      help: "Count of messages deleted from the SQS queue.",
      registers: r,
    }),
    interruptionQueueDuration: new Histogram({
      name: "karpenter_interruption_message_queue_duration_seconds",
      help: "Amount of time an interruption message is on the queue before it is processed by karpenter.",
      buckets: KARPENTER_DURATION_BUCKETS,
      registers: r,
    }),
    interruptionUnhealthyStatus: new Counter({
      name: "karpenter_interruption_instance_status_unhealthy_total",
      help: "Instances EC2 reports with an unhealthy status, by category.",
      labelNames: ["category"],
      registers: r,
    }),
    cloudProviderDuration: new Histogram({
      name: "karpenter_cloudprovider_duration_seconds",
      help: "Duration of cloud provider method calls.",
      labelNames: ["controller", "method", "provider"],
      buckets: DEFAULT_BUCKETS,
      registers: r,
    }),
    cloudProviderErrors: new Counter({
      name: "karpenter_cloudprovider_errors_total",
      help: "Total number of errors returned from CloudProvider calls.",
      labelNames: ["controller", "method", "provider", "error", "nodepool"],
      registers: r,
    }),
    batcherBatchSize: new Histogram({
      name: "karpenter_cloudprovider_batcher_batch_size",
      help: "Size of the request batch per batcher.",
      labelNames: ["batcher"],
      buckets: BATCH_SIZE_BUCKETS,
      registers: r,
    }),
    batcherBatchTime: new Histogram({
      name: "karpenter_cloudprovider_batcher_batch_time_seconds",
      help: "Duration of the batching window per batcher.",
      labelNames: ["batcher"],
      buckets: KARPENTER_DURATION_BUCKETS,
      registers: r,
    }),
    instanceLaunchFailures: new Counter({
      name: "karpenter_cloudprovider_instance_launch_failures_total",
      help: "Failed instance launches, by capacity type, zone, zone id and reason.",
      labelNames: ["capacity_type", "zone", "zone_id", "reason"],
      registers: r,
    }),
    instanceTerminationFailures: new Counter({
      name: "karpenter_cloudprovider_instance_termination_failures_total",
      help: "Failed instance terminations, by zone and zone id.",
      labelNames: ["zone", "zone_id"],
      registers: r,
    }),
    offeringAvailable: new Gauge({
      name: "karpenter_cloudprovider_instance_type_offering_available",
      help: "Instance type offering availability, based on instance type, capacity type, and zone",
      labelNames: ["instance_type", "capacity_type", "zone"],
      registers: r,
    }),
    offeringPrice: new Gauge({
      name: "karpenter_cloudprovider_instance_type_offering_price_estimate",
      help:
        "Instance type offering estimated hourly price used when making informed decisions " +
        "on node cost calculation, based on instance type, capacity type, and zone.",
      labelNames: ["instance_type", "capacity_type", "zone"],
      registers: r,
    }),
    instanceTypeCpu: new Gauge({
      name: "karpenter_cloudprovider_instance_type_cpu_cores",
      help: "VCPUs cores for a given instance type.",
      labelNames: ["instance_type"],
      registers: r,
    }),
    instanceTypeMemory: new Gauge({
      name: "karpenter_cloudprovider_instance_type_memory_bytes",
      help: "Memory, in bytes, for a given instance type.",
      labelNames: ["instance_type"],
      registers: r,
    }),
    userDataBytes: new Gauge({
      name: "karpenter_ec2nodeclasses_userdata_bytes",
      help: "Size in bytes of the user data an EC2NodeClass renders.",
      labelNames: ["nodeclass"],
      registers: r,
    }),
  }) as const;

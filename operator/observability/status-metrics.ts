/**
 * operatorpkg's status-condition and termination metrics, as Karpenter v1.15 registers them: one family set per
 * kind whose status controller it runs (NodeClaim, NodePool, Node, EC2NodeClass: `operator_<kind>_status_condition_*`,
 * `operator_<kind>_termination_*`), plus the kind-generic `operator_status_condition_*` / `operator_termination_*`
 * that status.EmitDeprecatedMetrics keeps for NodeClaim, NodePool and EC2NodeClass (labels group and kind).
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";

/** The kinds with a status controller, and the object labels (as metric labels) their series carry. */
export const STATUS_KINDS = {
  nodeclaim: ["karpenter_k8s_aws_ec2nodeclass", "karpenter_sh_nodepool"],
  nodepool: [],
  node: ["karpenter_k8s_aws_ec2nodeclass", "karpenter_sh_nodepool", "karpenter_sh_initialized"],
  ec2nodeclass: [],
} as const satisfies Record<string, readonly string[]>;

export type StatusKind = keyof typeof STATUS_KINDS;

/** 0.5 s to 8192 s, doubling (status.WithHistogramBuckets in Karpenter's controllers.go). */
const KARPENTER_STATUS_BUCKETS = Array.from({ length: 15 }, (_, i) => 0.5 * 2 ** i);
/** client_golang's DefBuckets: operatorpkg's default, kept for EC2NodeClass and the kind-generic histograms. */
const DEF_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One kind's families (or the kind-generic ones). */
function families(registry: Registry[], prefix: string, extra: readonly string[], buckets: readonly number[]) {
  const r = registry;
  return {
    count: new Gauge({
      name: `${prefix}_status_condition_count`,
      registers: r,
      help: "The number of a condition for a given object, type and status.",
      labelNames: ["namespace", "name", "type", "status", "reason", ...extra],
    }),
    currentStatusSeconds: new Gauge({
      name: `${prefix}_status_condition_current_status_seconds`,
      registers: r,
      help: "Seconds a status condition has been in its current state.",
      labelNames: ["namespace", "name", "type", "status", "reason", ...extra],
    }),
    transitions: new Counter({
      name: `${prefix}_status_condition_transitions_total`,
      registers: r,
      help: "The count of transitions of a given object, type and status.",
      labelNames: ["type", "status", "reason", ...extra],
    }),
    transitionSeconds: new Histogram({
      name: `${prefix}_status_condition_transition_seconds`,
      registers: r,
      buckets: [...buckets],
      help: "Seconds a condition spent in a state (status) before moving to another (to_status).",
      labelNames: ["type", "status", "to_status", ...extra],
    }),
    terminationCurrentTimeSeconds: new Gauge({
      name: `${prefix}_termination_current_time_seconds`,
      registers: r,
      help: "Seconds an object has been terminating.",
      labelNames: ["namespace", "name", ...extra],
    }),
    terminationDuration: new Histogram({
      name: `${prefix}_termination_duration_seconds`,
      registers: r,
      buckets: [...buckets],
      help: "Seconds an object took to terminate completely.",
      labelNames: [...extra],
    }),
  };
}

export type StatusFamilies = ReturnType<typeof families>;

/** Every status family: per kind, and the kind-generic ones under `generic`. */
export function statusConditionMetrics(registry: Registry[]): Record<StatusKind, StatusFamilies> & {
  readonly generic: StatusFamilies;
} {
  return {
    nodeclaim: families(registry, "operator_nodeclaim", STATUS_KINDS.nodeclaim, KARPENTER_STATUS_BUCKETS),
    nodepool: families(registry, "operator_nodepool", STATUS_KINDS.nodepool, KARPENTER_STATUS_BUCKETS),
    node: families(registry, "operator_node", STATUS_KINDS.node, KARPENTER_STATUS_BUCKETS),
    ec2nodeclass: families(registry, "operator_ec2nodeclass", STATUS_KINDS.ec2nodeclass, DEF_BUCKETS),
    generic: families(registry, "operator", ["group", "kind"], DEF_BUCKETS),
  };
}

// Karpenter's voluntary-disruption families (karpenter_voluntary_disruption_*) and the balanced-consolidation ones
// (karpenter_consolidation_*): decisions, eligible nodes, evaluation time, timeouts and failed validations.
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import { KARPENTER_DURATION_BUCKETS } from "./buckets.ts";

/** Voluntary disruption and consolidation metrics, registered in `r`. */
export const disruptionMetrics = (r: Registry[]) =>
  ({
    disruptionDecisions: new Counter({
      name: "karpenter_voluntary_disruption_decisions_total",
      help: "Number of disruption decisions performed.",
      labelNames: ["decision", "reason", "consolidation_type"],
      registers: r,
    }),
    disruptionDecisionsByNodePool: new Counter({
      name: "karpenter_voluntary_disruption_decisions_by_nodepool_total",
      help: "Number of disruption decisions performed, per NodePool.",
      labelNames: ["decision", "reason", "consolidation_type", "nodepool"],
      registers: r,
    }),
    disruptionTerminateFirst: new Counter({
      name: "karpenter_voluntary_disruption_terminate_first_decisions_total",
      help: "Disruption decisions that terminate before the replacement is ready, by nodepool, reason and why.",
      labelNames: ["nodepool", "reason", "terminate_first_reason"],
      registers: r,
    }),
    disruptionEligibleNodes: new Gauge({
      name: "karpenter_voluntary_disruption_eligible_nodes",
      help: "Number of nodes eligible for disruption by Karpenter. Labeled by disruption reason.",
      labelNames: ["reason"],
      registers: r,
    }),
    disruptionEvaluationDuration: new Histogram({
      name: "karpenter_voluntary_disruption_decision_evaluation_duration_seconds",
      help:
        "Duration of the disruption decision evaluation process in seconds. " +
        "Labeled by reason and consolidation type.",
      labelNames: ["reason", "consolidation_type"],
      buckets: KARPENTER_DURATION_BUCKETS,
      registers: r,
    }),
    disruptionConsolidationTimeouts: new Counter({
      name: "karpenter_voluntary_disruption_consolidation_timeouts_total",
      help:
        "Number of times the consolidation algorithm has reached its evaluation bound. " +
        "Labeled by consolidation type.",
      labelNames: ["consolidation_type"],
      registers: r,
    }),
    disruptionQueueFailures: new Counter({
      name: "karpenter_voluntary_disruption_queue_failures_total",
      help: "The number of times that an enqueued disruption decision failed. Labeled by disruption method.",
      labelNames: ["decision", "reason", "consolidation_type"],
      registers: r,
    }),
    disruptionFailedValidations: new Counter({
      name: "karpenter_voluntary_disruption_failed_validations_total",
      help: "Number of candidates that were selected for disruption but failed validation.",
      labelNames: ["consolidation_type"],
      registers: r,
    }),
    consolidationScore: new Histogram({
      name: "karpenter_consolidation_score",
      help: "Score of balanced consolidation moves, by decision, nodepool and policy.",
      labelNames: ["decision", "nodepool", "policy"],
      buckets: [0.1, 0.25, 0.33, 0.5, 1, 2, 5, 10],
      registers: r,
    }),
    consolidationMoves: new Counter({
      name: "karpenter_consolidation_moves_total",
      help: "Balanced consolidation moves, by decision, nodepool and policy.",
      labelNames: ["decision", "nodepool", "policy"],
      registers: r,
    }),
  }) as const;

// Karpenter's NodePool families (karpenter_nodepools_*): usage against limits, cost, and the disruption budget
// each NodePool allows and has in use.
import { Counter, Gauge, type Registry } from "prom-client";

/** NodePool metrics, registered in `r`. */
export const nodePoolMetrics = (r: Registry[]) =>
  ({
    nodePoolUsage: new Gauge({
      name: "karpenter_nodepools_usage",
      help: "The amount of resources used by the nodepool.",
      labelNames: ["nodepool", "resource_type"],
      registers: r,
    }),
    nodePoolLimit: new Gauge({
      name: "karpenter_nodepools_limit",
      help: "Limits specified on the nodepool.",
      labelNames: ["nodepool", "resource_type"],
      registers: r,
    }),
    nodePoolCost: new Gauge({
      name: "karpenter_nodepools_cost_total",
      help: "Estimated hourly cost of a nodepool's nodes.",
      labelNames: ["nodepool"],
      registers: r,
    }),
    nodePoolCostTrackerErrors: new Counter({
      name: "karpenter_nodepools_cost_tracker_errors_total",
      help: "Failures to price a nodepool's nodes.",
      labelNames: ["nodepool"],
      registers: r,
    }),
    nodePoolAllowedDisruptions: new Gauge({
      name: "karpenter_nodepools_allowed_disruptions",
      help:
        "The number of nodes for a given NodePool that can be concurrently disrupting at a point in time. " +
        "Labeled by NodePool and reason.",
      labelNames: ["nodepool", "reason"],
      registers: r,
    }),
    nodePoolNodesConsumingBudgets: new Gauge({
      name: "karpenter_nodepools_nodes_consuming_budgets",
      help: "Nodes counted against a nodepool's disruption budget, by reason.",
      labelNames: ["nodepool", "reason"],
      registers: r,
    }),
  }) as const;

// The controller-runtime and client-go families a Go controller exports and dashboards built for Karpenter read:
// reconciles per controller (controller_runtime_*), work-queue depth and leader election.
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import { CONTROLLER_BUCKETS } from "./buckets.ts";

/** Controller-runtime metrics, registered in `r`. */
export const runtimeMetrics = (r: Registry[]) =>
  ({
    reconcileTotal: new Counter({
      name: "controller_runtime_reconcile_total",
      help: "Total number of reconciliations per controller.",
      labelNames: ["controller", "result"],
      registers: r,
    }),
    reconcileErrors: new Counter({
      name: "controller_runtime_reconcile_errors_total",
      help: "Total number of reconciliation errors per controller.",
      labelNames: ["controller"],
      registers: r,
    }),
    reconcileDuration: new Histogram({
      name: "controller_runtime_reconcile_time_seconds",
      help: "Length of time per reconciliation per controller.",
      labelNames: ["controller"],
      buckets: CONTROLLER_BUCKETS,
      registers: r,
    }),
    workqueueDepth: new Gauge({
      name: "workqueue_depth",
      help: "Current depth of workqueue.",
      labelNames: ["name"],
      registers: r,
    }),
    leaderElectionMaster: new Gauge({
      name: "leader_election_master_status",
      help: "1 when this replica holds the Lease, else 0.",
      labelNames: ["name"],
      registers: r,
    }),
  }) as const;

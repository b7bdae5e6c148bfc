// kerf's own families (kerf_*), for what Karpenter exports nothing about, and karpenter_build_info with kerf's
// build in it.
import { Counter, Gauge, type Registry } from "prom-client";

/** kerf's own metrics and the build info, registered in `r`. */
export const kerfMetrics = (r: Registry[]) =>
  ({
    // Karpenter has no metric for its catalog's freshness.
    catalogRefreshed: new Gauge({
      name: "kerf_catalog_refreshed_timestamp_seconds",
      help:
        "When each part of the instance-type catalog (instanceTypes, spotPrices, onDemandPrices) " +
        "last refreshed from AWS.",
      labelNames: ["part"],
      registers: r,
    }),
    catalogRefreshErrors: new Counter({
      name: "kerf_catalog_refresh_errors_total",
      help: "Failed refreshes of the instance-type catalog from AWS, by part; the last good answer stays in force.",
      labelNames: ["part"],
      registers: r,
    }),
    // Karpenter deletes launch templates on cache eviction and exports nothing about it.
    launchTemplatesDeleted: new Counter({
      name: "kerf_launch_templates_deleted_total",
      labelNames: ["reason"],
      registers: r,
      help:
        "Launch templates deleted by garbage collection, by reason " +
        "(ami-superseded, security-groups-superseded, node-class-changed, node-class-gone, idle).",
    }),
    launchTemplates: new Gauge({
      name: "kerf_launch_templates",
      labelNames: ["state"],
      registers: r,
      help:
        "The cluster's launch templates after the last garbage-collection pass, by state " +
        "(current; retiring: superseded, deleted once unused for the grace).",
    }),
    // goversion and goarch carry Node's version and architecture: kerf is no Go program.
    buildInfo: new Gauge({
      name: "karpenter_build_info",
      help: "kerf build information.",
      labelNames: ["version", "goversion", "goarch", "commit"],
      registers: r,
    }),
  }) as const;

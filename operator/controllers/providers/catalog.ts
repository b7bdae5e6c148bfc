/**
 * The providers.catalog controller: keeps the instance-type catalog fresh from AWS, part by part on
 * Karpenter's cadence or faster (instance types, offerings and zones every 5 minutes and when an
 * EC2NodeClass spec changes; spot prices every hour, where Karpenter asks every 12 hours; on-demand prices
 * every 12 hours). A failed refresh keeps the last good answer, is logged, counted and told on every
 * EC2NodeClass in use as an Event, and is retried after a minute. And the cloudprovider.metrics controller:
 * Karpenter's offering and instance-type gauges over the types each NodePool's EC2NodeClass offers.
 */
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import type { Clock } from "../../core/clock.ts";
import { catalogRefreshFailed, type EventRecorder } from "../../observability/events.ts";
import type { Logger } from "../../observability/logger.ts";
import type { Metrics } from "../../observability/metrics.ts";
import type { CatalogFreshness, CatalogPart } from "../../ports/catalog-source.ts";
import type { Result } from "../runtime.ts";

/** How often each part refreshes, and how soon a failed one is tried again. */
export const CATALOG_REFRESH_MS: Readonly<Record<CatalogPart, number>> = {
  instanceTypes: 5 * 60_000,
  spotPrices: 60 * 60_000,
  onDemandPrices: 12 * 60 * 60_000,
};
export const CATALOG_RETRY_MS = 60_000;
export const CATALOG_CHANGE_DEBOUNCE_MS = 30_000;

/** The refreshes the controller drives (Ec2CatalogProvider). */
export interface RefreshableCatalog {
  refreshInstanceTypes(): Promise<void>;
  refreshSpotPrices(): Promise<void>;
  refreshOnDemandPrices(): Promise<void>;
  freshness(): CatalogFreshness;
}

/** An EC2NodeClass as much as an Event about it needs. */
type NodeClassRef = {
  readonly metadata?: { readonly name?: string | undefined; readonly uid?: string | undefined } | undefined;
};

/** The EC2NodeClass names NodePools reference (their `spec.template.spec.nodeClassRef.name`), once each. */
export function nodeClassNamesOf(
  pools: readonly { readonly spec?: Readonly<Record<string, unknown>> | undefined }[],
): string[] {
  type Template = { spec?: { nodeClassRef?: { name?: string } } } | undefined;
  const names = pools.map((p) => (p.spec?.["template"] as Template)?.spec?.nodeClassRef?.name);
  return [...new Set(names.filter((n): n is string => n !== undefined && n !== ""))];
}

/** What the refresh controller needs. */
export interface CatalogRefreshDeps {
  readonly catalog: RefreshableCatalog;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Pick<Metrics, "catalogRefreshed" | "catalogRefreshErrors">;
  readonly events: EventRecorder;
  /** Refresh periods (tests and the playground shorten them); CATALOG_REFRESH_MS otherwise. */
  readonly periods?: Partial<Record<CatalogPart, number>> | undefined;
  /** The EC2NodeClasses NodePools use (told of a failed refresh). */
  readonly nodeClassesInUse: () => readonly NodeClassRef[];
}

const PARTS: readonly CatalogPart[] = ["instanceTypes", "spotPrices", "onDemandPrices"];

/** The refresh loop; `due` holds when each part is next refreshed (0: now). */
export class CatalogRefresher {
  private readonly deps: CatalogRefreshDeps;
  private readonly due: Record<CatalogPart, number> = { instanceTypes: 0, spotPrices: 0, onDemandPrices: 0 };
  private readonly period: Record<CatalogPart, number>;

  constructor(deps: CatalogRefreshDeps) {
    this.deps = deps;
    this.period = { ...CATALOG_REFRESH_MS, ...deps.periods };
  }

  /** How often the offering gauges should follow the catalog: Karpenter's minute, or the fastest refresh. */
  get metricsPeriodMs(): number {
    return Math.min(OFFERING_METRICS_MS, ...Object.values(this.period));
  }

  /** Marks parts refreshed at start (main.ts refreshes before controllers run) so the loop waits a period. */
  refreshedAt(at: number): void {
    for (const part of PARTS) {
      const f = this.deps.catalog.freshness().parts[part];
      if (f.source === "api") this.due[part] = at + this.period[part];
      if (f.refreshedAt !== undefined) this.deps.metrics.catalogRefreshed.set({ part }, f.refreshedAt.getTime() / 1000);
    }
  }

  /**
   * An EC2NodeClass was added or its spec changed: its zones may have, so instance types and offerings
   * refresh now, or 30 s after the last refresh (many classes applied at once, a leader's first sync).
   */
  nodeClassChanged(): void {
    const last = this.deps.catalog.freshness().parts.instanceTypes.refreshedAt?.getTime() ?? 0;
    const debounce = Math.min(CATALOG_CHANGE_DEBOUNCE_MS, this.period.instanceTypes);
    this.due.instanceTypes = Math.min(this.due.instanceTypes, last + debounce);
  }

  async reconcile(): Promise<Result> {
    const now = this.deps.clock.now().getTime();
    const work: Record<CatalogPart, () => Promise<void>> = {
      instanceTypes: () => this.deps.catalog.refreshInstanceTypes(),
      spotPrices: () => this.deps.catalog.refreshSpotPrices(),
      onDemandPrices: () => this.deps.catalog.refreshOnDemandPrices(),
    };
    await Promise.all(
      PARTS.filter((part) => this.due[part] <= now).map(async (part) => {
        try {
          await work[part]();
          this.due[part] = now + this.period[part];
          const at = this.deps.catalog.freshness().parts[part].refreshedAt;
          if (at !== undefined) this.deps.metrics.catalogRefreshed.set({ part }, at.getTime() / 1000);
        } catch (error) {
          this.due[part] = now + Math.min(CATALOG_RETRY_MS, this.period[part]);
          this.failed(part, error);
        }
      }),
    );
    return { requeueAfter: Math.max(1000, Math.min(...PARTS.map((p) => this.due[p])) - now) };
  }

  private failed(part: CatalogPart, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    const source = this.deps.catalog.freshness().parts[part].source;
    const fallback = source === "api" ? "the last good answer" : source === "none" ? "no data" : `the ${source} data`;
    this.deps.metrics.catalogRefreshErrors.inc({ part });
    this.deps.logger.warn(
      { part, err: error, fallback },
      "refreshing the instance-type catalog failed; keeping what it had",
    );
    for (const nodeClass of this.deps.nodeClassesInUse()) {
      this.deps.events.publish(catalogRefreshFailed(nodeClass, message, fallback));
    }
  }
}

/** What the metrics controller needs. */
export interface OfferingMetricsDeps {
  readonly metrics: Pick<Metrics, "offeringAvailable" | "offeringPrice" | "instanceTypeCpu" | "instanceTypeMemory">;
  /** The EC2NodeClass names NodePools reference. */
  readonly nodeClassNames: () => readonly string[];
  readonly instanceTypes: (nodeClassName: string) => Promise<readonly InstanceType[]>;
  readonly logger: Logger;
  /** How often (OFFERING_METRICS_MS, Karpenter's minute, unless shortened). */
  readonly periodMs?: number | undefined;
}

/** Karpenter's cadence for the offering gauges. */
export const OFFERING_METRICS_MS = 60_000;

interface OfferingSeries {
  readonly labels: Record<string, string>;
  readonly available: boolean;
  readonly price: number;
}

/** Every offering of the types the NodePools' EC2NodeClasses offer: available when any class offers it so. */
async function collectOfferings(
  deps: OfferingMetricsDeps,
): Promise<{ series: Map<string, OfferingSeries>; types: Map<string, InstanceType> }> {
  const series = new Map<string, OfferingSeries>();
  const types = new Map<string, InstanceType>();
  for (const name of new Set(deps.nodeClassNames())) {
    let offered: readonly InstanceType[] = [];
    try {
      offered = await deps.instanceTypes(name);
    } catch (error) {
      deps.logger.debug(
        { nodeClass: name, err: error },
        "offering metrics: the EC2NodeClass offers no instance types yet",
      );
    }
    for (const t of offered) {
      types.set(t.name, t);
      for (const o of t.offerings) {
        const key = `${t.name}/${o.capacityType}/${o.zone}`;
        const labels = { instance_type: t.name, capacity_type: o.capacityType, zone: o.zone };
        const available = series.get(key)?.available === true || o.available;
        series.set(key, { labels, available, price: o.pricePerHour });
      }
    }
  }
  return { series, types };
}

/**
 * One pass of the offering gauges; series of offerings no longer offered are removed (the gauges are reset
 * and set anew).
 */
export async function publishOfferingMetrics(deps: OfferingMetricsDeps): Promise<Result> {
  const { series, types } = await collectOfferings(deps);
  const m = deps.metrics;
  for (const g of [m.offeringAvailable, m.offeringPrice, m.instanceTypeCpu, m.instanceTypeMemory]) g.reset();
  for (const { labels, available, price } of series.values()) {
    m.offeringAvailable.set(labels, available ? 1 : 0);
    m.offeringPrice.set(labels, price);
  }
  for (const t of types.values()) {
    m.instanceTypeCpu.set({ instance_type: t.name }, Number(t.labels["karpenter.k8s.aws/instance-cpu"] ?? 0));
    const memoryMiB = Number(t.labels["karpenter.k8s.aws/instance-memory"] ?? 0);
    m.instanceTypeMemory.set({ instance_type: t.name }, memoryMiB * 2 ** 20);
  }
  return { requeueAfter: deps.periodMs ?? OFFERING_METRICS_MS };
}

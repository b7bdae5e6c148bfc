/**
 * The region's instance-type catalog from AWS, as Karpenter's AWS provider builds its instance types:
 * DescribeInstanceTypes (hvm, x86_64 and arm64, every page), DescribeInstanceTypeOfferings by availability
 * zone, DescribeAvailabilityZones for zone IDs, on-demand prices from the Pricing API and spot prices from
 * DescribeSpotPriceHistory (the newest per type and zone). Each part refreshes on its own; a failed refresh
 * keeps the last good answer. Before a part has answered, the bundled data of the region stands in: its
 * types and offerings, its on-demand table, its spot prices where bundled, else (as Karpenter does before
 * its first spot answer) the on-demand price as the spot estimate.
 */
import { createHash } from "node:crypto";
import type { Catalog, CatalogEntry } from "../../../../policies/domain/catalog/catalog.ts";
import {
  catalogFromEc2,
  trimInstanceTypeInfo,
  type Ec2InstanceTypeInfo,
  type RegionPrices,
} from "../../../../policies/domain/catalog/from-ec2.ts";
import {
  newestSpotPrices,
  onDemandPricesFromPriceList,
  pricingCurrency,
  type SpotPriceRecord,
} from "../../../../policies/domain/catalog/prices.ts";
import type { CatalogFreshness, CatalogPart, CatalogSource, PartFreshness } from "../../../ports/catalog-source.ts";
import { describeAwsError } from "../errors.ts";
import type { Ec2CatalogApi, PricingApi } from "../sdk.ts";
import type { Clock } from "./unavailable-offerings.ts";

/** A refresh that failed; the catalog keeps its last good answer for that part. */
export class CatalogRefreshError extends Error {
  readonly part: CatalogPart;
  constructor(part: CatalogPart, message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = "CatalogRefreshError";
    this.part = part;
  }
}

/** What the provider needs (named, built in the composition root). */
export interface Ec2CatalogDeps {
  readonly region: string;
  readonly ec2: Ec2CatalogApi;
  /** The Pricing API; undefined with `isolatedVPC`, when on-demand prices stay the bundled table's. */
  readonly pricing: PricingApi | undefined;
  readonly clock: Clock;
  /** The bundled catalog of this region, when kerf ships one: the fallback until AWS answers. */
  readonly bundled: Catalog | undefined;
  /** Bundled per-type facts EC2 does not answer (network bandwidth), from any region's bundled catalog. */
  readonly reference: Catalog;
}

interface TypesAnswer {
  readonly infos: readonly Ec2InstanceTypeInfo[];
  readonly offerings: ReadonlyMap<string, readonly string[]>;
  readonly zoneIds: Readonly<Record<string, string>>;
}

/** Karpenter's filters: what a node can boot (hvm) on an architecture Kubernetes names. */
const TYPE_FILTERS = [
  { Name: "supported-virtualization-type", Values: ["hvm"] },
  { Name: "processor-info.supported-architecture", Values: ["x86_64", "arm64"] },
];

/** Every page of a paged AWS call. */
async function allPages<T>(
  fetch: (token: string | undefined) => Promise<{ items: readonly T[]; next: string | undefined }>,
): Promise<T[]> {
  const out: T[] = [];
  let token: string | undefined;
  do {
    const page = await fetch(token);
    out.push(...page.items);
    token = page.next === "" ? undefined : page.next;
  } while (token !== undefined);
  return out;
}

/** The catalog source the operator's cloud provider reads, refreshed from AWS (see the controller). */
export class Ec2CatalogProvider implements CatalogSource {
  private readonly deps: Ec2CatalogDeps;
  private types: TypesAnswer | undefined;
  private spot: ReadonlyMap<string, ReadonlyMap<string, number>> | undefined;
  private onDemand: ReadonlyMap<string, number> | undefined;
  private built: Catalog | undefined;
  private readonly parts: Record<CatalogPart, PartFreshness>;
  private readonly referenceByName: ReadonlyMap<string, CatalogEntry>;
  private readonly fingerprints: Partial<Record<CatalogPart, string>> = {};

  constructor(deps: Ec2CatalogDeps) {
    this.deps = deps;
    this.referenceByName = new Map(deps.reference.instanceTypes.map((e) => [e.name, e]));
    const bundled = deps.bundled === undefined ? "none" : "bundled";
    const bundlesSpot = deps.bundled?.instanceTypes.some((e) => e.spotPricePerHour !== null) === true;
    this.parts = {
      instanceTypes: { source: bundled },
      spotPrices: { source: bundlesSpot ? "bundled" : "on-demand-estimate" },
      onDemandPrices: {
        source: bundled,
        ...(deps.pricing === undefined ? { note: "isolated VPC: the Pricing API is not asked" } : {}),
      },
    };
  }

  get region(): string {
    return this.deps.region;
  }

  current(): Catalog {
    this.built ??= this.build();
    return this.built;
  }

  freshness(): CatalogFreshness {
    return { region: this.deps.region, parts: { ...this.parts } };
  }

  /** Types, their zones and zone IDs; throws CatalogRefreshError and keeps the last answer on failure. */
  async refreshInstanceTypes(): Promise<void> {
    const answer = await this.attempt("instanceTypes", "describing instance types, offerings and zones", async () => {
      const [infos, offered, zones] = await Promise.all([
        allPages(async (NextToken) => {
          const page = await this.deps.ec2.describeInstanceTypes({
            Filters: TYPE_FILTERS,
            MaxResults: 100,
            ...(NextToken === undefined ? {} : { NextToken }),
          });
          return { items: page.InstanceTypes ?? [], next: page.NextToken };
        }),
        allPages(async (NextToken) => {
          const page = await this.deps.ec2.describeInstanceTypeOfferings({
            LocationType: "availability-zone",
            MaxResults: 1000,
            ...(NextToken === undefined ? {} : { NextToken }),
          });
          return { items: page.InstanceTypeOfferings ?? [], next: page.NextToken };
        }),
        this.deps.ec2.describeAvailabilityZones({}),
      ]);
      const offerings = new Map<string, string[]>();
      for (const o of offered) {
        if (o.InstanceType === undefined || o.Location === undefined) continue;
        offerings.set(o.InstanceType, [...(offerings.get(o.InstanceType) ?? []), o.Location]);
      }
      const zoneIds: Record<string, string> = {};
      for (const z of zones.AvailabilityZones ?? []) {
        if (z.ZoneName !== undefined && z.ZoneId !== undefined) zoneIds[z.ZoneName] = z.ZoneId;
      }
      if (infos.length === 0 || offerings.size === 0) throw new Error("EC2 answered no instance types or no offerings");
      return { infos: (infos as Ec2InstanceTypeInfo[]).map(trimInstanceTypeInfo), offerings, zoneIds };
    });
    const content = [answer.infos, [...answer.offerings], answer.zoneIds];
    this.replace(
      "instanceTypes",
      () => {
        this.types = answer;
      },
      content,
    );
  }

  /** The newest spot price per type and zone. */
  async refreshSpotPrices(): Promise<void> {
    const prices = await this.attempt("spotPrices", "describing spot price history", async () => {
      const records = await allPages<SpotPriceRecord>(async (NextToken) => {
        const page = await this.deps.ec2.describeSpotPriceHistory({
          ProductDescriptions: ["Linux/UNIX", "Linux/UNIX (Amazon VPC)"],
          StartTime: this.deps.clock.now(),
          MaxResults: 1000,
          ...(NextToken === undefined ? {} : { NextToken }),
        });
        return { items: page.SpotPriceHistory ?? [], next: page.NextToken };
      });
      const newest = newestSpotPrices(records);
      if (newest.size === 0) throw new Error("EC2 answered no spot prices");
      return newest;
    });
    // Types the answer leaves out keep their last known prices, as Karpenter's do.
    const merged = new Map(this.spot ?? []);
    for (const [type, zones] of prices) merged.set(type, new Map([...(merged.get(type) ?? []), ...zones]));
    this.replace(
      "spotPrices",
      () => {
        this.spot = merged;
      },
      [...merged].map(([t, z]) => [t, [...z]]),
    );
  }

  /** On-demand prices from the Pricing API (shared tenancy, and dedicated for bare metal, as Karpenter asks). */
  async refreshOnDemandPrices(): Promise<void> {
    const pricing = this.deps.pricing;
    if (pricing === undefined) return;
    const prices = await this.attempt("onDemandPrices", "getting on-demand prices from the Pricing API", async () => {
      const [shared, metal] = await Promise.all([
        this.products(pricing, "Shared", "Compute Instance"),
        this.products(pricing, "Dedicated", "Compute Instance (bare metal)"),
      ]);
      const all = new Map([...shared, ...metal]);
      if (all.size === 0) throw new Error(`the Pricing API answered no prices for ${this.deps.region}`);
      return all;
    });
    this.replace(
      "onDemandPrices",
      () => {
        this.onDemand = prices;
      },
      [...prices],
    );
  }

  /**
   * Takes a part's new answer; the catalog is rebuilt only when an answer changed (as Karpenter flushes its
   * instance-type cache only on change), so an unchanged refresh keeps the catalog object and what callers
   * cached by its identity.
   */
  private replace(part: CatalogPart, take: () => void, content: unknown): void {
    // A digest, not the text: the types' answer is megabytes of JSON.
    const fingerprint = createHash("sha256").update(JSON.stringify(content)).digest("hex");
    take();
    if (this.fingerprints[part] === fingerprint) return;
    this.fingerprints[part] = fingerprint;
    this.built = undefined;
  }

  private async products(pricing: PricingApi, tenancy: string, family: string): Promise<Map<string, number>> {
    const term = (Field: string, Value: string) => ({ Field, Value, Type: "TERM_MATCH" as const });
    const filters = [
      term("regionCode", this.deps.region),
      term("serviceCode", "AmazonEC2"),
      term("preInstalledSw", "NA"),
      term("operatingSystem", "Linux"),
      term("capacitystatus", "Used"),
      term("marketoption", "OnDemand"),
      term("tenancy", tenancy),
      term("productFamily", family),
    ];
    const list = await allPages<unknown>(async (NextToken) => {
      const page = await pricing.getProducts({
        ServiceCode: "AmazonEC2",
        Filters: filters,
        ...(NextToken === undefined ? {} : { NextToken }),
      });
      return { items: page.PriceList ?? [], next: page.NextToken };
    });
    return onDemandPricesFromPriceList(list, pricingCurrency(this.deps.region)).prices;
  }

  private async attempt<T>(part: CatalogPart, doing: string, work: () => Promise<T>): Promise<T> {
    const at = this.deps.clock.now();
    try {
      const value = await work();
      const { note } = this.parts[part];
      this.parts[part] = { source: "api", refreshedAt: at, ...(note === undefined ? {} : { note }) };
      return value;
    } catch (error) {
      const message = describeAwsError(doing, error);
      this.parts[part] = { ...this.parts[part], failedAt: at, error: message };
      throw new CatalogRefreshError(part, message, { cause: error });
    }
  }

  private prices(): RegionPrices {
    const bundled = this.deps.bundled?.instanceTypes ?? [];
    const onDemand = new Map(bundled.map((e) => [e.name, e.onDemandPricePerHour]));
    for (const [type, price] of this.onDemand ?? []) onDemand.set(type, price);
    if (this.spot !== undefined) return { onDemand, spot: this.spot };
    const zonesOf = (type: string): readonly string[] => this.types?.offerings.get(type) ?? [];
    const spot = new Map<string, Map<string, number>>();
    const bundledSpot = new Map<string, number>();
    for (const e of bundled) if (e.spotPricePerHour !== null) bundledSpot.set(e.name, e.spotPricePerHour);
    for (const [type, price] of bundledSpot.size > 0 ? bundledSpot : onDemand) {
      spot.set(type, new Map(zonesOf(type).map((z) => [z, price])));
    }
    return { onDemand, spot };
  }

  private build(): Catalog {
    const region = this.deps.region;
    if (this.types === undefined) return this.deps.bundled ?? { region, zones: [], zoneIds: {}, instanceTypes: [] };
    return catalogFromEc2({
      region,
      instanceTypes: this.types.infos,
      offerings: this.types.offerings,
      zoneIds: this.types.zoneIds,
      prices: this.prices(),
      reference: this.referenceByName,
    });
  }
}

/**
 * `kerf check --explain`: what a NodePool's requirements and limits mean in instance types and
 * money, from the offline catalog (pure: no I/O).
 *
 * Worst-case hourly cost, per capacity type: Karpenter launches a node only while the pool's
 * summed node capacity stays within `spec.limits` (`nodes` counts nodes). Every node of type t
 * costs price(t) = capacity_r(t) × price(t)/capacity_r(t) ≤ capacity_r(t) × maxRate_r, where
 * maxRate_r is the highest price per unit of resource r (per vCPU-hour, per GiB-hour, per node)
 * over the matching types. Summed over the nodes, the pool costs at most limit_r × maxRate_r, for
 * each limited resource r that every matching type has. The ceiling is the smallest of these
 * bounds; it is reached when the limit is filled with the type of that highest rate. Without a
 * usable limit the cost is unbounded.
 */
import { catalogView, matchingTypes, parseRequirements, requirementsOf } from "../../policies/catalog-index.ts";
import type { Catalog } from "../../policies/domain/catalog/catalog.ts";
import { catalogProvenance, type PriceSource } from "../../policies/domain/catalog/bundled.ts";
import { cheapestOffering, type InstanceType } from "../../policies/domain/instance-types.ts";
import { Label, WELL_KNOWN_LABELS } from "../../policies/domain/labels.ts";
import { resourceValue, tryParseQuantity } from "../../policies/domain/quantity.ts";
import { Requirement, Requirements } from "../../policies/domain/requirements.ts";
import { asObject, get } from "../../policies/object.ts";

/** An instance type at its hourly price. */
export interface PricedType {
  readonly instanceType: string;
  readonly pricePerHour: number;
}

/**
 * The bound that sets the worst case: `limit` of `resource` times the highest `ratePerUnit` (price per
 * unit-hour, on `instanceType`).
 */
export interface CostCeiling {
  readonly pricePerHour: number;
  readonly resource: string;
  readonly limit: string;
  /** Dollars per hour per unit: per vCPU for cpu, per GiB for memory, per node for nodes, per unit otherwise. */
  readonly ratePerUnit: number;
  readonly unit: string;
  readonly instanceType: string;
}

/** One capacity type's view of the pool. */
export interface CapacityTypeExplanation {
  readonly instanceTypes: number;
  readonly cheapest: PricedType | null;
  readonly dearest: PricedType | null;
  /** null: no limit bounds it (no usable limit, or a matching type lacks every limited resource). */
  readonly worstCase: CostCeiling | null;
}

/** The smallest and largest allocatable value over the matching types. */
export interface Range {
  readonly min: number;
  readonly max: number;
}

/** Where the explanation's prices come from (the bundled catalog's provenance). */
export interface PriceNote {
  /** The region checked against (`kerf check --region`). */
  readonly region: string;
  /** The on-demand figures: their source and date, and whose prices they are. */
  readonly onDemand: string;
  /** The spot figures' source and date; null: none are bundled for the region, so only on-demand is priced. */
  readonly spot: string | null;
}

export interface NodePoolExplanation {
  /** Where the prices come from; absent for a catalog without provenance (not a bundled one). */
  readonly prices?: PriceNote;
  readonly instanceTypes: number;
  readonly spot: CapacityTypeExplanation;
  readonly onDemand: CapacityTypeExplanation;
  /** Allocatable per node (Karpenter's AL2023 model): cpu in cores, memory in GiB, pods; null when nothing matches. */
  readonly allocatable: { readonly cpuCores: Range; readonly memoryGiB: Range; readonly pods: Range } | null;
}

const CAPACITY_TYPES = { spot: "spot", onDemand: "on-demand" } as const;
const GIB = 2 ** 30;

/** How a limit's resource is counted per node and per unit of the rate shown. */
function unitOf(resource: string): { unit: string; perUnit: number } {
  if (resource === "cpu") return { unit: "vCPU", perUnit: 1000 };
  if (resource === "memory" || resource === "ephemeral-storage") return { unit: "GiB", perUnit: GIB };
  if (resource === "nodes") return { unit: "node", perUnit: 1 };
  return { unit: resource, perUnit: 1 };
}

function amountOn(type: InstanceType, resource: string): number {
  return resource === "nodes" ? 1 : (type.capacity[resource] ?? 0);
}

/** The ceiling `limit` of `resource` sets on a pool of `priced` types, or undefined when it sets none. */
function ceilingFor(
  resource: string,
  raw: unknown,
  priced: ReadonlyArray<{ type: InstanceType; price: number }>,
): CostCeiling | undefined {
  if (tryParseQuantity(raw) === undefined) return undefined;
  const limit = resourceValue(resource, raw as string | number);
  let worst: { rate: number; type: InstanceType } | undefined;
  for (const { type, price } of priced) {
    const amount = amountOn(type, resource);
    if (amount <= 0) return undefined; // a type without the resource is not held back by its limit
    const rate = price / amount;
    if (worst === undefined || rate > worst.rate) worst = { rate, type };
  }
  if (worst === undefined) return undefined;
  const { unit, perUnit } = unitOf(resource);
  const ratePerUnit = worst.rate * perUnit;
  return {
    pricePerHour: limit * worst.rate,
    resource,
    limit: String(raw),
    ratePerUnit,
    unit,
    instanceType: worst.type.name,
  };
}

function explainCapacityType(
  types: readonly InstanceType[],
  requirements: Requirements,
  limits: Readonly<Record<string, unknown>>,
): CapacityTypeExplanation {
  const priced = types.flatMap((type) => {
    const offering = cheapestOffering(type, requirements);
    return offering === undefined ? [] : [{ type, price: offering.pricePerHour }];
  });
  let cheapest: PricedType | null = null;
  let dearest: PricedType | null = null;
  for (const { type, price } of priced) {
    if (cheapest === null || price < cheapest.pricePerHour) cheapest = { instanceType: type.name, pricePerHour: price };
    if (dearest === null || price > dearest.pricePerHour) dearest = { instanceType: type.name, pricePerHour: price };
  }
  let worstCase: CostCeiling | null = null;
  for (const [resource, raw] of Object.entries(limits)) {
    const ceiling = ceilingFor(resource, raw, priced);
    if (ceiling !== undefined && (worstCase === null || ceiling.pricePerHour < worstCase.pricePerHour))
      worstCase = ceiling;
  }
  return { instanceTypes: priced.length, cheapest, dearest, worstCase };
}

function range(types: readonly InstanceType[], resource: string, perUnit = 1): Range {
  let min = Number.POSITIVE_INFINITY;
  let max = 0;
  for (const t of types) {
    const value = (t.allocatable[resource] ?? 0) / perUnit;
    min = Math.min(min, value);
    max = Math.max(max, value);
  }
  return { min: Math.round(min * 1000) / 1000, max: Math.round(max * 1000) / 1000 };
}

function sourceText(source: PriceSource, region: string): string {
  const whose = source.pricesOfRegion === region ? "" : ` (${source.pricesOfRegion}'s prices, not ${region}'s)`;
  return `${source.description}; as of ${source.asOf}${whose}`;
}

/** The price note of a bundled catalog, or undefined for another catalog. */
export function priceNote(catalog: Catalog): PriceNote | undefined {
  const provenance = catalogProvenance(catalog);
  if (provenance === undefined) return undefined;
  const spot = provenance.spot === null ? null : sourceText(provenance.spot, catalog.region);
  return { region: catalog.region, onDemand: sourceText(provenance.onDemand, catalog.region), spot };
}

/**
 * Without bundled spot figures the spot offerings carry the on-demand price (the cap): counting spot types is
 * right, pricing them is not, so only the count is kept.
 */
function withoutSpotPrices(e: CapacityTypeExplanation): CapacityTypeExplanation {
  return { instanceTypes: e.instanceTypes, cheapest: null, dearest: null, worstCase: null };
}

/**
 * The explanation of one NodePool object, or undefined when its requirements cannot be
 * read (the policies report why).
 */
export function explainNodePool(nodePool: unknown, catalog: Catalog): NodePoolExplanation | undefined {
  const parsed = parseRequirements(get(nodePool, "spec", "template", "spec", "requirements"));
  if (parsed === undefined) return undefined;
  const view = catalogView(catalog);
  const base = requirementsOf(parsed);
  const limits = asObject(get(nodePool, "spec", "limits")) ?? {};
  const all = matchingTypes(view, base);
  const per = (capacityType: string): CapacityTypeExplanation => {
    const withType = [...base, Requirement.in(Label.capacityType, [capacityType])];
    const requirements = new Requirements(withType.filter((r) => WELL_KNOWN_LABELS.has(r.key)));
    return explainCapacityType(matchingTypes(view, withType), requirements, limits);
  };
  const prices = priceNote(catalog);
  const spot = per(CAPACITY_TYPES.spot);
  return {
    ...(prices === undefined ? {} : { prices }),
    instanceTypes: all.length,
    spot: prices?.spot === null ? withoutSpotPrices(spot) : spot,
    onDemand: per(CAPACITY_TYPES.onDemand),
    allocatable:
      all.length === 0
        ? null
        : { cpuCores: range(all, "cpu", 1000), memoryGiB: range(all, "memory", GIB), pods: range(all, "pods") },
  };
}

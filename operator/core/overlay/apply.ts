/**
 * NodeOverlay (karpenter.sh/v1alpha1, gate NodeOverlay) as Karpenter v1.7+ evaluates and applies it (pure):
 *
 * - overlays are taken by weight, highest first (no weight counts as 0), equal weights by name, the later
 *   name in the alphabet first (Karpenter's OrderByWeight);
 * - an overlay selects, per NodePool, the instance types whose labels (plus karpenter.sh/nodepool and the
 *   pool's template labels) are compatible with its requirements, and of those the offerings whose zone,
 *   zone-id and capacity type its requirements allow;
 * - per offering, the first overlay with a price (`price` or `priceAdjustment`) wins; per type and extended
 *   resource, the first overlay with that capacity wins;
 * - an overlay that would set, at the same weight as the last overlay that set it, an offering's price or a
 *   capacity resource is in conflict and is applied nowhere (all or nothing across pools): its
 *   ValidationSucceeded condition is False with reason Conflict; one that fails runtime validation
 *   (requirements, a restricted capacity resource) is False with reason RuntimeValidation.
 *
 * Prices: `price` replaces; `+x`/`-x` adds; `+p%`/`-p%` scales by (1 + p/100); a result below 0 is 0.
 * No rounding, as Karpenter's float64 arithmetic (the same operations in the same order give the same
 * doubles). Capacity: extended resources are added to capacity and allocatable (Karpenter's overhead
 * covers cpu, memory, ephemeral-storage and pods only, so an extended resource is wholly allocatable).
 */
import {
  instanceTypeRequirements,
  offeringMatches,
  type InstanceType,
  type Offering,
} from "../../../policies/domain/instance-types.ts";
import { Label, WELL_KNOWN_RESOURCES } from "../../../policies/domain/labels.ts";
import { parseResourceList, type ResourceList } from "../../../policies/domain/quantity.ts";
import { Requirement, Requirements, type NodeSelectorRequirement } from "../../../policies/domain/requirements.ts";

/** A NodeOverlay as read from the cluster or a scenario (raw object). */
export interface NodeOverlayObject {
  readonly metadata?: { readonly name?: string | undefined; readonly generation?: number | undefined } | undefined;
  readonly spec?: Readonly<Record<string, unknown>> | undefined;
}

/** A NodePool as an overlay selects it: its name, its template labels and its instance types. */
export interface OverlayPool {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly types: readonly InstanceType[];
}

/** What Karpenter writes on the overlay: ValidationSucceeded True, or False with its reason and message. */
export type OverlayVerdict =
  | { readonly name: string; readonly status: "True" }
  | {
      readonly name: string;
      readonly status: "False";
      readonly reason: "RuntimeValidation" | "Conflict";
      readonly message: string;
    };

interface CapacityUpdate {
  /** Resource → value, the first (highest-weight) overlay per resource wins. */
  readonly values: Record<string, number>;
  /** The weight and resources of the last overlay that set capacity here (the conflict test). */
  lastWeight: number;
  lastResources: ReadonlySet<string>;
}

interface PriceUpdate {
  readonly change: string;
  lastWeight: number;
}

interface TypeUpdate {
  /** Offering key (capacityType/zone) → price change. */
  readonly prices: Map<string, PriceUpdate>;
  capacity: CapacityUpdate | undefined;
}

/** The evaluated overlays: a verdict per overlay and the updates per pool and type (apply with applyOverlays). */
export interface OverlayEvaluation {
  readonly verdicts: readonly OverlayVerdict[];
  /** The pools the evaluation saw: a pool not in it has not been evaluated (Karpenter skips it meanwhile). */
  readonly evaluatedPools: ReadonlySet<string>;
  readonly updates: ReadonlyMap<string, ReadonlyMap<string, TypeUpdate>>;
}

interface ParsedOverlay {
  readonly name: string;
  readonly weight: number;
  readonly requirements: Requirements;
  /** `price` when set, else `priceAdjustment` (Karpenter's order). */
  readonly change: string | undefined;
  readonly capacity: ResourceList | undefined;
}

const RESTRICTED_CAPACITY: ReadonlySet<string> = new Set(WELL_KNOWN_RESOURCES);
const obj = (v: unknown): Readonly<Record<string, unknown>> =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** The overlay's weight (0 when unset). */
export function overlayWeight(overlay: NodeOverlayObject): number {
  const w = overlay.spec?.["weight"];
  return typeof w === "number" ? w : 0;
}

/** Karpenter's OrderByWeight: weight descending, then name descending. */
export function orderByWeight<T extends NodeOverlayObject>(overlays: readonly T[]): T[] {
  const name = (o: NodeOverlayObject): string => o.metadata?.name ?? "";
  const byName = (a: NodeOverlayObject, b: NodeOverlayObject): number =>
    name(a) < name(b) ? 1 : name(a) > name(b) ? -1 : 0;
  return [...overlays].sort((a, b) => overlayWeight(b) - overlayWeight(a) || byName(a, b));
}

/** Karpenter's AdjustedPrice: an absolute price, `±x` added, or `±p%` scaled; never below 0. */
export function adjustedPrice(price: number, change: string): number {
  if (change === "") return price;
  if (!change.startsWith("+") && !change.startsWith("-")) return Number(change);
  const adjusted = change.endsWith("%") ? price * (1 + Number(change.slice(0, -1)) / 100) : price + Number(change);
  return adjusted >= 0 ? adjusted : 0;
}

/** Karpenter's validateRequirements: each requirement reads, NotIn has values. */
function requirementsOf(spec: Readonly<Record<string, unknown>>, errors: string[]): Requirements {
  const selectors = (Array.isArray(spec["requirements"]) ? spec["requirements"] : []) as NodeSelectorRequirement[];
  const reqs: Requirement[] = [];
  for (const s of selectors) {
    if (s.operator === "NotIn" && (s.values ?? []).length === 0) {
      errors.push(`key ${s.key} with operator ${s.operator} must have a value defined`);
    }
    try {
      reqs.push(Requirement.fromSelector(s));
    } catch (error) {
      errors.push(`invalid value: ${(error as Error).message} in requirements, restricted`);
    }
  }
  return new Requirements(reqs);
}

/** Karpenter's validateCapacity: no cpu, memory, ephemeral-storage or pods; and the quantities read. */
function capacityOf(spec: Readonly<Record<string, unknown>>, errors: string[]): ResourceList | undefined {
  if (spec["capacity"] === undefined) return undefined;
  const raw = obj(spec["capacity"]);
  for (const name of Object.keys(raw)) {
    if (RESTRICTED_CAPACITY.has(name)) errors.push(`invalid capacity: ${name} in resource, restricted`);
  }
  try {
    return parseResourceList(raw);
  } catch (error) {
    errors.push(`invalid capacity: ${(error as Error).message}`);
    return undefined;
  }
}

/** Karpenter's RuntimeValidate, then the overlay as evaluation reads it. */
function parse(overlay: NodeOverlayObject): ParsedOverlay | { error: string } {
  const spec = overlay.spec ?? {};
  const errors: string[] = [];
  const requirements = requirementsOf(spec, errors);
  const capacity = capacityOf(spec, errors);
  if (errors.length > 0) return { error: errors.join("; ") };
  const price = typeof spec["price"] === "string" ? spec["price"] : undefined;
  const adjustment = typeof spec["priceAdjustment"] === "string" ? spec["priceAdjustment"] : undefined;
  const name = overlay.metadata?.name ?? "";
  return { name, weight: overlayWeight(overlay), requirements, change: price ?? adjustment, capacity };
}

const offeringKey = (o: Offering): string => `${o.capacityType}/${o.zone}`;

/** The offerings of `type` the overlay selects in `pool` (none: it does not select the type there). */
function selectedOfferings(pool: OverlayPool, type: InstanceType, overlay: ParsedOverlay): readonly Offering[] {
  // Every offering, available or not: which overlay owns a price must not flap with the ICE cache.
  const all = instanceTypeRequirements({ ...type, offerings: type.offerings.map((o) => ({ ...o, available: true })) });
  const poolReqs = new Requirements([
    Requirement.in(Label.nodePool, [pool.name]),
    ...Requirements.fromLabels(pool.labels),
  ]);
  const own = poolReqs.intersect(all);
  if (own.compatible(overlay.requirements, { allowUndefined: new Set() }) !== undefined) return [];
  return type.offerings.filter((o) => offeringMatches(o, overlay.requirements));
}

type Store = Map<string, Map<string, TypeUpdate>>;

/** One type of one pool an overlay selects, with the offerings it selects. */
interface Selection {
  readonly pool: string;
  readonly type: string;
  readonly offerings: readonly Offering[];
}

function conflicts(store: Store, { pool, type, offerings }: Selection, overlay: ParsedOverlay): boolean {
  const update = store.get(pool)?.get(type);
  if (update === undefined) return false;
  const samePriceWeight = (o: Offering): boolean => update.prices.get(offeringKey(o))?.lastWeight === overlay.weight;
  if (overlay.change !== undefined && offerings.some(samePriceWeight)) return true;
  const cap = update.capacity;
  if (overlay.capacity === undefined || cap === undefined || cap.lastWeight !== overlay.weight) return false;
  return Object.keys(overlay.capacity).some((r) => cap.lastResources.has(r));
}

function record(store: Store, { pool, type, offerings }: Selection, overlay: ParsedOverlay): void {
  if (overlay.change === undefined && overlay.capacity === undefined) return;
  let byType = store.get(pool);
  if (byType === undefined) store.set(pool, (byType = new Map()));
  let update = byType.get(type);
  if (update === undefined) byType.set(type, (update = { prices: new Map(), capacity: undefined }));
  if (overlay.change !== undefined) {
    for (const o of offerings) {
      const found = update.prices.get(offeringKey(o));
      if (found === undefined) {
        update.prices.set(offeringKey(o), { change: overlay.change, lastWeight: overlay.weight });
      } else found.lastWeight = overlay.weight;
    }
  }
  if (overlay.capacity !== undefined) {
    const cap = update.capacity ?? { values: {}, lastWeight: overlay.weight, lastResources: new Set<string>() };
    for (const [r, v] of Object.entries(overlay.capacity)) if (!(r in cap.values)) cap.values[r] = v;
    cap.lastWeight = overlay.weight;
    cap.lastResources = new Set(Object.keys(overlay.capacity));
    update.capacity = cap;
  }
}

/** Evaluates every overlay against every pool's instance types (Karpenter's nodeoverlay controller reconcile). */
export function evaluateOverlays(
  overlays: readonly NodeOverlayObject[],
  pools: readonly OverlayPool[],
): OverlayEvaluation {
  const store: Store = new Map();
  const verdicts: OverlayVerdict[] = [];
  for (const raw of orderByWeight(overlays)) {
    const name = raw.metadata?.name ?? "";
    const overlay = parse(raw);
    if ("error" in overlay) {
      verdicts.push({ name, status: "False", reason: "RuntimeValidation", message: overlay.error });
      continue;
    }
    const select = (pool: OverlayPool, type: InstanceType): Selection => ({
      pool: pool.name,
      type: type.name,
      offerings: selectedOfferings(pool, type, overlay),
    });
    const selections = pools
      .flatMap((pool) => pool.types.map((type) => select(pool, type)))
      .filter((s) => s.offerings.length > 0);
    // Validate everywhere first, then record: a conflicting overlay is applied nowhere.
    if (selections.some((s) => conflicts(store, s, overlay))) {
      verdicts.push({ name, status: "False", reason: "Conflict", message: "conflict with another overlay" });
      continue;
    }
    for (const s of selections) record(store, s, overlay);
    verdicts.push({ name, status: "True" });
  }
  return { verdicts, evaluatedPools: new Set(pools.map((p) => p.name)), updates: store };
}

/** The pool's types with the evaluated overlays applied (copies; types without an update are returned as they are). */
export function applyOverlays(
  evaluation: OverlayEvaluation,
  pool: string,
  types: readonly InstanceType[],
): readonly InstanceType[] {
  const byType = evaluation.updates.get(pool);
  if (byType === undefined) return types;
  return types.map((type) => {
    const update = byType.get(type.name);
    if (update === undefined) return type;
    let out: InstanceType = type;
    const extra = update.capacity?.values ?? {};
    if (Object.keys(extra).length > 0) {
      const capacity = { ...out.capacity, ...extra };
      out = { ...out, capacity, allocatable: { ...out.allocatable, ...extra }, capacityOverlaid: true };
    }
    if (update.prices.size > 0) {
      out = {
        ...out,
        offerings: out.offerings.map((o) => {
          const price = update.prices.get(offeringKey(o));
          if (price === undefined) return o;
          return { ...o, pricePerHour: adjustedPrice(o.pricePerHour, price.change), priceOverlaid: true };
        }),
      };
    }
    return out;
  });
}

/** Whether an overlay changed the price of one of the type's offerings (Karpenter's IsPricingOverlayApplied). */
export function isPriceOverlaid(type: InstanceType): boolean {
  return type.offerings.some((o) => o.priceOverlaid === true);
}

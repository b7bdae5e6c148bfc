/**
 * The instance-type and offering model shared by admission checks and the scheduler: labels,
 * capacity, allocatable, offerings (zone × capacity type with a price); compatibility with
 * requirements, price ordering, truncation with minValues.
 */
import { AWS_ALLOWED_LABELS, Label, OFFERING_LABELS, RESERVATION_LABELS, type CapacityType } from "./labels.ts";
import type { ResourceList } from "./quantity.ts";
import { minValuesGap, Requirement, Requirements, type MinValuesGap } from "./requirements.ts";

/** Where and how an instance type can be bought, and for how much. */
export interface Offering {
  readonly zone: string;
  readonly zoneId?: string | undefined;
  readonly capacityType: CapacityType;
  readonly pricePerHour: number;
  readonly available: boolean;
  /** A NodeOverlay set this offering's price (operator/core/overlay/apply.ts). */
  readonly priceOverlaid?: true | undefined;
  /** Set on reserved offerings only: the capacity reservation the offering launches into. */
  readonly reservation?: OfferingReservation | undefined;
}

/** The capacity reservation behind a reserved offering (Karpenter's reservation requirements and capacity). */
export interface OfferingReservation {
  readonly id: string;
  readonly type: "default" | "capacity-block";
  readonly interruptible: boolean;
  /** Instances the reservation can still take, as last observed minus kerf's own launches since. */
  readonly capacity: number;
}

/** One instance type as the scheduler sees it. */
export interface InstanceType {
  readonly name: string;
  /** Every well-known label except the offering ones (zone, zone-id, capacity-type). */
  readonly labels: Readonly<Record<string, string>>;
  readonly capacity: ResourceList;
  readonly allocatable: ResourceList;
  readonly offerings: readonly Offering[];
  /**
   * Volumes attachable per CSI driver on a new node of this type (Karpenter's VolumeAttachmentLimits);
   * a driver not listed is unbounded until the node's CSINode reports its count.
   */
  readonly volumeLimits?: Readonly<Record<string, number>> | undefined;
  /** A NodeOverlay added extended resources to capacity (operator/core/overlay/apply.ts). */
  readonly capacityOverlaid?: true | undefined;
}

/**
 * GPU, accelerator and bare-metal types: expensive surprises unless a claim asked for them. Karpenter's AWS
 * launch drops them when an ordinary option is left (filter.go ExoticInstanceType), so the scheduler
 * prices a NodeClaim at its cheapest ordinary option when it has one.
 */
export function isExotic(type: InstanceType): boolean {
  const l = type.labels;
  return (
    l[Label.instanceGpuCount] !== undefined ||
    l[Label.instanceAcceleratorCount] !== undefined ||
    l[Label.instanceSize]?.includes("metal") === true
  );
}

/** The ICE-cache key of an offering: `<capacityType>:<instanceType>:<zone>`. */
export function offeringKey(capacityType: string, instanceType: string, zone: string): string {
  return `${capacityType}:${instanceType}:${zone}`;
}

/**
 * The value an offering gives an offering label (zone, zone ID, capacity type, reservation
 * keys); undefined when it has none.
 */
export function offeringLabel(offering: Offering, key: string): string | undefined {
  switch (key) {
    case Label.zone:
      return offering.zone;
    case Label.zoneId:
      return offering.zoneId;
    case Label.capacityType:
      return offering.capacityType;
    case Label.capacityReservationId:
      return offering.reservation?.id;
    case Label.capacityReservationType:
      return offering.reservation?.type;
    case Label.capacityReservationInterruptible:
      return offering.reservation === undefined ? undefined : String(offering.reservation.interruptible);
    default:
      return undefined;
  }
}

/**
 * Whether an offering satisfies the offering-label requirements. Spot and on-demand offerings have no
 * reservation labels (Karpenter gives them DoesNotExist), so a requirement on one matches them only
 * when it allows the label to be absent.
 */
export function offeringMatches(offering: Offering, requirements: Requirements): boolean {
  const zone = requirements.get(Label.zone);
  if (zone !== undefined && !zone.has(offering.zone)) return false;
  const ct = requirements.get(Label.capacityType);
  if (ct !== undefined && !ct.has(offering.capacityType)) return false;
  for (const key of RESERVATION_LABELS) {
    const r = requirements.get(key);
    if (r === undefined) continue;
    const value = offeringLabel(offering, key);
    if (value === undefined ? !r.allowsAbsent() : !r.has(value)) return false;
  }
  const zoneId = requirements.get(Label.zoneId);
  return zoneId === undefined || (offering.zoneId !== undefined && zoneId.has(offering.zoneId));
}

/**
 * Whether a NodeClaim can launch into the offering now: available, and for a reserved offering the
 * reservation still has room (Karpenter's Launchable; a full reservation stays Available).
 */
export function launchable(offering: Offering): boolean {
  return offering.available && (offering.reservation === undefined || offering.reservation.capacity > 0);
}

/** Available offerings that satisfy the requirements. */
export function compatibleOfferings(type: InstanceType, requirements: Requirements): Offering[] {
  return type.offerings.filter((o) => o.available && offeringMatches(o, requirements));
}

/** Undefined when the type's labels satisfy every non-offering requirement, else the reason. */
export function labelsMismatch(type: InstanceType, requirements: Requirements): string | undefined {
  for (const r of requirements) {
    if (OFFERING_LABELS.has(r.key)) continue;
    const value = type.labels[r.key];
    if (value === undefined ? !r.allowsAbsent() : !r.has(value)) return r.toString();
  }
  return undefined;
}

/** Undefined when the type has a label match and an available compatible offering, else the reason. */
export function incompatibility(type: InstanceType, requirements: Requirements): string | undefined {
  const mismatch = labelsMismatch(type, requirements);
  if (mismatch !== undefined) return `${type.name} does not satisfy ${mismatch}`;
  return type.offerings.some((o) => o.available && offeringMatches(o, requirements))
    ? undefined
    : `${type.name} has no available offering for the zone and capacity-type requirements`;
}

/** The cheapest available compatible offering, or undefined. */
export function cheapestOffering(type: InstanceType, requirements: Requirements): Offering | undefined {
  let best: Offering | undefined;
  for (const o of type.offerings) {
    if (!o.available || !offeringMatches(o, requirements)) continue;
    if (best === undefined || o.pricePerHour < best.pricePerHour) best = o;
  }
  return best;
}

/** Types ordered by their cheapest compatible available offering, then by name (types without one last). */
export function orderByPrice(types: readonly InstanceType[], requirements: Requirements): InstanceType[] {
  const priced = types.map((t) => ({ t, price: cheapestOffering(t, requirements)?.pricePerHour ?? Infinity }));
  priced.sort((a, b) => a.price - b.price || (a.t.name < b.t.name ? -1 : a.t.name > b.t.name ? 1 : 0));
  return priced.map((x) => x.t);
}

/** Whether `requests` fit within the type's allocatable (keys missing from allocatable count as zero). */
export function fits(type: InstanceType, requests: ResourceList): boolean {
  for (const [k, v] of Object.entries(requests)) if (v > 0 && v > (type.allocatable[k] ?? 0)) return false;
  return true;
}

/** Result of truncation: the kept types, or the minValues requirement the kept types cannot meet. */
export type TruncateResult =
  | { readonly ok: true; readonly types: InstanceType[] }
  | { readonly ok: false; readonly types: InstanceType[]; readonly reason: string };

/**
 * The first minValues requirement `types` do not span under `requirements` (undefined when all
 * are). A type offers its label's value; for an offering label (zone, zone ID, capacity type) it
 * offers the values of all its offerings, as a Karpenter instance type's zone and capacity-type
 * requirements list every zone and capacity type it is sold in, whatever the other keys allow and
 * whether or not an offering is unavailable for now (only values the requirement allows count).
 */
export function typesMinValuesGap(types: Iterable<InstanceType>, requirements: Requirements): MinValuesGap | undefined {
  return minValuesGap(requirements, (keys, add) => {
    for (const t of types) for (const key of keys) typeValues(t, key, add);
  });
}

/** Reports each value `type` offers for `key` (typesMinValuesGap). */
function typeValues(type: InstanceType, key: string, add: (key: string, value: string) => void): void {
  if (!OFFERING_LABELS.has(key)) {
    const v = type.labels[key];
    if (v !== undefined) add(key, v);
    return;
  }
  for (const o of type.offerings) {
    const v = offeringLabel(o, key);
    if (v !== undefined) add(key, v);
  }
}

/** Orders by price and keeps the first `max`; minValues must hold on what is kept (Karpenter's Truncate). */
export function truncate(types: readonly InstanceType[], requirements: Requirements, max: number): TruncateResult {
  const kept = orderByPrice(types, requirements).slice(0, max);
  const shortfall = typesMinValuesGap(kept, requirements);
  if (shortfall === undefined) return { ok: true, types: kept };
  const reason =
    `minValues requirement is not met for label ${shortfall.key}: needs ${shortfall.needed} values, ` +
    `the instance types offer ${shortfall.found}`;
  return { ok: false, types: kept, reason };
}

/** Whether the types span the requirements' minValues (undefined when satisfied, else the reason). */
export function minValuesShortfall(types: readonly InstanceType[], requirements: Requirements): string | undefined {
  const s = typesMinValuesGap(types, requirements);
  return s === undefined
    ? undefined
    : `minValues requirement is not met for label ${s.key}: needs ${s.needed} values, found ${s.found}`;
}

/** A type's requirements: `In` for each label and offering value; DoesNotExist for AWS labels it lacks. */
export function instanceTypeRequirements(type: InstanceType): Requirements {
  const reqs = Object.entries(type.labels).map(([k, v]) => Requirement.in(k, [v]));
  const offered = type.offerings.filter((o) => o.available);
  const missing = [...AWS_ALLOWED_LABELS]
    .filter((k) => type.labels[k] === undefined && !offered.some((o) => offeringLabel(o, k) !== undefined))
    .map((k) => Requirement.in(k, []));
  const zones = Requirement.in(
    Label.zone,
    type.offerings.filter((o) => o.available).map((o) => o.zone),
  );
  const cts = Requirement.in(
    Label.capacityType,
    type.offerings.filter((o) => o.available).map((o) => o.capacityType),
  );
  return new Requirements([...reqs, ...missing, zones, cts]);
}

/** Copies of the types with the given offerings (ICE-cache keys) marked unavailable. */
export function withUnavailableOfferings(
  types: readonly InstanceType[],
  unavailable: ReadonlySet<string>,
): InstanceType[] {
  if (unavailable.size === 0) return [...types];
  return types.map((t) => ({
    ...t,
    offerings: t.offerings.map((o) =>
      unavailable.has(offeringKey(o.capacityType, t.name, o.zone)) ? { ...o, available: false } : o,
    ),
  }));
}

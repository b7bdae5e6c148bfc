/**
 * The launch filters Karpenter's AWS provider applies before CreateFleet (aws filter.go): capacity
 * type by priority (reserved, spot, on-demand), one reservation kind and one reservation per pool for a
 * reserved launch, exotic types only when nothing else fits, spot only when cheaper than on-demand.
 */
import type { CapacityType } from "../../../policies/domain/labels.ts";
import { isExotic, launchable, offeringKey, offeringMatches } from "../../../policies/domain/instance-types.ts";
import { reservedOfferingKey } from "../capacity-reservations/offerings.ts";
import type { InstanceType, Offering } from "../../../policies/domain/instance-types.ts";
import type { Requirements } from "../../../policies/domain/requirements.ts";

/** A purchasable (type, offering) pair. */
export interface Candidate {
  readonly type: InstanceType;
  readonly offering: Offering;
}

/** Launchable offerings (a reservation with room) of compatible types that satisfy the offering requirements. */
export function candidates(
  types: readonly InstanceType[],
  requirements: Requirements,
  unavailable: ReadonlySet<string>,
): Candidate[] {
  const out: Candidate[] = [];
  for (const type of types) {
    for (const offering of type.offerings) {
      if (!launchable(offering) || !offeringMatches(offering, requirements)) continue;
      const key =
        offering.reservation === undefined
          ? offeringKey(offering.capacityType, type.name, offering.zone)
          : reservedOfferingKey(type.name, offering.zone, offering.reservation.id);
      if (unavailable.has(key)) continue;
      out.push({ type, offering });
    }
  }
  return out;
}

/** More room left than `b`, or as much and the smaller reservation id (stable plans). */
function roomier(a: Candidate, b: Candidate): boolean {
  const ra = a.offering.reservation?.capacity ?? 0;
  const rb = b.offering.reservation?.capacity ?? 0;
  return ra > rb || (ra === rb && (a.offering.reservation?.id ?? "") < (b.offering.reservation?.id ?? ""));
}

/**
 * CreateFleet takes one market per call: default ODCRs before capacity blocks before
 * interruptible ODCRs at equal price.
 */
const KIND_PRIORITY = ["default", "capacity-block", "default/interruptible"];
const kindOf = (c: Candidate): string =>
  `${c.offering.reservation?.type ?? "default"}` +
  `${c.offering.reservation?.interruptible === true ? "/interruptible" : ""}`;

/**
 * A reserved launch's candidates (aws filter.go CapacityReservationTypeFilter, CapacityBlockFilter,
 * ReservedOfferingFilter): the reservation kind with the cheapest offering; for capacity blocks only the
 * cheapest block (CreateFleet takes one); otherwise per (type, zone) the reservation with the most room.
 */
export function reservedCandidates(list: readonly Candidate[]): Candidate[] {
  const reserved = list.filter((c) => c.offering.capacityType === "reserved" && c.offering.reservation !== undefined);
  if (reserved.length === 0) return [];
  const cheapestOf = (kind: string): number =>
    Math.min(...reserved.filter((c) => kindOf(c) === kind).map((c) => c.offering.pricePerHour));
  const kinds = [...new Set(reserved.map(kindOf))].sort(
    (a, b) => cheapestOf(a) - cheapestOf(b) || KIND_PRIORITY.indexOf(a) - KIND_PRIORITY.indexOf(b),
  );
  const ofKind = reserved.filter((c) => kindOf(c) === kinds[0]);
  if (kinds[0] === "capacity-block") {
    const best = [...ofKind].sort(
      (a, b) => a.offering.pricePerHour - b.offering.pricePerHour || a.type.name.localeCompare(b.type.name),
    )[0];
    return best === undefined ? [] : [best];
  }
  const perPool = new Map<string, Candidate>();
  for (const c of ofKind) {
    const pool = `${c.type.name}/${c.offering.zone}`;
    const have = perPool.get(pool);
    if (have === undefined || roomier(c, have)) perPool.set(pool, c);
  }
  return [...perPool.values()];
}

/** Drops exotic types when at least one ordinary type remains. */
export function withoutExotic(list: readonly Candidate[]): Candidate[] {
  const ordinary = list.filter((c) => !isExotic(c.type));
  return ordinary.length > 0 ? ordinary : [...list];
}

function cheapest(list: readonly Candidate[], capacityType: CapacityType): number {
  let min = Infinity;
  for (const c of list)
    if (c.offering.capacityType === capacityType && c.offering.pricePerHour < min) min = c.offering.pricePerHour;
  return min;
}

/**
 * The capacity type to launch and its candidates: reserved (a reservation with room) before spot before
 * on-demand, but spot offerings dearer than the cheapest on-demand one are dropped first.
 */
export function chooseCapacityType(
  list: readonly Candidate[],
): { capacityType: CapacityType; candidates: Candidate[] } | undefined {
  const reserved = reservedCandidates(list);
  if (reserved.length > 0) return { capacityType: "reserved", candidates: reserved };
  const onDemandFloor = cheapest(list, "on-demand");
  const spot = list.filter((c) => c.offering.capacityType === "spot" && c.offering.pricePerHour <= onDemandFloor);
  if (spot.length > 0) return { capacityType: "spot", candidates: spot };
  const onDemand = list.filter((c) => c.offering.capacityType === "on-demand");
  return onDemand.length > 0 ? { capacityType: "on-demand", candidates: onDemand } : undefined;
}

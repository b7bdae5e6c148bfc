/**
 * The launch filters Karpenter's AWS provider applies before CreateFleet (aws filter.go): capacity
 * type by priority, exotic types only when nothing else fits, spot only when cheaper than on-demand.
 */
import type { CapacityType } from "../../../policies/domain/labels.ts";
import { isExotic, offeringKey, offeringMatches } from "../../../policies/domain/instance-types.ts";
import type { InstanceType, Offering } from "../../../policies/domain/instance-types.ts";
import type { Requirements } from "../../../policies/domain/requirements.ts";

/** A purchasable (type, offering) pair. */
export interface Candidate {
  readonly type: InstanceType;
  readonly offering: Offering;
}

/** Available offerings of compatible types that satisfy the zone / capacity-type requirements. */
export function candidates(types: readonly InstanceType[], requirements: Requirements, unavailable: ReadonlySet<string>): Candidate[] {
  const out: Candidate[] = [];
  for (const type of types) {
    for (const offering of type.offerings) {
      if (!offering.available || !offeringMatches(offering, requirements)) continue;
      if (unavailable.has(offeringKey(offering.capacityType, type.name, offering.zone))) continue;
      out.push({ type, offering });
    }
  }
  return out;
}

/** Drops exotic types when at least one ordinary type remains. */
export function withoutExotic(list: readonly Candidate[]): Candidate[] {
  const ordinary = list.filter((c) => !isExotic(c.type));
  return ordinary.length > 0 ? ordinary : [...list];
}

function cheapest(list: readonly Candidate[], capacityType: CapacityType): number {
  let min = Infinity;
  for (const c of list) if (c.offering.capacityType === capacityType && c.offering.pricePerHour < min) min = c.offering.pricePerHour;
  return min;
}

/**
 * The capacity type to launch and its candidates: spot before on-demand (reserved is not
 * supported), but spot offerings dearer than the cheapest on-demand one are dropped first.
 */
export function chooseCapacityType(list: readonly Candidate[]): { capacityType: CapacityType; candidates: Candidate[] } | undefined {
  const onDemandFloor = cheapest(list, "on-demand");
  const spot = list.filter((c) => c.offering.capacityType === "spot" && c.offering.pricePerHour <= onDemandFloor);
  if (spot.length > 0) return { capacityType: "spot", candidates: spot };
  const onDemand = list.filter((c) => c.offering.capacityType === "on-demand");
  return onDemand.length > 0 ? { capacityType: "on-demand", candidates: onDemand } : undefined;
}

/**
 * The fleet plan: which (instance type, zone, subnet) overrides one CreateFleet call offers, at
 * which priority, with which allocation strategy. Pure; the AWS adapter turns it into the request.
 */
import { fits, labelsMismatch, type InstanceType } from "../../../policies/domain/instance-types.ts";
import { Label, WELL_KNOWN_LABELS, type CapacityType } from "../../../policies/domain/labels.ts";
import type { ResourceList } from "../../../policies/domain/quantity.ts";
import { Requirements } from "../../../policies/domain/requirements.ts";
import { candidates, chooseCapacityType, withoutExotic, type Candidate } from "./filters.ts";
import { subnetPerZone, type SubnetChoice } from "./subnets.ts";

/** Karpenter's maxInstanceTypes: a fleet request offers at most this many types. */
export const MAX_INSTANCE_TYPES = 60;

/** One override: buy `instanceType` in `zone` through `subnetId`; lower priority is preferred. */
export interface FleetOverride {
  readonly instanceType: string;
  readonly zone: string;
  readonly subnetId: string;
  /** The offering's hourly price (Karpenter sets Priority to the price). */
  readonly priority: number;
  /** A reserved launch: the reservation this override launches into (its own launch template targets it). */
  readonly reservation?: FleetReservation | undefined;
}

/** The capacity reservation a reserved override targets. */
export interface FleetReservation {
  readonly id: string;
  readonly type: "default" | "capacity-block";
  readonly interruptible: boolean;
}

/** The decision: one capacity type, its allocation strategy and the overrides cheapest first. */
export interface FleetPlan {
  readonly kind: "launch";
  readonly capacityType: CapacityType;
  /**
   * Karpenter's: lowest-price / price-capacity-optimized, or with a price overlay
   * prioritized / capacity-optimized-prioritized.
   */
  readonly allocationStrategy:
    "lowest-price" | "price-capacity-optimized" | "prioritized" | "capacity-optimized-prioritized";
  readonly overrides: readonly FleetOverride[];
}

/** Why nothing can be launched: no compatible offering left (`unavailable`) or none in a subnet zone. */
export interface NoFleet {
  readonly kind: "none";
  readonly reason: "no-compatible-offering" | "no-subnet-in-zone";
  readonly message: string;
}

/** What planFleet needs: the node class's instance types, the claim's requirements and requests, subnets. */
export interface FleetInput {
  readonly instanceTypes: readonly InstanceType[];
  readonly requirements: Requirements;
  readonly requests?: ResourceList;
  readonly subnets: readonly SubnetChoice[];
  /** ICE-cache keys `capacityType:instanceType:zone` to leave out. */
  readonly unavailable?: ReadonlySet<string>;
  readonly maxInstanceTypes?: number;
  /**
   * The NodeClaim carries karpenter.sh/price-overlay-applied: EC2 follows the overrides' priorities (the overlaid
   * prices) instead of its own price list, as Karpenter's CreateFleetInputBuilder.WithOverlay does.
   */
  readonly priceOverlay?: boolean;
}

/**
 * Requirements on keys no instance type describes (karpenter.sh/nodepool, template and custom
 * labels, which a provisioned NodeClaim carries) label the node; they do not pick types — the
 * scheduler's rule (scheduling/pool-types.ts).
 */
function typeRequirements(input: FleetInput): Requirements {
  const carried = new Set(input.instanceTypes.flatMap((t) => Object.keys(t.labels)));
  return new Requirements(
    [...input.requirements].filter(
      (r) => r.key !== Label.nodePool && (carried.has(r.key) || WELL_KNOWN_LABELS.has(r.key)),
    ),
  );
}

function compatibleTypes(input: FleetInput): InstanceType[] {
  const requirements = typeRequirements(input);
  return input.instanceTypes.filter(
    (t) => labelsMismatch(t, requirements) === undefined && fits(t, input.requests ?? {}),
  );
}

function byPrice(a: FleetOverride, b: FleetOverride): number {
  return a.priority - b.priority || a.instanceType.localeCompare(b.instanceType) || a.zone.localeCompare(b.zone);
}

/** Keeps the offerings of the `max` cheapest types (a type ranks by its cheapest offering). */
function truncateTypes(list: readonly Candidate[], max: number): Candidate[] {
  const floor = new Map<string, number>();
  for (const c of list) floor.set(c.type.name, Math.min(floor.get(c.type.name) ?? Infinity, c.offering.pricePerHour));
  const kept = new Set(
    [...floor]
      .sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]))
      .slice(0, max)
      .map(([name]) => name),
  );
  return list.filter((c) => kept.has(c.type.name));
}

/** Plans one CreateFleet call, or says why none is possible. */
export function planFleet(input: FleetInput): FleetPlan | NoFleet {
  const zones = subnetPerZone(input.subnets);
  const all = candidates(compatibleTypes(input), input.requirements, input.unavailable ?? new Set());
  const inSubnetZones = all.filter((c) => zones.has(c.offering.zone));
  const chosen = chooseCapacityType(withoutExotic(inSubnetZones));
  if (chosen === undefined) {
    return all.length === 0
      ? { kind: "none", reason: "no-compatible-offering", message: "no available offering satisfies the requirements" }
      : { kind: "none", reason: "no-subnet-in-zone", message: "no subnet in any zone of the compatible offerings" };
  }
  const overrides = truncateTypes(chosen.candidates, input.maxInstanceTypes ?? MAX_INSTANCE_TYPES).map(
    (c): FleetOverride => {
      const r = c.offering.reservation;
      return {
        instanceType: c.type.name,
        zone: c.offering.zone,
        subnetId: zones.get(c.offering.zone)?.id ?? "",
        priority: c.offering.pricePerHour,
        ...(r === undefined ? {} : { reservation: { id: r.id, type: r.type, interruptible: r.interruptible } }),
      };
    },
  );
  return {
    kind: "launch",
    capacityType: chosen.capacityType,
    allocationStrategy:
      chosen.capacityType === "spot"
        ? input.priceOverlay === true
          ? "capacity-optimized-prioritized"
          : "price-capacity-optimized"
        : input.priceOverlay === true
          ? "prioritized"
          : "lowest-price",
    overrides: overrides.sort(byPrice),
  };
}

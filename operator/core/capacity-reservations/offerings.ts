/**
 * Reserved offerings (Karpenter's ReservedCapacityResolver): for each reservation a node class
 * resolves, one `reserved` offering of its instance type in its zone, labelled with the reservation
 * id, type and interruptibility, priced as the on-demand price / 10,000,000 — "free", yet ordered
 * like on-demand for consolidation.
 */
import { offeringKey, type InstanceType, type Offering } from "../../../policies/domain/instance-types.ts";
import type { CapacityReservationStatus } from "./reservations.ts";

/** Karpenter divides the on-demand price by this constant to price a reserved offering. */
export const RESERVED_PRICE_DIVISOR = 10_000_000;

/** The ICE-cache key of a reserved offering: scoped to its reservation, so one full reservation spares its siblings. */
export function reservedOfferingKey(instanceType: string, zone: string, reservationId: string): string {
  return `${offeringKey("reserved", instanceType, zone)}:${reservationId}`;
}

export interface ReservedOfferingInput {
  readonly reservations: readonly CapacityReservationStatus[];
  /** Zones the node class's subnets are in, and their zone ids. */
  readonly zones: ReadonlySet<string>;
  readonly zoneIds: Readonly<Record<string, string>>;
  /** Instances each reservation can still take (unknown: 0). */
  readonly capacity: (reservationId: string) => number;
  /** Reserved-offering keys (reservedOfferingKey) a launch found out of capacity. */
  readonly unavailable: ReadonlySet<string>;
}

/**
 * The types with a reserved offering appended for each reservation of their type. The offering is
 * available while the reservation is active (not an expiring capacity block), in a subnet zone, not
 * ICE-cached, and has room: kerf folds Karpenter's Launchable (room left) into `available`, so a
 * full reservation prices and schedules as its on-demand fallback everywhere.
 */
export function withReservedOfferings(types: readonly InstanceType[], input: ReservedOfferingInput): InstanceType[] {
  if (input.reservations.length === 0) return [...types];
  return types.map((type) => {
    const mine = input.reservations.filter((r) => r.instanceType === type.name);
    if (mine.length === 0) return type;
    const onDemand = type.offerings.find((o) => o.capacityType === "on-demand")?.pricePerHour ?? 0;
    const reserved = mine.map((r): Offering => {
      const capacity = Math.max(0, input.capacity(r.id));
      const healthy =
        input.zones.has(r.availabilityZone) &&
        r.state !== "expiring" &&
        !input.unavailable.has(reservedOfferingKey(type.name, r.availabilityZone, r.id));
      return {
        zone: r.availabilityZone,
        zoneId: input.zoneIds[r.availabilityZone],
        capacityType: "reserved",
        pricePerHour: onDemand / RESERVED_PRICE_DIVISOR,
        available: healthy && capacity > 0,
        reservation: { id: r.id, type: r.reservationType, interruptible: r.interruptible === true, capacity },
      };
    });
    return { ...type, offerings: [...type.offerings, ...reserved] };
  });
}

/**
 * The unavailable-offerings (ICE) cache: offerings keyed `capacityType:instanceType:zone` that
 * recently failed for lack of capacity; each entry expires after 3 minutes (Karpenter's TTL).
 */
import { offeringKey } from "../../../../policies/domain/instance-types.ts";
import { reservedOfferingKey } from "../../../core/capacity-reservations/offerings.ts";

/** Karpenter's UnavailableOfferingsTTL. */
export const UNAVAILABLE_OFFERINGS_TTL_MS = 3 * 60 * 1000;

/** Anything that tells the time (the operator's Clock, a fixed clock in tests). */
export interface Clock {
  now(): Date;
}

/** In-memory ICE cache; expiry is evaluated lazily against the injected clock. */
export class UnavailableOfferings {
  private readonly clock: Clock;
  private readonly ttlMs: number;
  private readonly expiry = new Map<string, number>();
  private spotUntil = 0;

  constructor(options: { clock: Clock; ttlMs?: number }) {
    this.clock = options.clock;
    this.ttlMs = options.ttlMs ?? UNAVAILABLE_OFFERINGS_TTL_MS;
  }

  /** Marks one offering unavailable for the TTL (ICE from CreateFleet, a spot interruption). */
  markUnavailable(capacityType: string, instanceType: string, zone: string): void {
    this.expiry.set(offeringKey(capacityType, instanceType, zone), this.clock.now().getTime() + this.ttlMs);
  }

  /** Marks one reserved offering unavailable for the TTL, scoped to its reservation (Karpenter's WithReservationID). */
  markReservationUnavailable(instanceType: string, zone: string, reservationId: string): void {
    this.expiry.set(reservedOfferingKey(instanceType, zone, reservationId), this.clock.now().getTime() + this.ttlMs);
  }

  /** Marks every spot offering unavailable (e.g. the spot service-linked role is missing). */
  markSpotUnavailable(): void {
    this.spotUntil = this.clock.now().getTime() + this.ttlMs;
  }

  isUnavailable(capacityType: string, instanceType: string, zone: string): boolean {
    const now = this.clock.now().getTime();
    if (capacityType === "spot" && now < this.spotUntil) return true;
    const until = this.expiry.get(offeringKey(capacityType, instanceType, zone));
    return until !== undefined && now < until;
  }

  /** The keys still unavailable now (expired entries are dropped). */
  keys(): Set<string> {
    const now = this.clock.now().getTime();
    const out = new Set<string>();
    for (const [key, until] of this.expiry) {
      if (now < until) out.add(key);
      else this.expiry.delete(key);
    }
    return out;
  }

  /** Whether every spot offering is currently unavailable. */
  spotUnavailable(): boolean {
    return this.clock.now().getTime() < this.spotUntil;
  }
}

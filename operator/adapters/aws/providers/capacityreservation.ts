/**
 * Capacity reservations over EC2 DescribeCapacityReservations (Karpenter's capacityreservation
 * provider): the reservations an EC2NodeClass's selector terms select, and how many instances each
 * can still take — the count EC2 last reported, less kerf's launches into it since, zeroed when a
 * launch finds it full, given back when kerf terminates one of its instances.
 */
import type { CapacityReservation } from "@aws-sdk/client-ec2";
import {
  queriesFromTerms,
  type CapacityReservationSelectorTerm,
  type Ec2Reservation,
  type ReservationQuery,
} from "../../../core/capacity-reservations/reservations.ts";
import { describeAwsError, errorCode } from "../errors.ts";
import type { Ec2Api } from "../sdk.ts";
import { SelectorResolutionError } from "./subnet.ts";

function toReservation(r: CapacityReservation): Ec2Reservation | undefined {
  if (r.CapacityReservationId === undefined || r.InstanceType === undefined || r.AvailabilityZone === undefined)
    return undefined;
  return {
    id: r.CapacityReservationId,
    instanceType: r.InstanceType,
    availabilityZone: r.AvailabilityZone,
    ownerId: r.OwnerId ?? "",
    instanceMatchCriteria: r.InstanceMatchCriteria ?? "",
    reservationType: r.ReservationType,
    endDate: r.EndDate,
    interruptible: r.Interruptible,
    availableInstanceCount: r.AvailableInstanceCount ?? 0,
  };
}

/** Reservations by selector terms, and the room left in each. */
export class CapacityReservationProvider {
  private readonly ec2: Ec2Api;
  private readonly room = new Map<string, number>();
  /** Slots held by launches in flight (hold()), not yet known to have used them. */
  private readonly held = new Map<string, number>();
  /** Instances whose slot was given back already (a termination is seen more than once). */
  private readonly returned = new Set<string>();

  constructor(ec2: Ec2Api) {
    this.ec2 = ec2;
  }

  /** The active reservations the terms select (unique by id); refreshes each one's room from EC2's count. */
  async list(terms: readonly CapacityReservationSelectorTerm[]): Promise<Ec2Reservation[]> {
    const byId = new Map<string, Ec2Reservation>();
    for (const query of queriesFromTerms(terms)) {
      for (const r of await this.describe(query)) if (!byId.has(r.id)) byId.set(r.id, r);
    }
    for (const r of byId.values()) this.room.set(r.id, r.availableInstanceCount);
    return [...byId.values()];
  }

  /** Instances the reservation can still take (0 when never seen), less the slots launches in flight hold. */
  capacity(reservationId: string): number {
    return Math.max(0, (this.room.get(reservationId) ?? 0) - (this.held.get(reservationId) ?? 0));
  }

  /**
   * Holds one slot of each reservation for a launch in flight, so that a launch planned meanwhile does not count
   * on the same last slot and lose the race at EC2 (ReservationCapacityExceeded, then a retry). Karpenter's
   * scheduler makes the same promise once per pass (ReservationManager); kerf keeps it at launch, across passes
   * too. The caller calls the returned function once the launch is over, whatever its outcome, after
   * markLaunched for the reservation it used: a hold is separate from the room, so a markFull or a refresh from
   * EC2 during the launch is not undone by it.
   */
  hold(reservationIds: Iterable<string>): () => void {
    const ids = [...new Set(reservationIds)];
    for (const id of ids) this.held.set(id, (this.held.get(id) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const id of ids) {
        const n = (this.held.get(id) ?? 0) - 1;
        if (n > 0) this.held.set(id, n);
        else this.held.delete(id);
      }
    };
  }

  /** One instance launched into the reservation. */
  markLaunched(reservationId: string): void {
    const n = this.room.get(reservationId);
    if (n !== undefined && n > 0) this.room.set(reservationId, n - 1);
  }

  /** A launch found the reservation full (ReservationCapacityExceeded): no room until EC2 says otherwise. */
  markFull(reservationId: string): void {
    this.room.set(reservationId, 0);
  }

  /** One of kerf's instances in the reservation is gone: its slot is free again (once per instance). */
  markTerminated(reservationId: string, instanceId: string): void {
    if (this.returned.has(instanceId)) return;
    this.returned.add(instanceId);
    if (this.returned.size > 10_000) this.returned.clear();
    const n = this.room.get(reservationId);
    if (n !== undefined) this.room.set(reservationId, n + 1);
  }

  private async describe(query: ReservationQuery): Promise<Ec2Reservation[]> {
    const out: Ec2Reservation[] = [];
    const filters = query.filters.map((f) => ({ Name: f.name, Values: [...f.values] }));
    let token: string | undefined;
    do {
      let page;
      try {
        page = await this.ec2.describeCapacityReservations({
          Filters: filters,
          ...(query.ids === undefined ? { MaxResults: 1000 } : { CapacityReservationIds: [...query.ids] }),
          ...(token === undefined ? {} : { NextToken: token }),
        });
      } catch (error) {
        // An id that does not exist (or no longer does) selects nothing, as in Karpenter.
        if (errorCode(error)?.includes("NotFound") === true) return out;
        throw new SelectorResolutionError(describeAwsError("describing capacity reservations", error), {
          cause: error,
        });
      }
      for (const r of page.CapacityReservations ?? []) {
        const reservation = toReservation(r);
        if (reservation !== undefined) out.push(reservation);
      }
      token = page.NextToken;
    } while (token !== undefined && token !== "");
    return out;
  }
}

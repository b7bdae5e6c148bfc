/**
 * Capacity reservations over EC2 DescribeCapacityReservations (Karpenter's capacityreservation
 * provider): the reservations an EC2NodeClass's selector terms select, and how many instances each
 * can still take (ReservationRoom: EC2's count, less kerf's launches and holds).
 */
import type { CapacityReservation } from "@aws-sdk/client-ec2";
import {
  queriesFromTerms,
  type CapacityReservationSelectorTerm,
  type Ec2Reservation,
  type ReservationQuery,
} from "../../../core/capacity-reservations/reservations.ts";
import { describeAwsError, errorCode } from "../errors.ts";
import { ReservationRoom } from "../../../core/capacity-reservations/room.ts";
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

/** Reservations by selector terms, and the room left in each (core/capacity-reservations/room.ts). */
export class CapacityReservationProvider {
  private readonly ec2: Ec2Api;
  /** What kerf knows of each reservation's room; the cloud provider counts its launches in it. */
  readonly room = new ReservationRoom();

  constructor(ec2: Ec2Api) {
    this.ec2 = ec2;
  }

  /** The active reservations the terms select (unique by id); refreshes each one's room from EC2's count. */
  async list(terms: readonly CapacityReservationSelectorTerm[]): Promise<Ec2Reservation[]> {
    const byId = new Map<string, Ec2Reservation>();
    for (const query of queriesFromTerms(terms)) {
      for (const r of await this.describe(query)) if (!byId.has(r.id)) byId.set(r.id, r);
    }
    for (const r of byId.values()) this.room.sync(r.id, r.availableInstanceCount);
    return [...byId.values()];
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

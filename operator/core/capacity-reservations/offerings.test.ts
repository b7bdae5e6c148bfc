import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { offeringMatches } from "../../../policies/domain/instance-types.ts";
import { Label } from "../../../policies/domain/labels.ts";
import { Requirements } from "../../../policies/domain/requirements.ts";
import { reservedOfferingKey, withReservedOfferings } from "./offerings.ts";
import type { CapacityReservationStatus } from "./reservations.ts";

const m5: InstanceType = {
  name: "m5.large",
  labels: {},
  capacity: {},
  allocatable: {},
  offerings: [
    { zone: "us-east-1a", zoneId: "use1-az1", capacityType: "on-demand", pricePerHour: 0.096, available: true },
  ],
};
const res = (id: string, extra: Partial<CapacityReservationStatus> = {}): CapacityReservationStatus => ({
  id,
  availabilityZone: "us-east-1a",
  instanceType: "m5.large",
  ownerID: "012345678901",
  instanceMatchCriteria: "targeted",
  reservationType: "default",
  state: "active",
  ...extra,
});
const base = {
  zones: new Set(["us-east-1a"]),
  zoneIds: { "us-east-1a": "use1-az1" },
  capacity: () => 2,
  unavailable: new Set<string>(),
};

void describe("withReservedOfferings", () => {
  void it("adds one reserved offering per reservation, priced at the on-demand price / 10,000,000, labelled with the reservation", () => {
    const [t] = withReservedOfferings([m5], { ...base, reservations: [res("cr-1")] });
    const reserved = t!.offerings.filter((o) => o.capacityType === "reserved");
    assert.deepEqual(reserved, [
      {
        zone: "us-east-1a",
        zoneId: "use1-az1",
        capacityType: "reserved",
        pricePerHour: 0.096 / 10_000_000,
        available: true,
        reservation: { id: "cr-1", type: "default", interruptible: false, capacity: 2 },
      },
    ]);
  });

  const availability = [
    {
      name: "a reservation with room is available",
      r: res("cr-1"),
      capacity: 1,
      unavailable: [],
      zones: ["us-east-1a"],
      want: true,
    },
    {
      name: "a full reservation is not (kerf folds Launchable into available)",
      r: res("cr-1"),
      capacity: 0,
      unavailable: [],
      zones: ["us-east-1a"],
      want: false,
    },
    {
      name: "an expiring capacity block is not",
      r: res("cr-1", { reservationType: "capacity-block", state: "expiring" }),
      capacity: 3,
      unavailable: [],
      zones: ["us-east-1a"],
      want: false,
    },
    {
      name: "one a launch found out of capacity is not",
      r: res("cr-1"),
      capacity: 3,
      unavailable: [reservedOfferingKey("m5.large", "us-east-1a", "cr-1")],
      zones: ["us-east-1a"],
      want: false,
    },
    {
      name: "one outside the node class's subnet zones is not",
      r: res("cr-1"),
      capacity: 3,
      unavailable: [],
      zones: ["us-east-1b"],
      want: false,
    },
  ];
  for (const c of availability) {
    void it(c.name, () => {
      const [t] = withReservedOfferings([m5], {
        ...base,
        zones: new Set(c.zones),
        reservations: [c.r],
        capacity: () => c.capacity,
        unavailable: new Set(c.unavailable),
      });
      assert.equal(t!.offerings.find((o) => o.capacityType === "reserved")?.available, c.want);
    });
  }

  void it("leaves types no reservation is for untouched", () => {
    const c5 = { ...m5, name: "c5.large" };
    assert.equal(withReservedOfferings([c5], { ...base, reservations: [res("cr-1")] })[0], c5);
  });

  const matching = [
    {
      name: "a reservation-id requirement matches that reservation's offering",
      key: Label.capacityReservationId,
      op: "In" as const,
      values: ["cr-1"],
      reserved: true,
      plain: false,
    },
    {
      name: "a DoesNotExist on the reservation id matches only spot and on-demand offerings",
      key: Label.capacityReservationId,
      op: "DoesNotExist" as const,
      values: [],
      reserved: false,
      plain: true,
    },
    {
      name: "a reservation-type requirement selects by type",
      key: Label.capacityReservationType,
      op: "In" as const,
      values: ["capacity-block"],
      reserved: false,
      plain: false,
    },
  ];
  for (const c of matching) {
    void it(c.name, () => {
      const [t] = withReservedOfferings([m5], { ...base, reservations: [res("cr-1")] });
      const reqs = Requirements.fromSelectors([{ key: c.key, operator: c.op, values: c.values }]);
      assert.equal(
        offeringMatches(
          t!.offerings.find((o) => o.capacityType === "reserved")!,
          reqs,
        ),
        c.reserved,
      );
      assert.equal(
        offeringMatches(
          t!.offerings.find((o) => o.capacityType === "on-demand")!,
          reqs,
        ),
        c.plain,
      );
    });
  }
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  queriesFromTerms,
  reservationRequeueMs,
  reservationStatus,
  resolveReservations,
  type Ec2Reservation,
} from "./reservations.ts";

const NOW = new Date("2026-11-27T06:00:00Z");
const cr = (id: string, extra: Partial<Ec2Reservation> = {}): Ec2Reservation => ({
  id,
  instanceType: "m5.large",
  availabilityZone: "us-east-1a",
  ownerId: "012345678901",
  instanceMatchCriteria: "targeted",
  availableInstanceCount: 2,
  ...extra,
});

void describe("queriesFromTerms", () => {
  const active = { name: "state", values: ["active"] };
  const cases = [
    {
      name: "an id term asks for that reservation, active only",
      terms: [{ id: "cr-1" }],
      want: [{ ids: ["cr-1"], filters: [active] }],
    },
    {
      name: "a tag term asks by tag, a `*` value by key alone, ownerID narrowing it",
      terms: [{ tags: { team: "ml", env: "*" }, ownerID: "111122223333" }],
      want: [
        {
          filters: [
            active,
            { name: "owner-id", values: ["111122223333"] },
            { name: "tag-key", values: ["env"] },
            { name: "tag:team", values: ["ml"] },
          ],
        },
      ],
    },
    {
      name: "an instanceMatchCriteria term asks for open or targeted reservations",
      terms: [{ instanceMatchCriteria: "open" as const }],
      want: [{ filters: [active, { name: "instance-match-criteria", values: ["open"] }] }],
    },
    {
      name: "a term with only ownerID selects nothing (as in Karpenter)",
      terms: [{ ownerID: "111122223333" }],
      want: [],
    },
    {
      name: "terms are ORed: one query each",
      terms: [{ id: "cr-1" }, { id: "cr-2" }],
      want: [
        { ids: ["cr-1"], filters: [active] },
        { ids: ["cr-2"], filters: [active] },
      ],
    },
  ];
  for (const c of cases) void it(c.name, () => assert.deepEqual(queriesFromTerms(c.terms), c.want));
});

void describe("resolveReservations", () => {
  void it("writes Karpenter's status fields, sorted by id and unique, with reservationType and state defaulted", () => {
    const got = resolveReservations(
      [cr("cr-b"), cr("cr-a", { instanceMatchCriteria: "open", interruptible: true }), cr("cr-b")],
      NOW,
    );
    assert.deepEqual(got.reservations, [
      {
        id: "cr-a",
        availabilityZone: "us-east-1a",
        instanceType: "m5.large",
        ownerID: "012345678901",
        instanceMatchCriteria: "open",
        reservationType: "default",
        state: "active",
        interruptible: true,
      },
      {
        id: "cr-b",
        availabilityZone: "us-east-1a",
        instanceType: "m5.large",
        ownerID: "012345678901",
        instanceMatchCriteria: "targeted",
        reservationType: "default",
        state: "active",
      },
    ]);
    assert.deepEqual(got.errors, []);
  });

  void it("drops reservations that have ended and reports those with an unknown match criteria or type", () => {
    const got = resolveReservations(
      [
        cr("cr-ended", { endDate: new Date(NOW.getTime() - 1) }),
        cr("cr-odd", { instanceMatchCriteria: "someday" }),
        cr("cr-new", { reservationType: "future-kind" }),
      ],
      NOW,
    );
    assert.deepEqual(got.reservations, []);
    assert.equal(got.errors.length, 2);
    assert.match(got.errors.join("\n"), /cr-odd: unsupported instance match criteria/);
    assert.match(got.errors.join("\n"), /cr-new: unsupported reservation type/);
  });

  const blocks = [
    {
      name: "a capacity block more than 40 minutes from its end is active",
      type: "capacity-block",
      endsIn: 41,
      state: "active",
    },
    {
      name: "a capacity block 40 minutes from its end is expiring",
      type: "capacity-block",
      endsIn: 40,
      state: "expiring",
    },
    {
      name: "a default reservation near its end stays active (only blocks expire early)",
      type: "default",
      endsIn: 5,
      state: "active",
    },
  ];
  for (const c of blocks) {
    void it(c.name, () => {
      const endDate = new Date(NOW.getTime() + c.endsIn * 60_000);
      const got = reservationStatus(cr("cr-1", { reservationType: c.type, endDate }), NOW);
      assert.ok(!("error" in got));
      assert.equal(got.state, c.state);
      assert.equal(got.endTime, endDate.toISOString().replace(/\.\d{3}Z$/, "Z"));
    });
  }

  void it("looks again in a minute, or when the first reservation ends if sooner", () => {
    const soon = resolveReservations([cr("cr-1", { endDate: new Date(NOW.getTime() + 20_000) })], NOW).reservations;
    assert.equal(reservationRequeueMs(soon, NOW), 20_000);
    assert.equal(reservationRequeueMs([], NOW), 60_000);
  });
});

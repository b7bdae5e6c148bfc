import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { InstanceType, Offering } from "../../../policies/domain/instance-types.ts";
import { Label } from "../../../policies/domain/labels.ts";
import { Requirements } from "../../../policies/domain/requirements.ts";
import { planFleet, type FleetPlan } from "./plan.ts";
import { subnetPerZone } from "./subnets.ts";

function offer(zone: string, capacityType: "spot" | "on-demand", price: number): Offering {
  return { zone, capacityType, pricePerHour: price, available: true };
}

function type(name: string, offerings: Offering[], extra: Record<string, string> = {}): InstanceType {
  return {
    name,
    labels: { [Label.instanceType]: name, [Label.arch]: "amd64", ...extra },
    capacity: { cpu: 2000, memory: 2 ** 33, pods: 29 },
    allocatable: { cpu: 1930, memory: 2 ** 32, pods: 29 },
    offerings,
  };
}

const subnets = [
  { id: "subnet-a1", zone: "us-east-1a", availableIpCount: 10 },
  { id: "subnet-a2", zone: "us-east-1a", availableIpCount: 200 },
  { id: "subnet-b1", zone: "us-east-1b", availableIpCount: 50 },
];

const m5 = type("m5.large", [
  offer("us-east-1a", "on-demand", 0.096),
  offer("us-east-1b", "on-demand", 0.096),
  offer("us-east-1a", "spot", 0.04),
  offer("us-east-1b", "spot", 0.03),
]);
const c5 = type("c5.large", [
  offer("us-east-1a", "on-demand", 0.085),
  offer("us-east-1b", "on-demand", 0.085),
  offer("us-east-1a", "spot", 0.05),
]);
const gpu = type("g4dn.xlarge", [offer("us-east-1a", "on-demand", 0.526)], { [Label.instanceGpuCount]: "1" });

function reqs(selectors: { key: string; operator: "In" | "NotIn"; values: string[] }[]): Requirements {
  return Requirements.fromSelectors(selectors);
}

function launch(result: ReturnType<typeof planFleet>): FleetPlan {
  assert.equal(result.kind, "launch");
  return result as FleetPlan;
}

void describe("subnetPerZone", () => {
  void it("should pick the subnet with the most free IPs in each zone", () => {
    const chosen = subnetPerZone(subnets);
    assert.equal(chosen.get("us-east-1a")?.id, "subnet-a2");
    assert.equal(chosen.get("us-east-1b")?.id, "subnet-b1");
  });

  void it("should break ties by subnet id so plans are stable", () => {
    const chosen = subnetPerZone([
      { id: "subnet-z", zone: "a", availableIpCount: 5 },
      { id: "subnet-c", zone: "a", availableIpCount: 5 },
    ]);
    assert.equal(chosen.get("a")?.id, "subnet-c");
  });
});

void describe("planFleet", () => {
  void it("should prefer spot with price-capacity-optimized when spot is allowed and cheaper", () => {
    const plan = launch(planFleet({ instanceTypes: [m5, c5], requirements: new Requirements(), subnets }));
    assert.equal(plan.capacityType, "spot");
    assert.equal(plan.allocationStrategy, "price-capacity-optimized");
    assert.deepEqual(
      plan.overrides.map((o) => [o.instanceType, o.zone, o.subnetId, o.priority]),
      [
        ["m5.large", "us-east-1b", "subnet-b1", 0.03],
        ["m5.large", "us-east-1a", "subnet-a2", 0.04],
        ["c5.large", "us-east-1a", "subnet-a2", 0.05],
      ],
    );
  });

  void it("should use lowest-price on-demand when the claim allows only on-demand", () => {
    const plan = launch(
      planFleet({
        instanceTypes: [m5, c5],
        requirements: reqs([{ key: Label.capacityType, operator: "In", values: ["on-demand"] }]),
        subnets,
      }),
    );
    assert.equal(plan.capacityType, "on-demand");
    assert.equal(plan.allocationStrategy, "lowest-price");
    assert.deepEqual(
      plan.overrides.map((o) => `${o.instanceType}/${o.zone}`),
      ["c5.large/us-east-1a", "c5.large/us-east-1b", "m5.large/us-east-1a", "m5.large/us-east-1b"],
    );
  });

  void it("should leave out offerings in the unavailable-offerings cache", () => {
    const unavailable = new Set(["on-demand:c5.large:us-east-1a"]);
    const plan = launch(
      planFleet({
        instanceTypes: [m5, c5],
        requirements: reqs([{ key: Label.capacityType, operator: "In", values: ["on-demand"] }]),
        subnets,
        unavailable,
      }),
    );
    assert.equal(plan.overrides[0]?.instanceType, "c5.large");
    assert.equal(plan.overrides[0]?.zone, "us-east-1b");
    assert.ok(!plan.overrides.some((o) => o.instanceType === "c5.large" && o.zone === "us-east-1a"));
  });

  void it("should not filter types by the nodepool label or template labels a provisioned NodeClaim carries", () => {
    const claim = Requirements.fromSelectors([
      { key: Label.nodePool, operator: "In", values: ["default"] },
      { key: "team", operator: "In", values: ["a"] },
      { key: Label.capacityType, operator: "In", values: ["on-demand"] },
      { key: Label.instanceType, operator: "In", values: ["m5.large"] },
    ]);
    assert.deepEqual(
      launch(planFleet({ instanceTypes: [m5, c5], requirements: claim, subnets })).overrides.map((o) => o.instanceType),
      ["m5.large", "m5.large"],
    );
  });

  void it("should restrict overrides to the claim's instance types and zones", () => {
    const requirements = reqs([
      { key: Label.instanceType, operator: "In", values: ["m5.large"] },
      { key: Label.zone, operator: "In", values: ["us-east-1a"] },
      { key: Label.capacityType, operator: "In", values: ["on-demand"] },
    ]);
    const plan = launch(planFleet({ instanceTypes: [m5, c5], requirements, subnets }));
    assert.deepEqual(plan.overrides, [
      { instanceType: "m5.large", zone: "us-east-1a", subnetId: "subnet-a2", priority: 0.096 },
    ]);
  });

  void it("should drop spot offerings dearer than the cheapest on-demand offering", () => {
    const pricey = type("r5.large", [offer("us-east-1a", "spot", 0.2), offer("us-east-1a", "on-demand", 0.1)]);
    const plan = launch(planFleet({ instanceTypes: [pricey], requirements: new Requirements(), subnets }));
    assert.equal(plan.capacityType, "on-demand");
  });

  void it("should leave out exotic types unless nothing else fits", () => {
    const withGpu = launch(
      planFleet({
        instanceTypes: [gpu, c5],
        requirements: reqs([{ key: Label.capacityType, operator: "In", values: ["on-demand"] }]),
        subnets,
      }),
    );
    assert.ok(!withGpu.overrides.some((o) => o.instanceType === "g4dn.xlarge"));
    const onlyGpu = launch(planFleet({ instanceTypes: [gpu], requirements: new Requirements(), subnets }));
    assert.equal(onlyGpu.overrides[0]?.instanceType, "g4dn.xlarge");
  });

  void it("should offer at most maxInstanceTypes types, the cheapest ones", () => {
    const plan = launch(
      planFleet({
        instanceTypes: [m5, c5],
        requirements: reqs([{ key: Label.capacityType, operator: "In", values: ["on-demand"] }]),
        subnets,
        maxInstanceTypes: 1,
      }),
    );
    assert.deepEqual([...new Set(plan.overrides.map((o) => o.instanceType))], ["c5.large"]);
  });

  void it("should leave out types whose allocatable cannot hold the requests", () => {
    const plan = planFleet({ instanceTypes: [m5], requirements: new Requirements(), subnets, requests: { cpu: 4000 } });
    assert.equal(plan.kind, "none");
  });

  const none = [
    {
      name: "every offering is unavailable",
      unavailable: [
        "on-demand:m5.large:us-east-1a",
        "on-demand:m5.large:us-east-1b",
        "spot:m5.large:us-east-1a",
        "spot:m5.large:us-east-1b",
      ],
      subnetList: subnets,
      reason: "no-compatible-offering",
    },
    {
      name: "no subnet lies in an offered zone",
      unavailable: [],
      subnetList: [{ id: "subnet-c", zone: "us-east-1c", availableIpCount: 9 }],
      reason: "no-subnet-in-zone",
    },
  ];
  for (const c of none) {
    void it(`should plan nothing when ${c.name}`, () => {
      const result = planFleet({
        instanceTypes: [m5],
        requirements: new Requirements(),
        subnets: c.subnetList,
        unavailable: new Set(c.unavailable),
      });
      assert.equal(result.kind, "none");
      assert.equal((result as { reason: string }).reason, c.reason);
    });
  }
});

void describe("planFleet with capacity reservations", () => {
  type Res = {
    id: string;
    zone: string;
    capacity: number;
    price?: number;
    type?: "default" | "capacity-block";
    interruptible?: boolean;
  };
  const reserved = (r: Res): Offering => ({
    zone: r.zone,
    capacityType: "reserved",
    pricePerHour: r.price ?? 0.096 / 10_000_000,
    available: r.capacity > 0,
    reservation: { id: r.id, type: r.type ?? "default", interruptible: r.interruptible ?? false, capacity: r.capacity },
  });
  const withRes = (t: InstanceType, rs: Res[]): InstanceType => ({
    ...t,
    offerings: [...t.offerings, ...rs.map(reserved)],
  });
  const all = reqs([{ key: Label.capacityType, operator: "In", values: ["reserved", "spot", "on-demand"] }]);
  const cases: {
    name: string;
    types: InstanceType[];
    requirements?: Requirements;
    unavailable?: string[];
    want: [string, string, string | undefined][];
    capacityType: string;
  }[] = [
    {
      name: "launches into a reservation with room before spot and on-demand",
      types: [withRes(m5, [{ id: "cr-1", zone: "us-east-1a", capacity: 2 }]), c5],
      want: [["m5.large", "us-east-1a", "cr-1"]],
      capacityType: "reserved",
    },
    {
      name: "falls back to spot when the only reservation is full",
      types: [withRes(m5, [{ id: "cr-1", zone: "us-east-1a", capacity: 0 }])],
      want: [
        ["m5.large", "us-east-1b", undefined],
        ["m5.large", "us-east-1a", undefined],
      ],
      capacityType: "spot",
    },
    {
      name: "falls back when a launch found the reservation out of capacity (ICE cache, scoped to the reservation)",
      types: [withRes(m5, [{ id: "cr-1", zone: "us-east-1a", capacity: 2 }])],
      unavailable: ["reserved:m5.large:us-east-1a:cr-1"],
      want: [
        ["m5.large", "us-east-1b", undefined],
        ["m5.large", "us-east-1a", undefined],
      ],
      capacityType: "spot",
    },
    {
      name: "does not launch reserved when the NodeClaim does not allow the reserved capacity type",
      types: [withRes(m5, [{ id: "cr-1", zone: "us-east-1a", capacity: 2 }])],
      requirements: reqs([{ key: Label.capacityType, operator: "In", values: ["on-demand"] }]),
      want: [
        ["m5.large", "us-east-1a", undefined],
        ["m5.large", "us-east-1b", undefined],
      ],
      capacityType: "on-demand",
    },
    {
      name: "offers one reservation per (type, zone): the one with the most room",
      types: [
        withRes(m5, [
          { id: "cr-1", zone: "us-east-1a", capacity: 1 },
          { id: "cr-2", zone: "us-east-1a", capacity: 5 },
          { id: "cr-3", zone: "us-east-1b", capacity: 1 },
        ]),
      ],
      want: [
        ["m5.large", "us-east-1a", "cr-2"],
        ["m5.large", "us-east-1b", "cr-3"],
      ],
      capacityType: "reserved",
    },
    {
      name: "keeps one reservation kind per fleet: default reservations before capacity blocks at equal price",
      types: [
        withRes(m5, [{ id: "cr-b", zone: "us-east-1b", capacity: 1, type: "capacity-block" }]),
        withRes(c5, [{ id: "cr-d", zone: "us-east-1a", capacity: 1, price: 0.096 / 10_000_000 }]),
      ],
      want: [["c5.large", "us-east-1a", "cr-d"]],
      capacityType: "reserved",
    },
    {
      name: "offers only the cheapest capacity block (CreateFleet takes one)",
      types: [
        withRes(m5, [{ id: "cr-b1", zone: "us-east-1a", capacity: 1, type: "capacity-block" }]),
        withRes(c5, [{ id: "cr-b2", zone: "us-east-1a", capacity: 1, type: "capacity-block", price: 1e-9 }]),
      ],
      want: [["c5.large", "us-east-1a", "cr-b2"]],
      capacityType: "reserved",
    },
    {
      name: "a requirement on the reservation id launches only into that reservation",
      types: [
        withRes(m5, [
          { id: "cr-1", zone: "us-east-1a", capacity: 1 },
          { id: "cr-2", zone: "us-east-1b", capacity: 1 },
        ]),
      ],
      requirements: reqs([{ key: Label.capacityReservationId, operator: "In", values: ["cr-2"] }]),
      want: [["m5.large", "us-east-1b", "cr-2"]],
      capacityType: "reserved",
    },
  ];
  for (const c of cases) {
    void it(`should: ${c.name}`, () => {
      const plan = launch(
        planFleet({
          instanceTypes: c.types,
          requirements: c.requirements ?? all,
          subnets,
          unavailable: new Set(c.unavailable ?? []),
        }),
      );
      assert.equal(plan.capacityType, c.capacityType);
      assert.deepEqual(
        plan.overrides.map((o) => [o.instanceType, o.zone, o.reservation?.id]),
        c.want,
      );
    });
  }
});

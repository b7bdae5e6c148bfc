import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { InstanceType, Offering } from "../../../policies/domain/instance-types.ts";
import { Requirement, Requirements } from "../../../policies/domain/requirements.ts";
import { cheaperThan, worstLaunchPrice } from "./select-offerings.ts";

type Row = [zone: string, capacityType: "spot" | "on-demand" | "reserved", price: number, available?: boolean];

function type(name: string, offerings: Row[]): InstanceType {
  const list: Offering[] = offerings.map(([zone, capacityType, pricePerHour, available = true]) => ({
    zone,
    capacityType,
    pricePerHour,
    available,
  }));
  return { name, labels: { "node.kubernetes.io/instance-type": name }, capacity: {}, allocatable: {}, offerings: list };
}

const any = Requirements.fromSelectors([]);
const zoneA = new Requirements([Requirement.in("topology.kubernetes.io/zone", ["a"])]);
const onDemand = new Requirements([Requirement.in("karpenter.sh/capacity-type", ["on-demand"])]);

void describe("the worst launch price (Karpenter's WorstLaunchPrice)", () => {
  const zonal = type("m5.large", [
    ["a", "spot", 0.03],
    ["b", "spot", 0.05],
    ["c", "spot", 0.09, false],
    ["a", "on-demand", 0.096],
    ["b", "on-demand", 0.096],
  ]);
  const cases: { name: string; t: InstanceType; reqs: Requirements; price: number }[] = [
    {
      name: "is the dearest available spot offering when spot is allowed (an unavailable zone does not count)",
      t: zonal,
      reqs: any,
      price: 0.05,
    },
    { name: "is the zone's own price when the requirements pin the zone", t: zonal, reqs: zoneA, price: 0.03 },
    { name: "is the on-demand price when only on-demand is allowed", t: zonal, reqs: onDemand, price: 0.096 },
    {
      name: "is on-demand's when no spot offering is available",
      t: type("x", [
        ["a", "spot", 0.01, false],
        ["a", "on-demand", 0.2],
      ]),
      reqs: any,
      price: 0.2,
    },
    {
      name: "is the reserved price when a reservation is offered (the launch uses it first)",
      t: type("r", [
        ["a", "spot", 0.01],
        ["a", "reserved", 0.05],
        ["a", "on-demand", 0.2],
      ]),
      reqs: any,
      price: 0.05,
    },
    {
      name: "is Infinity without any available compatible offering",
      t: type("y", [["a", "spot", 0.01, false]]),
      reqs: any,
      price: Infinity,
    },
  ];
  for (const c of cases) void it(c.name, () => assert.equal(worstLaunchPrice(c.t, c.reqs), c.price));

  void it("keeps a replacement only when every zone it could land in is cheaper than the candidates", () => {
    assert.deepEqual(
      cheaperThan([zonal], any, 0.05).map((t) => t.name),
      [],
    );
    assert.deepEqual(
      cheaperThan([zonal], any, 0.051).map((t) => t.name),
      ["m5.large"],
    );
    assert.deepEqual(
      cheaperThan([zonal], zoneA, 0.04).map((t) => t.name),
      ["m5.large"],
    );
  });
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { Requirements } from "../../../policies/domain/requirements.ts";
import { planFleet, type FleetPlan } from "./plan.ts";

const type = (name: string, capacityType: "spot" | "on-demand", price: number): InstanceType => ({
  name,
  labels: { "node.kubernetes.io/instance-type": name, "kubernetes.io/arch": "amd64" },
  capacity: { cpu: 2000, memory: 2 ** 33, pods: 29 },
  allocatable: { cpu: 1930, memory: 2 ** 32, pods: 29 },
  offerings: [{ zone: "us-east-1a", capacityType, pricePerHour: price, available: true }],
});
const subnets = [{ id: "subnet-a", zone: "us-east-1a", availableIpCount: 10 }];

describe("planFleet with a price overlay (karpenter.sh/price-overlay-applied)", () => {
  const cases: [string, "spot" | "on-demand", boolean, FleetPlan["allocationStrategy"]][] = [
    ["on-demand without an overlay asks EC2 for the lowest price", "on-demand", false, "lowest-price"],
    ["on-demand with an overlay follows the overrides' priorities", "on-demand", true, "prioritized"],
    ["spot without an overlay is price-capacity-optimized", "spot", false, "price-capacity-optimized"],
    ["spot with an overlay is capacity-optimized-prioritized", "spot", true, "capacity-optimized-prioritized"],
  ];
  for (const [name, capacityType, priceOverlay, want] of cases) {
    it(name, () => {
      const plan = planFleet({
        instanceTypes: [type("m5.large", capacityType, 0.1)],
        requirements: new Requirements(),
        subnets,
        priceOverlay,
      });
      assert.equal(plan.kind, "launch");
      assert.equal((plan as FleetPlan).allocationStrategy, want);
    });
  }

  it("orders the overrides by the overlaid prices it is given, cheapest first, with those prices as priorities", () => {
    const plan = planFleet({
      instanceTypes: [type("m5.large", "on-demand", 0.096), type("m5.xlarge", "on-demand", 0.001)],
      requirements: new Requirements(),
      subnets,
      priceOverlay: true,
    });
    assert.deepEqual(
      (plan as FleetPlan).overrides.map((o) => [o.instanceType, o.priority]),
      [
        ["m5.xlarge", 0.001],
        ["m5.large", 0.096],
      ],
    );
  });
});

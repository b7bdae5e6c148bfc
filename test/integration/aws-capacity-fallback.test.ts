import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { isInsufficientCapacityError } from "../../operator/core/errors.ts";
import { nodeClaim, testClock } from "./aws-fixtures.ts";
import { useMotoSuite } from "./aws-moto-suite.ts";

const req = (types: string[], zones: string[]): { key: string; operator: string; values: string[] }[] => [
  { key: "node.kubernetes.io/instance-type", operator: "In", values: types },
  { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
  { key: "topology.kubernetes.io/zone", operator: "In", values: zones },
];

function overridesOf(request: Readonly<Record<string, string>> | undefined): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(request ?? {})) {
    const m = /^LaunchTemplateConfigs\.\d+\.Overrides\.\d+\.InstanceType$/.exec(k);
    if (m !== null) out.push(`${v}/${request?.[k.replace("InstanceType", "AvailabilityZone")] ?? ""}`);
  }
  return out;
}

void describe("insufficient capacity through the fault proxy", () => {
  const moto = useMotoSuite({
    faultProxy: true,
    al2023: true,
    zones: ["us-east-1a", "us-east-1b"],
    defaultNodeClass: {},
  });

  void it("should fail with InsufficientCapacityError, mark the offering and fall back to the next offering", async () => {
    const clock = testClock();
    const graph = moto.providers(moto.viaProxy(), clock);
    moto.proxy.injectFleetFaults([{ instanceType: "m5.large", zone: "us-east-1a" }]);

    const error = await graph.cloudProvider.create(nodeClaim("narrow", req(["m5.large"], ["us-east-1a"]))).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(isInsufficientCapacityError(error), `expected InsufficientCapacityError, got ${String(error)}`);
    assert.deepEqual(error.offerings, ["on-demand:m5.large:us-east-1a"]);
    assert.ok(graph.unavailable.isUnavailable("on-demand", "m5.large", "us-east-1a"));
    assert.deepEqual(await graph.cloudProvider.list(), [], "nothing was launched");

    const types = await graph.cloudProvider.getInstanceTypes("default");
    const m5 = types.find((t) => t.name === "m5.large");
    assert.equal(
      m5?.offerings.find((o) => o.zone === "us-east-1a" && o.capacityType === "on-demand")?.available,
      false,
    );
    assert.equal(m5?.offerings.find((o) => o.zone === "us-east-1b" && o.capacityType === "on-demand")?.available, true);

    // The re-simulated claim is wider; the ICE-cached offering is no longer requested at all.
    const launched = await graph.cloudProvider.create(
      nodeClaim("wider", req(["m5.large", "m5.xlarge"], ["us-east-1a", "us-east-1b"])),
    );
    assert.equal(`${launched.instanceType}/${launched.zone}`, "m5.large/us-east-1b");
    assert.ok(!overridesOf(moto.proxy.createFleetRequests[1]).includes("m5.large/us-east-1a"));
  });

  void it("should launch another override of the same fleet when only some pools fail, and still mark the failed ones", async () => {
    const graph = moto.providers(moto.viaProxy());
    moto.proxy.injectFleetFaults([
      { instanceType: "m5.large", zone: "us-east-1a" },
      { instanceType: "m5.large", zone: "us-east-1b", code: "InsufficientInstanceCapacity" },
    ]);
    const launched = await graph.cloudProvider.create(
      nodeClaim("partial", req(["m5.large", "m5.xlarge"], ["us-east-1a", "us-east-1b"])),
    );
    assert.equal(launched.instanceType, "m5.xlarge");
    assert.deepEqual([...graph.unavailable.keys()].sort(), [
      "on-demand:m5.large:us-east-1a",
      "on-demand:m5.large:us-east-1b",
    ]);
  });

  void it("should forget the unavailable offering after three minutes", async () => {
    const clock = testClock();
    const graph = moto.providers(moto.viaProxy(), clock);
    moto.proxy.injectFleetFaults([{ instanceType: "m5.large", zone: "us-east-1a" }]);
    await assert.rejects(graph.cloudProvider.create(nodeClaim("ice", req(["m5.large"], ["us-east-1a"]))), {
      name: "InsufficientCapacityError",
    });
    await assert.rejects(graph.cloudProvider.create(nodeClaim("ice", req(["m5.large"], ["us-east-1a"]))), {
      name: "InsufficientCapacityError",
      message: /unavailable during launch/,
    });
    assert.equal(moto.proxy.createFleetRequests.length, 1, "the cached offering is not even tried again");
    clock.advance(3 * 60_000);
    moto.proxy.injectFleetFaults([]);
    const launched = await graph.cloudProvider.create(nodeClaim("ice", req(["m5.large"], ["us-east-1a"])));
    assert.equal(launched.zone, "us-east-1a");
  });
});

/**
 * Capacity reservations end to end on the AWS path: the real SDK calls (DescribeCapacityReservations,
 * CreateLaunchTemplate, CreateFleet, DescribeInstances) against moto through the fault proxy. moto 5.2.3
 * implements no capacity reservations, so the reservation side of EC2 — data moto cannot serve — is played
 * by test/harness/reservation-bridge.ts on the proxy; instances, subnets, images and templates are moto's.
 */
import { beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { EC2NodeClassLike } from "../../operator/core/launch-template/node-class.ts";
import { isInsufficientCapacityError } from "../../operator/core/errors.ts";
import { driftOf } from "../../operator/core/disruption/drift.ts";
import { computeNodeClassStatus } from "../../operator/controllers/nodeclass/status.ts";
import type { LaunchedInstance } from "../../operator/ports/cloud-provider.ts";
import { ReservationBridge } from "../harness/reservation-bridge.ts";
import { eventually } from "../harness/wait.ts";
import { nodeClaim, nodeClass, testClock } from "./aws-fixtures.ts";
import { useMotoSuite } from "./aws-moto-suite.ts";

const ANY_CAPACITY = [
  { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.large"] },
  { key: "karpenter.sh/capacity-type", operator: "In", values: ["reserved", "on-demand"] },
];

void describe("capacity reservations on the AWS path", () => {
  const moto = useMotoSuite({
    faultProxy: true,
    al2023: true,
    zones: ["us-east-1a", "us-east-1b"],
    defaultNodeClass: { capacityReservationSelectorTerms: [{ tags: { team: "ml" } }] },
  });
  let bridge: ReservationBridge;

  beforeEach(() => {
    bridge = new ReservationBridge();
    moto.proxy.bridge = bridge;
    bridge.reservations.push(
      {
        id: "cr-0aaa1111",
        instanceType: "m5.large",
        availabilityZone: "us-east-1a",
        totalInstanceCount: 1,
        availableInstanceCount: 1,
        tags: { team: "ml" },
      },
      {
        id: "cr-0bbb2222",
        instanceType: "c5.large",
        availabilityZone: "us-east-1b",
        totalInstanceCount: 4,
        availableInstanceCount: 4,
        tags: { team: "web" },
        instanceMatchCriteria: "open",
      },
    );
  });

  void it("resolves the selector terms to Karpenter's status entries through DescribeCapacityReservations", async () => {
    const graph = moto.providers(moto.viaProxy());
    const byTerms = [
      { terms: [{ tags: { team: "ml" } }], want: ["cr-0aaa1111"] },
      { terms: [{ id: "cr-0bbb2222" }], want: ["cr-0bbb2222"] },
      { terms: [{ instanceMatchCriteria: "open" as const }], want: ["cr-0bbb2222"] },
      { terms: [{ tags: { team: "*" } }], want: ["cr-0aaa1111", "cr-0bbb2222"] },
      { terms: [{ id: "cr-0dead0000" }], want: [] },
    ];
    for (const c of byTerms) {
      const facts = await graph.resolver.resolve(nodeClass("default", { capacityReservationSelectorTerms: c.terms }), {
        fresh: true,
      });
      assert.deepEqual(facts.errors, {}, JSON.stringify(c.terms));
      assert.deepEqual(
        (facts.capacityReservations ?? []).map((r) => r.id),
        c.want,
        JSON.stringify(c.terms),
      );
    }
    const facts = await graph.resolver.resolve(moto.nodeClasses.get("default")!, { fresh: true });
    assert.deepEqual(facts.capacityReservations, [
      {
        id: "cr-0aaa1111",
        availabilityZone: "us-east-1a",
        instanceType: "m5.large",
        ownerID: "012345678901",
        instanceMatchCriteria: "targeted",
        reservationType: "default",
        state: "active",
      },
    ]);
  });

  void it("launches into the selected reservation and labels the instance reserved with the reservation; the next launch falls back to on-demand", async () => {
    const graph = moto.providers(moto.viaProxy());
    const types = await graph.cloudProvider.getInstanceTypes("default");
    const reserved = types.find((t) => t.name === "m5.large")?.offerings.find((o) => o.capacityType === "reserved");
    assert.equal(reserved?.zone, "us-east-1a");
    assert.equal(reserved?.available, true);
    assert.ok(
      (reserved?.pricePerHour ?? 1) < 1e-6,
      "a reserved offering is priced at the on-demand price / 10,000,000",
    );

    const launched = await graph.cloudProvider.create(nodeClaim("first", ANY_CAPACITY));
    assert.equal(launched.capacityType, "reserved");
    assert.equal(launched.zone, "us-east-1a");
    assert.equal(launched.labels["karpenter.sh/capacity-type"], "reserved");
    assert.equal(launched.labels["karpenter.k8s.aws/capacity-reservation-id"], "cr-0aaa1111");
    assert.equal(launched.labels["karpenter.k8s.aws/capacity-reservation-type"], "default");
    assert.equal(launched.labels["karpenter.k8s.aws/capacity-reservation-interruptible"], "false");
    const fleet = moto.proxy.createFleetRequests[0] ?? {};
    assert.equal(fleet["TargetCapacitySpecification.DefaultTargetCapacityType"], "on-demand");
    assert.equal(fleet["LaunchTemplateConfigs.1.Overrides.1.AvailabilityZone"], "us-east-1a");
    assert.equal(
      bridge.instances.get(launched.instanceID),
      "cr-0aaa1111",
      "the instance was launched from the template that targets the reservation",
    );

    // The reservation had room for one: kerf counts its own launch and does not try it again.
    const second = await graph.cloudProvider.create(nodeClaim("second", ANY_CAPACITY));
    assert.equal(second.capacityType, "on-demand");
    assert.equal(second.labels["karpenter.k8s.aws/capacity-reservation-id"], undefined);
    const secondFleet = moto.proxy.createFleetRequests[1];
    assert.equal(secondFleet?.["TargetCapacitySpecification.DefaultTargetCapacityType"], "on-demand");
    assert.equal(bridge.instances.get(second.instanceID), undefined);
  });

  void it("marks a reservation a launch finds full and falls back to on-demand", async () => {
    const graph = moto.providers(moto.viaProxy());
    // EC2 saw room when described, but another account's launch took it: CreateFleet says so.
    moto.proxy.injectFleetFaults([
      { instanceType: "m5.large", zone: "us-east-1a", code: "ReservationCapacityExceeded" },
    ]);
    const error = await graph.cloudProvider.create(nodeClaim("full", ANY_CAPACITY)).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(isInsufficientCapacityError(error), `expected InsufficientCapacityError, got ${String(error)}`);
    assert.deepEqual(error.offerings, ["reserved:m5.large:us-east-1a:cr-0aaa1111"]);
    const types = await graph.cloudProvider.getInstanceTypes("default");
    assert.equal(
      types.find((t) => t.name === "m5.large")?.offerings.find((o) => o.capacityType === "reserved")?.available,
      false,
    );

    moto.proxy.injectFleetFaults([]);
    const launched = await graph.cloudProvider.create(nodeClaim("full", ANY_CAPACITY));
    assert.equal(launched.capacityType, "on-demand");
    assert.equal(launched.labels["karpenter.k8s.aws/capacity-reservation-id"], undefined);
  });

  // Two launches that may both take the reservation's one slot: one does, the other is planned on-demand at once,
  // with no CreateFleet into the full reservation (which EC2 refuses: ReservationCapacityExceeded, then a retry).
  // EC2's answers are held until both fleets reached it, so the second is planned while the first is in flight.
  for (const [when, startedTogether] of [
    ["started together (one batch)", true],
    ["started one after the other, the second while the first is in flight (the next batch)", false],
  ] as const) {
    void it(`gives a reservation's last slot to one of two launches ${when}; the other goes on-demand`, async () => {
      const graph = moto.providers(moto.viaProxy());
      await graph.cloudProvider.getInstanceTypes("default");
      const open = moto.proxy.gateCreateFleetAnswers();
      try {
        const settled: string[] = [];
        const launch = (name: string): Promise<LaunchedInstance> => {
          const created = graph.cloudProvider.create(nodeClaim(name, ANY_CAPACITY));
          void created.then(
            () => settled.push(name),
            () => settled.push(name),
          );
          return created;
        };
        const first = launch("first");
        if (!startedTogether)
          await eventually(
            "the first CreateFleet to reach EC2",
            () => moto.proxy.createFleetRequests.length === 1,
            30_000,
            20,
          );
        const second = launch("second");
        await eventually(
          "both CreateFleets to reach EC2, or a launch to end without one",
          () => moto.proxy.createFleetRequests.length === 2 || settled.length > 0,
          30_000,
          20,
        );
        open();
        const launched = await Promise.all([first, second]);
        assert.deepEqual(launched.map((l) => l.capacityType).sort(), ["on-demand", "reserved"]);
        assert.equal(moto.proxy.createFleetRequests.length, 2, "no CreateFleet into the full reservation");
        assert.deepEqual([...bridge.instances.values()], ["cr-0aaa1111"], "one instance in the reservation");
      } finally {
        open();
      }
    });
  }

  void it("reports CapacityReservationDrift once the node class no longer selects the instance's reservation", async () => {
    const clock = testClock();
    const graph = moto.providers(moto.viaProxy(), clock);
    const launched = await graph.cloudProvider.create(nodeClaim("drifting", ANY_CAPACITY));
    const instance = await graph.cloudProvider.get(launched.providerID);
    assert.equal(instance.capacityReservation?.id, "cr-0aaa1111");
    const network = {
      securityGroupIDs: instance.securityGroupIDs ?? [],
      subnetID: instance.subnetID ?? "",
      capacityReservationID: instance.capacityReservation?.id,
    };
    const profile = { ready: true, name: "profile" } as const;
    const claim = {
      metadata: { name: "drifting", labels: launched.labels },
      spec: { requirements: [] },
      status: { providerID: launched.providerID, imageID: launched.imageID },
    };
    const pool = { spec: { template: { spec: { requirements: [] } } } };

    const statusOf = async (cls: EC2NodeClassLike) =>
      computeNodeClassStatus(cls, await graph.resolver.resolve(cls, { fresh: true }), profile, {
        now: clock.now(),
        reservedCapacity: true,
      });
    const selecting = moto.nodeClasses.get("default")!;
    const before = await statusOf(selecting);
    assert.equal(
      driftOf({ nodeClaim: claim, nodePool: pool, nodeClass: { spec: {}, status: { ...before } }, instance: network })
        ?.reason,
      undefined,
    );

    const deselecting = nodeClass("default", { capacityReservationSelectorTerms: [{ tags: { team: "web" } }] });
    const after = await statusOf(deselecting);
    assert.deepEqual(
      after.capacityReservations?.map((r) => r.id),
      ["cr-0bbb2222"],
    );
    assert.equal(
      driftOf({ nodeClaim: claim, nodePool: pool, nodeClass: { spec: {}, status: { ...after } }, instance: network })
        ?.reason,
      "CapacityReservationDrift",
    );
  });
});

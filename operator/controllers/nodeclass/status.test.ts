import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { EC2NodeClassLike } from "../../core/launch-template/node-class.ts";
import type { InstanceProfileOutcome } from "../../ports/node-class-cloud.ts";
import type { NodeClassFacts } from "../../ports/node-class-resolver.ts";
import { computeNodeClassStatus, isNodeClassReady } from "./status.ts";

const now = new Date(Date.UTC(2000, 0, 1));
const later = new Date(Date.UTC(2000, 0, 1, 1));

const nodeClass: EC2NodeClassLike = {
  metadata: { name: "default", generation: 3 },
  spec: {
    amiSelectorTerms: [{ alias: "al2023@latest" }],
    subnetSelectorTerms: [{ id: "subnet-1" }],
    securityGroupSelectorTerms: [{ id: "sg-1" }],
    role: "NodeRole",
  },
};

const facts: NodeClassFacts = {
  subnets: [{ id: "subnet-1", zone: "us-east-1a", zoneId: "use1-az6", availableIpCount: 10 }],
  securityGroups: [{ id: "sg-1", name: "default" }],
  amis: [
    {
      id: "ami-1",
      name: "al2023",
      deprecated: false,
      requirements: [{ key: "kubernetes.io/arch", operator: "In", values: ["amd64"] }],
    },
  ],
  errors: {},
};

const profile: InstanceProfileOutcome = { ready: true, name: "demo_4067990795380418201" };

function condition(
  status: ReturnType<typeof computeNodeClassStatus>,
  type: string,
): { status: string; reason: string; message: string; lastTransitionTime: string } | undefined {
  return status.conditions?.find((c) => c.type === type);
}

void describe("EC2NodeClass status", () => {
  void it("should list the resolved subnets, security groups and AMIs and be Ready", () => {
    const status = computeNodeClassStatus(nodeClass, facts, profile, { now });
    assert.deepEqual(status.subnets, [{ id: "subnet-1", zone: "us-east-1a", zoneID: "use1-az6" }]);
    assert.deepEqual(status.securityGroups, [{ id: "sg-1", name: "default" }]);
    assert.deepEqual(status.amis, [
      { id: "ami-1", name: "al2023", requirements: [{ key: "kubernetes.io/arch", operator: "In", values: ["amd64"] }] },
    ]);
    assert.deepEqual(
      status.conditions?.map((c) => [c.type, c.status]),
      [
        ["AMIsReady", "True"],
        ["SubnetsReady", "True"],
        ["SecurityGroupsReady", "True"],
        ["InstanceProfileReady", "True"],
        ["ValidationSucceeded", "True"],
        ["Ready", "True"],
      ],
    );
    assert.ok(
      status.conditions?.every(
        (c) => c.observedGeneration === 3 && c.lastTransitionTime === "2000-01-01T00:00:00Z" && c.reason !== "",
      ),
    );
    assert.ok(isNodeClassReady(status));
  });

  const failures = [
    { part: "subnets", condition: "SubnetsReady", reason: "SubnetsNotFound", facts: { ...facts, subnets: [] } },
    {
      part: "security groups",
      condition: "SecurityGroupsReady",
      reason: "SecurityGroupsNotFound",
      facts: { ...facts, securityGroups: [] },
    },
    {
      part: "AMIs",
      condition: "AMIsReady",
      reason: "AMINotFound",
      facts: { ...facts, amis: [], errors: { amis: "reading SSM parameter: AccessDenied" } },
    },
  ];
  for (const f of failures) {
    void it(`should not be Ready when no ${f.part} resolve`, () => {
      const status = computeNodeClassStatus(nodeClass, f.facts, profile, { now });
      assert.equal(condition(status, f.condition)?.status, "False");
      assert.equal(condition(status, f.condition)?.reason, f.reason);
      assert.equal(condition(status, "Ready")?.status, "False");
      assert.equal(condition(status, "Ready")?.reason, "UnhealthyDependents");
      assert.match(condition(status, "Ready")?.message ?? "", new RegExp(`${f.condition}=False`));
      assert.ok(!isNodeClassReady(status));
    });
  }

  void it("should report the instance profile instances launch with and be Ready when it is usable", () => {
    const status = computeNodeClassStatus(nodeClass, facts, profile, { now });
    assert.equal(status.instanceProfile, "demo_4067990795380418201");
    assert.equal(condition(status, "InstanceProfileReady")?.status, "True");
  });

  void it("should not be Ready while the instance profile is not usable, keeping its name and the IAM error", () => {
    const failed: InstanceProfileOutcome = {
      ready: false,
      name: "demo_1",
      reason: "InstanceProfileCreationFailed",
      message: "adding role R to instance profile demo_1: NoSuchEntity: Role R not found",
    };
    const status = computeNodeClassStatus(nodeClass, facts, failed, { now });
    assert.equal(status.instanceProfile, "demo_1");
    assert.deepEqual(condition(status, "InstanceProfileReady"), {
      type: "InstanceProfileReady",
      status: "False",
      reason: "InstanceProfileCreationFailed",
      message: failed.message,
      lastTransitionTime: "2000-01-01T00:00:00Z",
      observedGeneration: 3,
    });
    assert.equal(condition(status, "Ready")?.message, "InstanceProfileReady=False");
    assert.ok(!isNodeClassReady(status));
  });

  void it("should fail ValidationSucceeded, and so Ready, on user data the AMI family cannot merge", () => {
    const spec = {
      ...nodeClass.spec,
      amiSelectorTerms: [{ alias: "bottlerocket@latest" }],
      userData: "[settings.ntp]\ntime-servers = [\n",
    };
    const status = computeNodeClassStatus({ ...nodeClass, spec }, facts, profile, { now });
    const validation = condition(status, "ValidationSucceeded");
    assert.equal(validation?.status, "False");
    assert.equal(validation?.reason, "InvalidUserData");
    assert.match(validation?.message ?? "", /^spec\.userData \(Bottlerocket\): .*line 2: unclosed bracket$/);
    assert.equal(condition(status, "Ready")?.message, "ValidationSucceeded=False");
  });

  void it("should carry a lookup error into the condition message", () => {
    const status = computeNodeClassStatus(nodeClass, failures[2]?.facts ?? facts, profile, { now });
    assert.equal(condition(status, "AMIsReady")?.message, "reading SSM parameter: AccessDenied");
  });

  void it("should keep lastTransitionTime while a condition's status holds and move it when it flips", () => {
    const first = computeNodeClassStatus(nodeClass, facts, profile, { now });
    const same = computeNodeClassStatus({ ...nodeClass, status: first }, facts, profile, { now: later });
    assert.equal(condition(same, "Ready")?.lastTransitionTime, "2000-01-01T00:00:00Z");
    const flipped = computeNodeClassStatus({ ...nodeClass, status: first }, { ...facts, subnets: [] }, profile, {
      now: later,
    });
    assert.equal(condition(flipped, "Ready")?.lastTransitionTime, "2000-01-01T01:00:00Z");
    assert.equal(condition(flipped, "AMIsReady")?.lastTransitionTime, "2000-01-01T00:00:00Z");
  });
});

void describe("EC2NodeClass status with the ReservedCapacity gate", () => {
  const cr = {
    id: "cr-1",
    availabilityZone: "us-east-1a",
    instanceType: "m5.large",
    ownerID: "012345678901",
    instanceMatchCriteria: "targeted" as const,
    reservationType: "default" as const,
    state: "active" as const,
  };
  const cases = [
    {
      name: "lists the selected reservations and reports CapacityReservationsReady",
      facts: { ...facts, capacityReservations: [cr] },
      previous: undefined,
      want: [cr],
      ready: "True",
    },
    {
      name: "reports CapacityReservationsReady and no list when the terms select nothing (as Karpenter)",
      facts,
      previous: undefined,
      want: undefined,
      ready: "True",
    },
    {
      name: "keeps the reservations last seen and is not Ready when the lookup fails",
      facts: { ...facts, errors: { capacityReservations: "describing capacity reservations: UnauthorizedOperation" } },
      previous: [cr],
      want: [cr],
      ready: "False",
    },
  ];
  for (const c of cases) {
    void it(`${c.name}`, () => {
      const status = computeNodeClassStatus(
        { ...nodeClass, status: { capacityReservations: c.previous } },
        c.facts,
        profile,
        { now, reservedCapacity: true },
      );
      assert.deepEqual(status.capacityReservations, c.want);
      assert.equal(condition(status, "CapacityReservationsReady")?.status, c.ready);
      assert.equal(condition(status, "Ready")?.status, c.ready);
    });
  }

  void it("reports neither the list nor the condition with the gate off", () => {
    const status = computeNodeClassStatus(nodeClass, { ...facts, capacityReservations: [cr] }, profile, {
      now,
      reservedCapacity: false,
    });
    assert.equal(status.capacityReservations, undefined);
    assert.equal(condition(status, "CapacityReservationsReady"), undefined);
  });
});

void describe("EC2NodeClass status on Karpenter v1.15 fields", () => {
  const withSpec = (extra: Record<string, unknown>): EC2NodeClassLike => ({
    ...nodeClass,
    spec: { ...nodeClass.spec, ...extra } as EC2NodeClassLike["spec"],
  });

  void it("should be ValidationSucceeded=False and not Ready when a kubelet field kerf writes is malformed", () => {
    const status = computeNodeClassStatus(withSpec({ kubelet: { maxPods: "many" } }), facts, profile, { now });
    const validation = condition(status, "ValidationSucceeded");
    assert.deepEqual([validation?.status, validation?.reason], ["False", "InvalidKubeletConfiguration"]);
    assert.match(validation?.message ?? "", /^spec\.kubelet\.maxPods: /);
    assert.equal(isNodeClassReady(status), false);
  });

  void it("should name the fields kerf ignores in IgnoredFields, without making the class not Ready", () => {
    // An AL2 class writes only the typed kubelet fields (AL2023 would pass shutdownGracePeriod through).
    const al2 = {
      amiSelectorTerms: [{ alias: "al2@latest" }],
      ipPrefixCount: 2,
      kubelet: { maxPods: 20, shutdownGracePeriod: "1m" },
    };
    const status = computeNodeClassStatus(withSpec(al2), facts, profile, { now });
    const ignored = condition(status, "IgnoredFields");
    assert.deepEqual([ignored?.status, ignored?.reason], ["True", "NotImplemented"]);
    assert.match(ignored?.message ?? "", /spec\.ipPrefixCount .*spec\.kubelet\.shutdownGracePeriod/);
    assert.ok(isNodeClassReady(status));
    assert.equal(
      condition(computeNodeClassStatus(nodeClass, facts, profile, { now }), "IgnoredFields"),
      undefined,
      "absent when nothing is ignored",
    );
  });
});

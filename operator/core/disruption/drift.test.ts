import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { NodeClaim } from "../lifecycle/objects.ts";
import { hashAnnotations } from "../nodepool/hash.ts";
import { driftOf, needsNodeClassStamp } from "./drift.ts";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { variantRequirements } from "../launch-template/amis.ts";
import { pool, TYPES } from "./fixtures.ts";
import { hashedNodeClass, nodeClassHash, nodeClassHashAnnotations } from "./nodeclass-hash.ts";

const nodeClass = (spec: Record<string, unknown> = {}, status: Record<string, unknown> = {}) => ({
  spec: {
    role: "KarpenterNodeRole",
    amiSelectorTerms: [{ alias: "al2023@latest" }],
    subnetSelectorTerms: [{ tags: { a: "b" } }],
    securityGroupSelectorTerms: [{ tags: { a: "b" } }],
    ...spec,
  },
  status: {
    amis: [{ id: "ami-1" }, { id: "ami-2" }],
    securityGroups: [{ id: "sg-1" }],
    subnets: [{ id: "subnet-1" }, { id: "subnet-2" }],
    ...status,
  },
});

function claim(
  o: {
    pool?: ReturnType<typeof pool>;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    imageID?: string;
    cls?: ReturnType<typeof nodeClass>;
  } = {},
): NodeClaim {
  const p = o.pool ?? pool("default");
  return {
    metadata: {
      name: "c",
      labels: { "karpenter.k8s.aws/instance-family": "m5", "karpenter.sh/capacity-type": "on-demand", ...o.labels },
      annotations: { ...hashAnnotations(p), ...nodeClassHashAnnotations(o.cls ?? nodeClass()), ...o.annotations },
    },
    status: { imageID: o.imageID ?? "ami-1" },
  };
}

/** A node class whose status lists these capacity reservations (as the nodeclass controller resolved them). */
const withReservations = (idList: string[]) =>
  nodeClass(
    {},
    { capacityReservations: idList.map((id) => ({ id, instanceType: "m5.large", availabilityZone: "us-east-1a" })) },
  );

void describe("drift", () => {
  const base = pool("default");
  const cases: {
    name: string;
    claim: NodeClaim;
    pool?: ReturnType<typeof pool>;
    cls?: ReturnType<typeof nodeClass>;
    instance?: { securityGroupIDs: string[]; subnetID: string; capacityReservationID?: string };
    want: string | undefined;
  }[] = [
    { name: "nothing changed", claim: claim(), want: undefined },
    {
      name: "a NodePool template label changed",
      claim: claim(),
      pool: pool("default", { labels: { team: "b" } }),
      want: "NodePoolDrifted",
    },
    {
      name: "only the disruption settings changed (not hashed)",
      claim: claim(),
      pool: pool("default", { budgets: [{ nodes: "0" }] }),
      want: undefined,
    },
    {
      name: "a claim stamped with another hash version (Karpenter's v3) is never drifted by hash",
      claim: claim({
        annotations: { "karpenter.sh/nodepool-hash": "123", "karpenter.sh/nodepool-hash-version": "v3" },
      }),
      pool: pool("default", { labels: { team: "b" } }),
      want: undefined,
    },
    {
      name: "requirements no longer admit the claim's family",
      claim: claim(),
      pool: pool("default", {
        requirements: [{ key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["c5"] }],
      }),
      want: "RequirementsDrifted",
    },
    {
      name: "the EC2NodeClass role changed",
      claim: claim(),
      cls: nodeClass({ role: "Other" }),
      want: "NodeClassDrift",
    },
    {
      name: "only the selector terms changed (checked against what they resolve to)",
      claim: claim(),
      cls: nodeClass({ subnetSelectorTerms: [{ id: "subnet-9" }] }),
      want: undefined,
    },
    { name: "the image is no longer resolved", claim: claim({ imageID: "ami-old" }), want: "AMIDrift" },
    {
      name: "the instance has another security group",
      claim: claim(),
      instance: { securityGroupIDs: ["sg-9"], subnetID: "subnet-1" },
      want: "SecurityGroupDrift",
    },
    {
      name: "the instance is in a subnet no longer selected",
      claim: claim(),
      instance: { securityGroupIDs: ["sg-1"], subnetID: "subnet-9" },
      want: "SubnetDrift",
    },
    {
      name: "the instance matches",
      claim: claim(),
      instance: { securityGroupIDs: ["sg-1", "sg-1"], subnetID: "subnet-2" },
      want: undefined,
    },
    {
      name: "the instance's capacity reservation is no longer selected",
      claim: claim(),
      cls: withReservations(["cr-2"]),
      instance: { securityGroupIDs: ["sg-1"], subnetID: "subnet-1", capacityReservationID: "cr-1" },
      want: "CapacityReservationDrift",
    },
    {
      name: "the node class selects no reservation any more",
      claim: claim(),
      cls: withReservations([]),
      instance: { securityGroupIDs: ["sg-1"], subnetID: "subnet-1", capacityReservationID: "cr-1" },
      want: "CapacityReservationDrift",
    },
    {
      name: "the instance's capacity reservation is still selected",
      claim: claim(),
      cls: withReservations(["cr-1", "cr-2"]),
      instance: { securityGroupIDs: ["sg-1"], subnetID: "subnet-1", capacityReservationID: "cr-1" },
      want: undefined,
    },
    {
      name: "an on-demand instance (no reservation, e.g. one that fell back) under a class with reservations",
      claim: claim(),
      cls: withReservations(["cr-1"]),
      instance: { securityGroupIDs: ["sg-1"], subnetID: "subnet-1" },
      want: undefined,
    },
  ];
  for (const c of cases) {
    void it(`reports ${c.want ?? "no drift"} when ${c.name}`, () => {
      assert.equal(
        driftOf({ nodeClaim: c.claim, nodePool: c.pool ?? base, nodeClass: c.cls ?? nodeClass(), instance: c.instance })
          ?.reason,
        c.want,
      );
    });
  }

  void it("judges requirements as Karpenter's table (nodeclaim/disruption/drift_test.go, v1.15), new keys too", () => {
    const OD = { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] };
    type Req = Record<string, unknown>;
    const req = (key: string, operator: string, values: string[] = []): Req => ({ key, operator, values });
    const os = (operator: string, values: string[] = []): Req => req("kubernetes.io/os", operator, values);
    const linux = { "kubernetes.io/os": "linux" };
    const ARCH = "kubernetes.io/arch";
    type Case = [why: string, requirements: Req[], labels: Record<string, string>, drifted: boolean];
    const cases: Case[] = [
      ["the node requirement is updated", [{ ...OD, values: ["spot"] }], linux, true],
      ["a requirement is added (no arch label)", [OD, os("In", ["linux"]), req(ARCH, "In", ["amd64"])], linux, true],
      ["a node requirement is reduced", [OD, os("In", ["windows"])], linux, true],
      ["a node requirement is expanded", [OD, os("In", ["linux", "windows"])], linux, false],
      ["a node requirement set to Exists", [OD, os("Exists")], linux, false],
      ["a node requirement set to DoesNotExist", [OD, os("DoesNotExist")], linux, true],
      ["Gt above the claim's value", [OD, req("test-label", "Gt", ["10"])], { "test-label": "5" }, true],
      ["Lt below the claim's value", [OD, req("test-label", "Lt", ["1"])], { "test-label": "2" }, true],
      // The review's probe p8: requirements on custom keys the claim lacks drift it unless NotIn/DoesNotExist.
      ["a custom In on a missing key", [OD, req("example.com/team", "In", ["a"])], {}, true],
      ["a custom Exists on a missing key", [OD, req("example.com/x", "Exists")], {}, true],
      ["a custom NotIn on a missing key", [OD, req("example.com/x", "NotIn", ["b"])], {}, false],
      ["a custom DoesNotExist on a missing key", [OD, req("example.com/x", "DoesNotExist")], {}, false],
    ];
    for (const [why, requirements, labels, drifted] of cases) {
      const p = pool("default", { requirements });
      const reason = driftOf({ nodeClaim: claim({ pool: p, labels }), nodePool: p, nodeClass: nodeClass() })?.reason;
      assert.equal(reason, drifted ? "RequirementsDrifted" : undefined, why);
    }
  });

  void it("asks for a node class stamp when the claim carries none or another version", () => {
    assert.equal(needsNodeClassStamp(claim()), false);
    assert.equal(
      needsNodeClassStamp({ metadata: { annotations: { "karpenter.k8s.aws/ec2nodeclass-hash-version": "v5" } } }),
      true,
    );
    assert.equal(needsNodeClassStamp({}), true);
  });
});

void describe("the EC2NodeClass hash", () => {
  void it("ignores selector terms, key order and empty values but not the resolved AMI family", () => {
    const a = nodeClass();
    assert.equal(
      nodeClassHash(a),
      nodeClassHash(nodeClass({ subnetSelectorTerms: [{ id: "x" }], tags: {}, userData: "" })),
    );
    assert.equal(
      nodeClassHash(nodeClass({ tags: { a: "1", b: "2" } })),
      nodeClassHash(nodeClass({ tags: { b: "2", a: "1" } })),
    );
    assert.notEqual(
      nodeClassHash(a),
      nodeClassHash(nodeClass({ amiSelectorTerms: [{ alias: "bottlerocket@latest" }] })),
    );
    assert.equal(
      nodeClassHash(nodeClass({ amiFamily: "AL2023", amiSelectorTerms: [{ id: "ami-1" }] })),
      nodeClassHash(a),
      "amiFamily AL2023 and an al2023 alias agree",
    );
    assert.deepEqual(Object.keys(hashedNodeClass(a) as object).sort(), ["resolvedAMIFamily", "role"]);
  });
});

void describe("drift coverage as Karpenter's (review S15)", () => {
  const now = Date.parse("2026-11-25T12:00:00Z");
  const ago = (ms: number): string => new Date(now - ms).toISOString();
  /** A NodeClaim of `type` in us-east-1a, created `age` ms ago, on `image`. */
  const running = (
    type: string,
    o: { age?: number; capacity?: string; zone?: string; image?: string; stamp?: string } = {},
  ): NodeClaim => {
    const c = claim({
      imageID: o.image ?? "ami-1",
      labels: {
        "node.kubernetes.io/instance-type": type,
        "topology.kubernetes.io/zone": o.zone ?? "us-east-1a",
        "karpenter.sh/capacity-type": o.capacity ?? "on-demand",
      },
      ...(o.stamp === undefined ? {} : { annotations: nodeClassHashAnnotations(nodeClass(), o.stamp) }),
    });
    return { ...c, metadata: { ...c.metadata, creationTimestamp: ago(o.age ?? 2 * 3_600_000) } };
  };
  const onlyOnDemand = TYPES.map((t) =>
    t.name !== "m5.large" ? t : { ...t, offerings: t.offerings.filter((o) => o.capacityType === "on-demand") },
  );
  const unavailable = TYPES.map((t) =>
    t.name !== "m5.large" ? t : { ...t, offerings: t.offerings.map((o) => ({ ...o, available: false })) },
  );
  const cases: { name: string; claim: NodeClaim; types: readonly InstanceType[]; want: string | undefined }[] = [
    {
      name: "its instance type is gone from the pool's types",
      claim: running("m5.large"),
      types: TYPES.filter((t) => t.name !== "m5.large"),
      want: "InstanceTypeNotFound",
    },
    {
      name: "its type has no offering of its capacity type left",
      claim: running("m5.large", { capacity: "spot" }),
      types: onlyOnDemand,
      want: "InstanceTypeNotFound",
    },
    {
      name: "its type has no offering in its zone",
      claim: running("m5.large", { zone: "us-east-1c" }),
      types: TYPES,
      want: "InstanceTypeNotFound",
    },
    {
      name: "its offering is only unavailable for now",
      claim: running("m5.large"),
      types: unavailable,
      want: undefined,
    },
    {
      name: "a reserved NodeClaim's type is only sold on demand (it may have been demoted)",
      claim: running("m5.large", { capacity: "reserved" }),
      types: onlyOnDemand,
      want: undefined,
    },
    {
      name: "the NodeClaim is not an hour old yet",
      claim: running("m5.large", { age: 30 * 60_000 }),
      types: TYPES.filter((t) => t.name !== "m5.large"),
      want: undefined,
    },
  ];
  for (const c of cases) {
    void it(`reports ${c.want ?? "no drift"} when ${c.name}`, () => {
      const anyCapacity = pool("default", { requirements: [] });
      assert.equal(driftOf({ nodeClaim: c.claim, nodePool: anyCapacity, instanceTypes: c.types, now })?.reason, c.want);
    });
  }

  // aws drift.go isAMIDrifted: the image must be the one MapToInstanceTypes gives the node's instance type.
  const variants = nodeClass(
    {},
    {
      amis: [
        { id: "ami-std", requirements: variantRequirements("amd64", "standard") },
        { id: "ami-gpu", requirements: variantRequirements("amd64", "nvidia") },
      ],
    },
  );
  const amiCases = [
    {
      name: "a GPU node runs the standard image of a list that also has the NVIDIA one",
      type: "g4dn.xlarge",
      image: "ami-std",
      want: "AMIDrift",
    },
    { name: "a GPU node runs the NVIDIA image", type: "g4dn.xlarge", image: "ami-gpu", want: undefined },
    { name: "an m5 node runs the standard image", type: "m5.large", image: "ami-std", want: undefined },
    { name: "an m5 node runs the NVIDIA image", type: "m5.large", image: "ami-gpu", want: "AMIDrift" },
  ];
  for (const c of amiCases) {
    void it(`reports ${c.want ?? "no drift"} when ${c.name}`, () => {
      const nodeClaim = running(c.type, { image: c.image });
      assert.equal(
        driftOf({ nodeClaim, nodePool: pool("default"), nodeClass: variants, instanceTypes: TYPES, now })?.reason,
        c.want,
      );
    });
  }

  // aws ec2nodeclass.go Hash: the cluster CA bundle is hashed with the spec.
  void it("reports NodeClassDrift when the cluster CA bundle changed since launch, and re-stamps kerf-1 claims", () => {
    const stamped = running("m5.large", { stamp: "Q0Ex" });
    assert.equal(
      driftOf({ nodeClaim: stamped, nodePool: pool("default"), nodeClass: nodeClass(), caBundle: "Q0Ex" }),
      undefined,
    );
    assert.equal(
      driftOf({ nodeClaim: stamped, nodePool: pool("default"), nodeClass: nodeClass(), caBundle: "Q0Ey" })?.reason,
      "NodeClassDrift",
    );
    assert.notEqual(nodeClassHash(nodeClass(), "Q0Ex"), nodeClassHash(nodeClass()));
    const before = {
      ...stamped,
      metadata: {
        ...stamped.metadata,
        annotations: {
          "karpenter.k8s.aws/ec2nodeclass-hash": "1",
          "karpenter.k8s.aws/ec2nodeclass-hash-version": "kerf-1",
        },
      },
    };
    assert.equal(needsNodeClassStamp(before), true, "a hash without the CA is re-stamped, never drifted");
  });
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { NodeClaim } from "../lifecycle/objects.ts";
import { hashAnnotations } from "../nodepool/hash.ts";
import { driftOf, needsNodeClassStamp } from "./drift.ts";
import { pool } from "./fixtures.ts";
import { hashedNodeClass, nodeClassHash, nodeClassHashAnnotations } from "./nodeclass-hash.ts";

const nodeClass = (spec: Record<string, unknown> = {}, status: Record<string, unknown> = {}) => ({
  spec: { role: "KarpenterNodeRole", amiSelectorTerms: [{ alias: "al2023@latest" }], subnetSelectorTerms: [{ tags: { a: "b" } }], securityGroupSelectorTerms: [{ tags: { a: "b" } }], ...spec },
  status: { amis: [{ id: "ami-1" }, { id: "ami-2" }], securityGroups: [{ id: "sg-1" }], subnets: [{ id: "subnet-1" }, { id: "subnet-2" }], ...status },
});

function claim(o: { pool?: ReturnType<typeof pool>; annotations?: Record<string, string>; labels?: Record<string, string>; imageID?: string; cls?: ReturnType<typeof nodeClass> } = {}): NodeClaim {
  const p = o.pool ?? pool("default");
  return {
    metadata: { name: "c", labels: { "karpenter.k8s.aws/instance-family": "m5", ...o.labels }, annotations: { ...hashAnnotations(p), ...nodeClassHashAnnotations(o.cls ?? nodeClass()), ...o.annotations } },
    status: { imageID: o.imageID ?? "ami-1" },
  };
}

void describe("drift", () => {
  const base = pool("default");
  const cases: { name: string; claim: NodeClaim; pool?: ReturnType<typeof pool>; cls?: ReturnType<typeof nodeClass>; instance?: { securityGroupIDs: string[]; subnetID: string }; want: string | undefined }[] = [
    { name: "nothing changed", claim: claim(), want: undefined },
    { name: "a NodePool template label changed", claim: claim(), pool: pool("default", { labels: { team: "b" } }), want: "NodePoolDrifted" },
    { name: "only the disruption settings changed (not hashed)", claim: claim(), pool: pool("default", { budgets: [{ nodes: "0" }] }), want: undefined },
    { name: "a claim stamped with another hash version (Karpenter's v3) is never drifted by hash", claim: claim({ annotations: { "karpenter.sh/nodepool-hash": "123", "karpenter.sh/nodepool-hash-version": "v3" } }), pool: pool("default", { labels: { team: "b" } }), want: undefined },
    { name: "requirements no longer admit the claim's family", claim: claim(), pool: pool("default", { requirements: [{ key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["c5"] }] }), want: "RequirementsDrifted" },
    { name: "a requirement on a label the claim lacks", claim: claim(), pool: pool("default", { requirements: [{ key: "example.com/team", operator: "In", values: ["a"] }] }), want: undefined },
    { name: "the EC2NodeClass role changed", claim: claim(), cls: nodeClass({ role: "Other" }), want: "NodeClassDrift" },
    { name: "only the selector terms changed (checked against what they resolve to)", claim: claim(), cls: nodeClass({ subnetSelectorTerms: [{ id: "subnet-9" }] }), want: undefined },
    { name: "the image is no longer resolved", claim: claim({ imageID: "ami-old" }), want: "AMIDrift" },
    { name: "the instance has another security group", claim: claim(), instance: { securityGroupIDs: ["sg-9"], subnetID: "subnet-1" }, want: "SecurityGroupDrift" },
    { name: "the instance is in a subnet no longer selected", claim: claim(), instance: { securityGroupIDs: ["sg-1"], subnetID: "subnet-9" }, want: "SubnetDrift" },
    { name: "the instance matches", claim: claim(), instance: { securityGroupIDs: ["sg-1", "sg-1"], subnetID: "subnet-2" }, want: undefined },
  ];
  for (const c of cases) {
    void it(`reports ${c.want ?? "no drift"} when ${c.name}`, () => {
      assert.equal(driftOf({ nodeClaim: c.claim, nodePool: c.pool ?? base, nodeClass: c.cls ?? nodeClass(), instance: c.instance })?.reason, c.want);
    });
  }

  void it("asks for a node class stamp when the claim carries none or another version", () => {
    assert.equal(needsNodeClassStamp(claim()), false);
    assert.equal(needsNodeClassStamp({ metadata: { annotations: { "karpenter.k8s.aws/ec2nodeclass-hash-version": "v5" } } }), true);
    assert.equal(needsNodeClassStamp({}), true);
  });
});

void describe("the EC2NodeClass hash", () => {
  void it("ignores selector terms, key order and empty values but not the resolved AMI family", () => {
    const a = nodeClass();
    assert.equal(nodeClassHash(a), nodeClassHash(nodeClass({ subnetSelectorTerms: [{ id: "x" }], tags: {}, userData: "" })));
    assert.equal(nodeClassHash(nodeClass({ tags: { a: "1", b: "2" } })), nodeClassHash(nodeClass({ tags: { b: "2", a: "1" } })));
    assert.notEqual(nodeClassHash(a), nodeClassHash(nodeClass({ amiSelectorTerms: [{ alias: "bottlerocket@latest" }] })));
    assert.equal(nodeClassHash(nodeClass({ amiFamily: "AL2023", amiSelectorTerms: [{ id: "ami-1" }] })), nodeClassHash(a), "amiFamily AL2023 and an al2023 alias agree");
    assert.deepEqual(Object.keys(hashedNodeClass(a) as object).sort(), ["resolvedAMIFamily", "role"]);
  });
});

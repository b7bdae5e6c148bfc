import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { CloudInstance } from "../../ports/cloud-provider.ts";
import { gcInterval, gcNode, planGarbageCollection, type GcNode, type GcNodeClaim } from "./plan.ts";

const now = new Date(Date.UTC(2000, 0, 1, 12));

function instance(id: string, ageMs: number, nodeClaimName = "", state = "running"): CloudInstance {
  return {
    providerID: `aws:///us-east-1a/${id}`,
    instanceID: id,
    imageID: "ami-1",
    instanceType: "m5.large",
    zone: "us-east-1a",
    capacityType: "on-demand",
    state,
    launchTime: new Date(now.getTime() - ageMs),
    nodeClaimName,
    nodePoolName: "default",
    nodeClassName: "default",
    tags: {},
  };
}

void describe("garbage-collection decisions", () => {
  const cases: { name: string; instance: CloudInstance; claims: GcNodeClaim[]; terminate: boolean }[] = [
    { name: "an orphan launched 31 s ago", instance: instance("i-1", 31_000, "gone"), claims: [], terminate: true },
    {
      name: "an orphan launched exactly 30 s ago",
      instance: instance("i-1", 30_000, "gone"),
      claims: [],
      terminate: false,
    },
    { name: "an orphan launched 5 s ago", instance: instance("i-1", 5_000, "gone"), claims: [], terminate: false },
    {
      name: "an instance a NodeClaim holds by providerID",
      instance: instance("i-1", 600_000, "a"),
      claims: [{ name: "other", providerID: "aws:///us-east-1a/i-1" }],
      terminate: false,
    },
    {
      name: "an instance whose NodeClaim exists but has no providerID yet",
      instance: instance("i-1", 600_000, "a"),
      claims: [{ name: "a" }],
      terminate: false,
    },
    {
      name: "a second instance of a NodeClaim that recorded another one",
      instance: instance("i-1", 31_000, "a"),
      claims: [{ name: "a", providerID: "aws:///us-east-1a/i-2" }],
      terminate: true,
    },
    {
      name: "an orphan already shutting down",
      instance: instance("i-1", 600_000, "gone", "shutting-down"),
      claims: [],
      terminate: false,
    },
  ];
  for (const c of cases) {
    void it(`should ${c.terminate ? "" : "not "}terminate ${c.name}`, () => {
      const plan = planGarbageCollection({ instances: [c.instance], nodeClaims: c.claims, now });
      assert.deepEqual(
        plan.terminate.map((i) => i.instanceID),
        c.terminate ? ["i-1"] : [],
      );
    });
  }

  const claimCases: { name: string; claim: GcNodeClaim; remove: boolean }[] = [
    { name: "whose instance is gone", claim: { name: "c", providerID: "aws:///us-east-1a/i-gone" }, remove: true },
    { name: "whose instance still runs", claim: { name: "c", providerID: "aws:///us-east-1a/i-live" }, remove: false },
    { name: "not launched yet", claim: { name: "c" }, remove: false },
    {
      name: "already being deleted",
      claim: { name: "c", providerID: "aws:///us-east-1a/i-gone", deleting: true },
      remove: false,
    },
    {
      name: "whose Node is still Ready",
      claim: { name: "c", providerID: "aws:///us-east-1a/i-gone", nodeReady: true },
      remove: false,
    },
  ];
  for (const c of claimCases) {
    void it(`should ${c.remove ? "" : "not "}delete a NodeClaim ${c.name}`, () => {
      const plan = planGarbageCollection({ instances: [instance("i-live", 600_000, "c")], nodeClaims: [c.claim], now });
      assert.deepEqual(plan.deleteNodeClaims, c.remove ? ["c"] : []);
    });
  }

  const node = (providerID: string, extra: Partial<GcNode> = {}): GcNode => ({
    name: "n",
    providerID,
    launchedForNodeClaim: true,
    ...extra,
  });
  const nodeCases: {
    name: string;
    instances: CloudInstance[];
    claims: GcNodeClaim[];
    node: GcNode;
    outcome: "delete" | "verify" | "keep";
    reason?: string;
  }[] = [
    {
      name: "the Node of an orphan terminated now",
      instances: [instance("i-1", 31_000, "gone")],
      claims: [],
      node: node("aws:///us-east-1a/i-1"),
      outcome: "delete",
      reason: "orphaned-instance-terminated",
    },
    {
      name: "the Node of an unheld instance already shutting down",
      instances: [instance("i-1", 31_000, "gone", "shutting-down")],
      claims: [],
      node: node("aws:///us-east-1a/i-1"),
      outcome: "delete",
      reason: "instance-terminating",
    },
    {
      name: "a Node whose instance is not listed (terminated or unknown)",
      instances: [],
      claims: [],
      node: node("aws:///us-east-1a/i-1"),
      outcome: "verify",
    },
    {
      name: "the Node of a young orphan (terminated with it later)",
      instances: [instance("i-1", 5_000, "gone")],
      claims: [],
      node: node("aws:///us-east-1a/i-1"),
      outcome: "keep",
    },
    {
      name: "the Node of an instance whose NodeClaim has no providerID yet",
      instances: [instance("i-1", 600_000, "a")],
      claims: [{ name: "a" }],
      node: node("aws:///us-east-1a/i-1"),
      outcome: "keep",
    },
    {
      name: "a Node a NodeClaim holds, even with its instance gone",
      instances: [],
      claims: [{ name: "a", providerID: "aws:///us-east-1a/i-1" }],
      node: node("aws:///us-east-1a/i-1"),
      outcome: "keep",
    },
    {
      name: "a Node not launched for a NodeClaim",
      instances: [],
      claims: [],
      node: node("aws:///us-east-1a/i-1", { launchedForNodeClaim: false }),
      outcome: "keep",
    },
    {
      name: "a Node already being deleted",
      instances: [],
      claims: [],
      node: node("aws:///us-east-1a/i-1", { deleting: true }),
      outcome: "keep",
    },
    {
      name: "a Node without an AWS providerID",
      instances: [],
      claims: [],
      node: node("kwok://spare"),
      outcome: "keep",
    },
  ];
  for (const c of nodeCases) {
    void it(`should ${c.outcome} ${c.name}`, () => {
      const plan = planGarbageCollection({ instances: c.instances, nodeClaims: c.claims, nodes: [c.node], now });
      assert.deepEqual(
        plan.deleteNodes,
        c.outcome === "delete" ? [{ name: "n", providerID: c.node.providerID, reason: c.reason }] : [],
      );
      assert.deepEqual(plan.verifyNodes, c.outcome === "verify" ? [c.node] : []);
    });
  }

  const gcNodeCases: {
    name: string;
    taints: { key: string; effect: string }[];
    labels: Record<string, string>;
    launched: boolean;
  }[] = [
    {
      name: "a Node with the karpenter.sh/unregistered taint",
      taints: [{ key: "karpenter.sh/unregistered", effect: "NoExecute" }],
      labels: {},
      launched: true,
    },
    {
      name: "a registered Node with a karpenter.sh/nodepool label",
      taints: [],
      labels: { "karpenter.sh/nodepool": "default" },
      launched: true,
    },
    {
      name: "any other Node",
      taints: [{ key: "dedicated", effect: "NoSchedule" }],
      labels: { "kubernetes.io/hostname": "x" },
      launched: false,
    },
  ];
  for (const c of gcNodeCases) {
    void it(`should ${c.launched ? "" : "not "}count ${c.name} as launched for a NodeClaim`, () => {
      assert.equal(
        gcNode({
          metadata: { name: "x", labels: c.labels },
          spec: { providerID: "aws:///us-east-1a/i-1", taints: c.taints },
        }).launchedForNodeClaim,
        c.launched,
      );
    });
  }

  void it("should poll every 10 s for 20 runs and every 2 min after", () => {
    assert.equal(gcInterval(0), 10_000);
    assert.equal(gcInterval(19), 10_000);
    assert.equal(gcInterval(20), 120_000);
  });
});

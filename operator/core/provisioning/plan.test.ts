import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { toInstanceTypes } from "../../../policies/domain/catalog/catalog.ts";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import type { Node, NodeClaim, Pod } from "../lifecycle/objects.ts";
import { nodePoolHash } from "../nodepool/hash.ts";
import {
  planProvisioning,
  type ClusterView,
  type DaemonSetObject,
  type NodePoolObject,
  type PlanInput,
  type ProvisioningPlan,
} from "./plan.ts";

const ZONES = new Set(["us-east-1a", "us-east-1b"]);
const types = toInstanceTypes(builtinCatalog(), { zones: ZONES });
const READY = { conditions: [{ type: "Ready", status: "True" }] };
const FAMILIES = { key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["c5", "m5", "r5"] };
const ON_DEMAND = { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] };

function nodePool(
  name: string,
  extra: {
    spec?: Record<string, unknown>;
    template?: Record<string, unknown>;
    meta?: Record<string, unknown>;
    status?: Record<string, unknown>;
  } = {},
): NodePoolObject {
  return {
    metadata: { name, uid: `uid-${name}` },
    spec: {
      template: {
        metadata: extra.meta ?? {},
        spec: {
          nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
          requirements: [ON_DEMAND, FAMILIES],
          ...extra.template,
        },
      },
      ...extra.spec,
    },
    status: extra.status ?? READY,
  };
}

function pods(
  n: number,
  opts: { memory?: string; prefix?: string; spec?: Record<string, unknown>; nodeName?: string } = {},
): Pod[] {
  const prefix = opts.prefix ?? "inflate";
  return Array.from(
    { length: n },
    (_, i) =>
      ({
        metadata: {
          name: `${prefix}-${i}`,
          namespace: "default",
          uid: `${prefix}-uid-${i}`,
          creationTimestamp: new Date(1_700_000_000_000 + i * 1000).toISOString(),
        },
        spec: {
          containers: [{ name: "pause", resources: { requests: { memory: opts.memory ?? "1Gi" } } }],
          ...(opts.nodeName === undefined ? {} : { nodeName: opts.nodeName }),
          ...opts.spec,
        },
        status:
          opts.nodeName === undefined
            ? { phase: "Pending", conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable" }] }
            : { phase: "Running" },
      }) as Pod,
  );
}

function cluster(parts: Partial<ClusterView> = {}): ClusterView {
  return { pods: [], nodes: [], nodeClaims: [], nodePools: [nodePool("default")], daemonSets: [], ...parts };
}

function plan(
  c: ClusterView,
  pending: readonly Pod[],
  byPool: ReadonlyMap<string, readonly InstanceType[]> = new Map(
    c.nodePools.map((p) => [p.metadata?.name ?? "", types]),
  ),
  options?: PlanInput["options"],
): ProvisioningPlan {
  const input: PlanInput = {
    cluster: c,
    pending,
    instanceTypes: byPool,
    ...(options === undefined ? {} : { options }),
  };
  return planProvisioning(input);
}

/** The NodeClaim the apiserver would hold after the provisioner created `manifest`. */
function created(p: ProvisioningPlan, index: number, name: string, status?: NodeClaim["status"]): NodeClaim {
  const m = p.claims[index]?.manifest;
  assert.ok(m !== undefined);
  return {
    metadata: { ...m.metadata, name, uid: `uid-${name}` },
    spec: m.spec as NodeClaim["spec"],
    ...(status === undefined ? {} : { status }),
  };
}

const instanceTypesOf = (p: ProvisioningPlan, i = 0): readonly string[] =>
  p.claims[i]?.manifest.spec.requirements.find((r) => r.key === "node.kubernetes.io/instance-type")?.values ?? [];

void describe("the provisioning plan's NodeClaims", () => {
  void it("should carry the NodePool template's labels, annotations, taints, startup taints, nodeClassRef and durations", () => {
    const pool = nodePool("team-a", {
      meta: { labels: { team: "a" }, annotations: { "example.com/owner": "a" } },
      template: {
        taints: [{ key: "dedicated", value: "a", effect: "NoSchedule" }],
        startupTaints: [{ key: "cni-not-ready", effect: "NoSchedule" }],
        expireAfter: "24h",
        terminationGracePeriod: "1h",
        requirements: [
          ON_DEMAND,
          { ...FAMILIES, minValues: 2 },
          { key: "topology.kubernetes.io/zone", operator: "In", values: ["us-east-1b"] },
        ],
      },
    });
    const p = plan(
      cluster({ nodePools: [pool] }),
      pods(5, { spec: { tolerations: [{ key: "dedicated", operator: "Exists" }] } }),
    );
    assert.equal(p.claims.length, 1);
    const { metadata, spec } = p.claims[0]!.manifest;
    assert.equal(metadata.generateName, "team-a-");
    assert.deepEqual(metadata.labels, { team: "a", "karpenter.sh/nodepool": "team-a" });
    assert.deepEqual(metadata.annotations, {
      "example.com/owner": "a",
      "karpenter.sh/nodepool-hash": nodePoolHash(pool),
      "karpenter.sh/nodepool-hash-version": "kerf-1",
    });
    assert.deepEqual(metadata.ownerReferences, [
      { apiVersion: "karpenter.sh/v1", kind: "NodePool", name: "team-a", uid: "uid-team-a", blockOwnerDeletion: true },
    ]);
    assert.deepEqual(spec.nodeClassRef, { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" });
    assert.deepEqual(spec.taints, [{ key: "dedicated", value: "a", effect: "NoSchedule" }]);
    assert.deepEqual(spec.startupTaints, [{ key: "cni-not-ready", effect: "NoSchedule" }]);
    assert.equal(spec.expireAfter, "24h");
    assert.equal(spec.terminationGracePeriod, "1h");
    assert.deepEqual(spec.resources.requests, { memory: "5Gi", pods: "5" });
    const byKey = new Map(spec.requirements.map((r) => [r.key, r]));
    assert.deepEqual(byKey.get("karpenter.sh/capacity-type")?.values, ["on-demand"]);
    assert.deepEqual(byKey.get("topology.kubernetes.io/zone")?.values, ["us-east-1b"]);
    assert.equal(byKey.get("karpenter.k8s.aws/instance-family")?.minValues, 2);
    assert.equal(byKey.has("kubernetes.io/hostname"), false, "the simulation's placeholder hostname is not written");
    assert.equal(p.claims[0]!.launch.instanceType, "m5.large", "the cheapest type that holds five 1Gi pods");
    assert.ok(
      instanceTypesOf(p).includes("m5.large") && !instanceTypesOf(p).includes("c5.large"),
      "options are the types that hold all five pods",
    );
    assert.ok(new Set(instanceTypesOf(p).map((t) => t.split(".")[0])).size >= 2, "minValues 2 spans two families");
    assert.equal(p.claims[0]!.launch.zone, "us-east-1b");
    assert.deepEqual(
      p.claims[0]!.pods.map((x) => x.metadata?.name),
      ["inflate-0", "inflate-1", "inflate-2", "inflate-3", "inflate-4"],
    );
  });

  void it("should leave out NodePools that are not Ready, are being deleted or are static", () => {
    const pools = [
      nodePool("not-ready", { status: { conditions: [{ type: "Ready", status: "False" }] } }),
      { ...nodePool("deleting"), metadata: { name: "deleting", deletionTimestamp: "2026-01-01T00:00:00Z" } },
      nodePool("static", { spec: { replicas: 2 } }),
    ];
    const p = plan(cluster({ nodePools: pools }), pods(1));
    assert.deepEqual(p.claims, []);
    assert.match(p.podErrors[0]?.reason ?? "", /no NodePool can launch nodes/);
  });

  void it("should report pods that fit no NodePool with the simulation's reason, and NodePools left with no instance type", () => {
    const pool = nodePool("tiny", {
      template: { requirements: [{ key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["nope"] }] },
    });
    const p = plan(cluster({ nodePools: [pool] }), pods(1));
    assert.deepEqual(p.claims, []);
    assert.equal(p.podErrors[0]?.pod.metadata?.name, "inflate-0");
    assert.match(p.podErrors[0]?.reason ?? "", /NodePool tiny/);
    assert.deepEqual(
      p.incompatiblePools.map((x) => x.metadata?.name),
      ["tiny"],
    );
  });
});

void describe("in-flight NodeClaims", () => {
  void it("should nominate pods to a NodeClaim not launched yet instead of planning a second one", () => {
    const first = plan(cluster(), pods(5));
    const inFlight = created(first, 0, "default-abc12");
    const again = plan(cluster({ nodeClaims: [inFlight] }), pods(5));
    assert.deepEqual(again.claims, []);
    assert.deepEqual(
      again.nominations.map((n) => n.target),
      Array(5).fill("nodeclaim/default-abc12"),
    );
  });

  void it("should size a launched NodeClaim by its reported allocatable and launch only for the rest", () => {
    const first = plan(cluster(), pods(5));
    const launched = created(first, 0, "default-abc12", {
      providerID: "aws:///us-east-1a/i-0123456789abcdef0",
      allocatable: { cpu: "1930m", memory: "3Gi", pods: "29" },
    });
    const p = plan(cluster({ nodeClaims: [launched] }), pods(5));
    assert.equal(p.nominations.length, 3);
    assert.equal(
      p.claims.reduce((n, c) => n + c.pods.length, 0),
      2,
    );
  });

  void it("should reserve room for DaemonSet pods on a NodeClaim that has no Node yet", () => {
    const ds: DaemonSetObject = {
      metadata: { name: "logs", namespace: "kube-system" },
      spec: {
        template: { metadata: {}, spec: { containers: [{ name: "c", resources: { requests: { memory: "3Gi" } } }] } },
      },
    };
    const claim: NodeClaim = {
      metadata: { name: "default-m5", labels: { "karpenter.sh/nodepool": "default" } },
      spec: { requirements: [{ key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.large"] }] },
    };
    const p = plan(cluster({ nodeClaims: [claim], daemonSets: [ds] }), pods(5));
    assert.equal(
      p.nominations.length,
      3,
      "m5.large holds 6.7 GiB: 3 GiB for the DaemonSet leaves room for three 1Gi pods",
    );
    assert.equal(
      p.claims.reduce((n, c) => n + c.pods.length, 0),
      2,
    );
  });

  void it("should count a registered Node whose NodeClaim is still initializing, ignoring its unregistered taint", () => {
    const providerID = "aws:///us-east-1a/i-0123456789abcdef0";
    const claim: NodeClaim = {
      metadata: { name: "default-x", labels: { "karpenter.sh/nodepool": "default" } },
      spec: { requirements: [] },
      status: { providerID, conditions: [{ type: "Registered", status: "True" }] },
    };
    const node: Node = {
      metadata: { name: "ip-10-0-0-1", labels: { "kubernetes.io/hostname": "ip-10-0-0-1" } },
      spec: { providerID, taints: [{ key: "karpenter.sh/unregistered", effect: "NoExecute" }] },
      status: { allocatable: { cpu: "2", memory: "8Gi", pods: "29" } },
    };
    const p = plan(cluster({ nodeClaims: [claim], nodes: [node] }), pods(5));
    assert.deepEqual(p.claims, []);
    assert.deepEqual(new Set(p.nominations.map((n) => n.target)), new Set(["node/ip-10-0-0-1"]));
  });

  void it("should plan a replacement for the pods of a NodeClaim being deleted", () => {
    const providerID = "aws:///us-east-1a/i-0123456789abcdef0";
    const claim: NodeClaim = {
      metadata: {
        name: "old",
        labels: { "karpenter.sh/nodepool": "default" },
        deletionTimestamp: "2026-01-01T00:00:00Z",
      },
      spec: { requirements: [] },
      status: { providerID },
    };
    const node: Node = {
      metadata: { name: "old-node" },
      spec: { providerID },
      status: { allocatable: { cpu: "2", memory: "8Gi", pods: "29" } },
    };
    const p = plan(
      cluster({ nodeClaims: [claim], nodes: [node], pods: pods(4, { nodeName: "old-node", prefix: "bound" }) }),
      [],
    );
    assert.equal(p.claims.length, 1);
    assert.deepEqual(p.claims[0]!.pods.map((x) => x.metadata?.name).sort(), [
      "bound-0",
      "bound-1",
      "bound-2",
      "bound-3",
    ]);
    assert.deepEqual(p.nominations, []);
  });
});

void describe("expendable pods (--expendable-pods-priority-cutoff)", () => {
  const CUTOFF = { expendablePodsPriorityCutoff: 0 };
  const low = (n: number, prefix = "low"): Pod[] => pods(n, { prefix, spec: { priority: -5 } });
  const providerID = "aws:///us-east-1a/i-0123456789abcdef0";
  const existing = (memory: string): { nodeClaims: NodeClaim[]; nodes: Node[] } => ({
    nodeClaims: [
      {
        metadata: { name: "default-x", labels: { "karpenter.sh/nodepool": "default" } },
        spec: { requirements: [] },
        status: { providerID, conditions: [{ type: "Initialized", status: "True" }] },
      },
    ],
    nodes: [
      {
        metadata: { name: "ip-10-0-0-1", labels: { "kubernetes.io/hostname": "ip-10-0-0-1" } },
        spec: { providerID },
        status: { allocatable: { cpu: "2", memory, pods: "29" } },
      },
    ],
  });

  void it("should launch no node for pods below the cutoff and tell each pod why", () => {
    const p = plan(cluster(), low(3), undefined, CUTOFF);
    assert.deepEqual(p.claims, []);
    assert.deepEqual(
      p.podErrors.map((e) => e.pod.metadata?.name),
      ["low-0", "low-1", "low-2"],
    );
    assert.match(p.podErrors[0]!.reason, /pod priority -5 is below the expendable-pods priority cutoff 0/);
  });

  void it("should launch for the same pods without a cutoff (Karpenter's behaviour)", () => {
    assert.equal(plan(cluster(), low(3)).claims.length, 1);
  });

  void it("should still nominate pods below the cutoff to an existing Node with room, and report only those left over", () => {
    const p = plan(cluster(existing("2Gi")), low(3), undefined, CUTOFF);
    assert.deepEqual(p.claims, []);
    assert.equal(p.nominations.length, 2);
    assert.deepEqual(
      p.nominations.map((n) => n.target),
      ["node/ip-10-0-0-1", "node/ip-10-0-0-1"],
    );
    assert.equal(p.podErrors.length, 1);
  });

  void it("should still nominate pods below the cutoff to an in-flight NodeClaim", () => {
    const inFlight = created(plan(cluster(), pods(5)), 0, "default-abc12");
    const p = plan(cluster({ nodeClaims: [inFlight] }), low(2), undefined, CUTOFF);
    assert.deepEqual(p.claims, []);
    assert.deepEqual(
      p.nominations.map((n) => n.target),
      ["nodeclaim/default-abc12", "nodeclaim/default-abc12"],
    );
  });

  void it("should launch for pods at or above the cutoff and never put a pod below it on that new NodeClaim", () => {
    const p = plan(cluster(), [...pods(2, { prefix: "high", spec: { priority: 0 } }), ...low(2)], undefined, CUTOFF);
    assert.equal(p.claims.length, 1);
    assert.deepEqual(
      p.claims[0]!.pods.map((x) => x.metadata?.name),
      ["high-0", "high-1"],
    );
    assert.deepEqual(p.podErrors.map((e) => e.pod.metadata?.name).sort(), ["low-0", "low-1"]);
  });

  void it("should still place the pods of a deleting NodeClaim below the cutoff (kerf displaced them)", () => {
    const claim: NodeClaim = {
      metadata: {
        name: "old",
        labels: { "karpenter.sh/nodepool": "default" },
        deletionTimestamp: "2026-01-01T00:00:00Z",
      },
      spec: { requirements: [] },
      status: { providerID },
    };
    const node: Node = {
      metadata: { name: "old-node" },
      spec: { providerID },
      status: { allocatable: { cpu: "2", memory: "8Gi", pods: "29" } },
    };
    const bound = pods(2, { nodeName: "old-node", prefix: "bound", spec: { priority: -5 } });
    const p = plan(cluster({ nodeClaims: [claim], nodes: [node], pods: bound }), [], undefined, CUTOFF);
    assert.equal(p.claims.length, 1);
    assert.deepEqual(p.podErrors, []);
  });
});

void describe("NodePool limits across batches", () => {
  void it("should count the NodeClaims of an earlier batch, launched or not, against the limit", () => {
    const pool = nodePool("default", { spec: { limits: { cpu: "2" } } });
    const first = plan(cluster({ nodePools: [pool] }), pods(5));
    assert.equal(first.claims.length, 1);
    assert.ok(
      instanceTypesOf(first).every((t) => (types.find((x) => x.name === t)?.capacity["cpu"] ?? 0) <= 2000),
      "options stay within 2 cpu",
    );
    const inFlight = created(first, 0, "default-1");
    const second = plan(cluster({ nodePools: [pool], nodeClaims: [inFlight] }), [
      ...pods(5),
      ...pods(7, { prefix: "more" }),
    ]);
    assert.deepEqual(second.claims, [], "the first claim used the whole cpu limit");
    assert.ok(second.podErrors.length > 0);
    assert.ok(
      second.podErrors.every((e) => /limits/.test(e.reason)),
      second.podErrors.map((e) => e.reason).join("; "),
    );
    const launched = created(first, 0, "default-1", {
      providerID: "aws:///us-east-1a/i-1",
      capacity: { cpu: "2", memory: "8Gi", pods: "29" },
      allocatable: { cpu: "1930m", memory: "6903Mi", pods: "29" },
    });
    assert.deepEqual(
      plan(cluster({ nodePools: [pool], nodeClaims: [launched] }), pods(7, { prefix: "more" })).claims,
      [],
    );
  });

  void it("should stop at the node limit counting NodeClaims still in flight", () => {
    const pool = nodePool("default", { spec: { limits: { nodes: "1" } } });
    const inFlight: NodeClaim = {
      metadata: { name: "default-1", labels: { "karpenter.sh/nodepool": "default" } },
      spec: { requirements: [{ key: "node.kubernetes.io/instance-type", operator: "In", values: ["c5.large"] }] },
    };
    const p = plan(cluster({ nodePools: [pool], nodeClaims: [inFlight] }), pods(5));
    assert.equal(p.claims.length, 0);
    assert.equal(p.nominations.length, 3, "c5.large holds three 1Gi pods");
    assert.match(p.podErrors[0]?.reason ?? "", /would exceed its limits/);
  });
});

void describe("fallback after insufficient capacity", () => {
  const unavailable = (keys: string[]): InstanceType[] =>
    toInstanceTypes(builtinCatalog(), { zones: ZONES, unavailable: new Set(keys) });

  void it("should choose the same type in another zone when only one zone's offering is unavailable", () => {
    const p = plan(cluster(), pods(5), new Map([["default", unavailable(["on-demand:m5.large:us-east-1a"])]]));
    assert.deepEqual([p.claims[0]?.launch.instanceType, p.claims[0]?.launch.zone], ["m5.large", "us-east-1b"]);
  });

  void it("should choose the next cheapest type when the cheapest has no available offering", () => {
    const p = plan(
      cluster(),
      pods(5),
      new Map([["default", unavailable(["on-demand:m5.large:us-east-1a", "on-demand:m5.large:us-east-1b"])]]),
    );
    assert.notEqual(p.claims[0]?.launch.instanceType, "m5.large");
    assert.ok(!instanceTypesOf(p).includes("m5.large"));
  });

  void it("should fall back to a lower-weight NodePool when the heavier one has nothing available", () => {
    const preferred = nodePool("preferred", {
      spec: { weight: 50 },
      template: {
        requirements: [ON_DEMAND, { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.large"] }],
      },
    });
    const fallback = nodePool("fallback", { spec: { weight: 10 } });
    const c = cluster({ nodePools: [fallback, preferred] });
    assert.equal(plan(c, pods(5)).claims[0]?.nodePool, "preferred");
    const iced = unavailable(["on-demand:m5.large:us-east-1a", "on-demand:m5.large:us-east-1b"]);
    const p = plan(
      c,
      pods(5),
      new Map([
        ["preferred", iced],
        ["fallback", iced],
      ]),
    );
    assert.equal(p.claims[0]?.nodePool, "fallback");
    assert.equal(p.claims[0]?.manifest.metadata.labels["karpenter.sh/nodepool"], "fallback");
    assert.deepEqual(
      p.incompatiblePools.map((x) => x.metadata?.name),
      ["preferred"],
    );
  });
});

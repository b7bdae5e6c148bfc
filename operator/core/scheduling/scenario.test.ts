import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { toInstanceTypes } from "../../../policies/domain/catalog/catalog.ts";
import type { Pod } from "../lifecycle/objects.ts";
import { planProvisioning, type ClusterView } from "../provisioning/plan.ts";
import { whatIf } from "../../../webhook/cli/simulate-disruption.ts";
import { buildScenario } from "./scenario.ts";
import { simulate } from "./simulate.ts";
import type { SimulationResult } from "./types.ts";

type Obj = Record<string, unknown>;
const catalog = builtinCatalog();
const DELETED = "2026-01-01T00:00:00Z";

const nodeClass = (name: string, spec: Obj = {}): Obj => ({
  apiVersion: "karpenter.k8s.aws/v1",
  kind: "EC2NodeClass",
  metadata: { name },
  spec: { amiSelectorTerms: [{ alias: "al2023@latest" }], ...spec },
});

const nodePool = (name: string, extra: { className?: string; status?: Obj; metadata?: Obj } = {}): Obj => ({
  apiVersion: "karpenter.sh/v1",
  kind: "NodePool",
  metadata: { name, ...extra.metadata },
  spec: {
    template: {
      spec: {
        nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: extra.className ?? "default" },
        requirements: [
          { key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["c5", "m5"] },
          { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
          { key: "topology.kubernetes.io/zone", operator: "In", values: ["us-east-1a", "us-east-1b"] },
        ],
      },
    },
  },
  ...(extra.status === undefined ? {} : { status: extra.status }),
});

const pod = (name: string, spec: Obj = {}, metadata: Obj = {}): Obj => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "default", ...metadata },
  spec: { containers: [{ name: "app", resources: { requests: { cpu: "1", memory: "1Gi" } } }], ...spec },
});

const node = (name: string, zone: string, extra: { taints?: Obj[]; metadata?: Obj; status?: Obj } = {}): Obj => ({
  apiVersion: "v1",
  kind: "Node",
  metadata: {
    name,
    labels: {
      "karpenter.sh/nodepool": "default",
      "node.kubernetes.io/instance-type": "c5.2xlarge",
      "topology.kubernetes.io/zone": zone,
    },
    ...extra.metadata,
  },
  spec: { providerID: `aws:///${zone}/i-${name}`, ...(extra.taints === undefined ? {} : { taints: extra.taints }) },
  ...(extra.status === undefined ? {} : { status: extra.status }),
});

const base = [nodeClass("default"), nodePool("default")];
const run = (docs: readonly Obj[]): SimulationResult => {
  const scenario = buildScenario(docs, catalog);
  return simulate(scenario.snapshot, scenario.pending);
};
const placed = (r: SimulationResult): Record<string, string> =>
  Object.fromEntries([
    ...r.existingPlacements.map((p) => [p.pod.name, p.node]),
    ...r.newClaims.flatMap((c) => c.pods.map((p) => [p.name, `new:${c.nodePool}`])),
    ...r.podErrors.map((e) => [e.pod.name, "unschedulable"]),
  ]);

describe("kerf simulate reads a scenario as the operator reads the cluster (issue 22 cause 2)", () => {
  it("offers Windows nodes under a Windows EC2NodeClass, so a Windows pod gets one", () => {
    const docs = [
      nodeClass("win", { amiSelectorTerms: [{ alias: "windows2022@latest" }] }),
      nodePool("windows", { className: "win" }),
      pod("iis", { nodeSelector: { "kubernetes.io/os": "windows" } }),
    ];
    const result = run(docs);
    assert.deepEqual(placed(result), { iis: "new:windows" });
    const claim = result.newClaims[0];
    assert.equal(claim?.instanceTypes[0]?.labels["kubernetes.io/os"], "windows");
  });

  it("keeps a Linux EC2NodeClass's types Linux: a Windows pod fits none of them", () => {
    assert.deepEqual(placed(run([...base, pod("iis", { nodeSelector: { "kubernetes.io/os": "windows" } })])), {
      iis: "unschedulable",
    });
  });

  it("places pending pods on an in-flight NodeClaim (no Node yet) instead of launching another", () => {
    const claim = {
      apiVersion: "karpenter.sh/v1",
      kind: "NodeClaim",
      metadata: { name: "default-abc12", labels: { "karpenter.sh/nodepool": "default" } },
      spec: {
        requirements: [
          { key: "node.kubernetes.io/instance-type", operator: "In", values: ["c5.2xlarge"] },
          { key: "topology.kubernetes.io/zone", operator: "In", values: ["us-east-1a"] },
        ],
      },
    };
    assert.deepEqual(placed(run([...base, claim, pod("a"), pod("b")])), { a: "default-abc12", b: "default-abc12" });
  });

  it("launches nothing from a NodePool that states Ready=False", () => {
    const docs = [
      nodeClass("default"),
      nodePool("default", {
        status: { conditions: [{ type: "Ready", status: "False", reason: "NodeClassNotReady" }] },
      }),
      pod("a"),
    ];
    const result = run(docs);
    assert.equal(result.newClaims.length, 0);
    assert.deepEqual(placed(result), { a: "unschedulable" });
  });

  it("launches nothing from a NodePool being deleted", () => {
    const docs = [
      nodeClass("default"),
      nodePool("default", { metadata: { deletionTimestamp: DELETED, finalizers: ["karpenter.sh/termination"] } }),
      pod("a"),
    ];
    assert.deepEqual(placed(run(docs)), { a: "unschedulable" });
  });

  it("ignores the startup and ephemeral taints of a Node whose NodeClaim is not initialized yet", () => {
    const taints = [
      { key: "example.com/agent-not-ready", effect: "NoSchedule" },
      { key: "node.kubernetes.io/not-ready", effect: "NoSchedule" },
    ];
    const claim = {
      apiVersion: "karpenter.sh/v1",
      kind: "NodeClaim",
      metadata: { name: "booting", labels: { "karpenter.sh/nodepool": "default" } },
      spec: { startupTaints: [taints[0]] },
      status: {
        nodeName: "booting",
        conditions: [
          { type: "Launched", status: "True" },
          { type: "Initialized", status: "False" },
        ],
      },
    };
    assert.deepEqual(placed(run([...base, node("booting", "us-east-1a", { taints }), claim, pod("a")])), {
      a: "booting",
    });
  });

  it("keeps the startup taints of an initialized Node (they are the user's to remove)", () => {
    const taints = [{ key: "example.com/agent-not-ready", effect: "NoSchedule" }];
    assert.deepEqual(placed(run([...base, node("up", "us-east-1a", { taints }), pod("a")])), { a: "new:default" });
  });

  it("puts nothing on a deleting Node and places its pods again", () => {
    const deleting = node("going", "us-east-1a", {
      metadata: { deletionTimestamp: DELETED, finalizers: ["karpenter.sh/termination"] },
    });
    const result = run([...base, deleting, pod("resident", { nodeName: "going" }), pod("a")]);
    assert.deepEqual(placed(result), { resident: "new:default", a: "new:default" });
  });

  it("does not count terminating or finished pods in a topology spread", () => {
    const web = { app: "web" };
    const spread = {
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: "topology.kubernetes.io/zone",
          whenUnsatisfiable: "DoNotSchedule",
          labelSelector: { matchLabels: web },
        },
      ],
    };
    const docs = [
      ...base,
      node("a", "us-east-1a"),
      node("b", "us-east-1b"),
      pod("old-1", { nodeName: "a" }, { labels: web, deletionTimestamp: DELETED }),
      { ...pod("old-2", { nodeName: "a" }, { labels: web }), status: { phase: "Succeeded" } },
      pod("live", { nodeName: "b" }, { labels: web }),
      pod("new", spread, { labels: web }),
    ];
    // Counted, zone a would hold 2 and b 1: the pod would have to go to b. Not counted, a holds 0.
    assert.deepEqual(placed(run(docs)), { new: "a" });
  });

  it("does not place a pending pod that is terminating", () => {
    assert.deepEqual(placed(run([...base, pod("a", {}, { deletionTimestamp: DELETED })])), {});
  });

  it("does not place a pod that asks for no Karpenter node (karpenter.sh/nodepool DoesNotExist)", () => {
    const affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: "karpenter.sh/nodepool", operator: "DoesNotExist" }] }],
        },
      },
    };
    assert.deepEqual(placed(run([...base, pod("controller", { affinity })])), {});
  });

  it("counts the scenario's Nodes against their NodePool's limits", () => {
    const limited = {
      ...nodePool("default"),
      spec: { ...(nodePool("default")["spec"] as Obj), limits: { cpu: "10" } },
    };
    // One c5.2xlarge (8 vCPU) leaves 2 of the 10: a pod asking 4 CPU cannot get a new node.
    const big = pod("big", {
      containers: [{ name: "app", resources: { requests: { cpu: "4" } } }],
      nodeSelector: { "topology.kubernetes.io/zone": "us-east-1b" },
    });
    const full = pod("filler", { nodeName: "a", containers: [{ name: "app", resources: { requests: { cpu: "7" } } }] });
    assert.deepEqual(placed(run([nodeClass("default"), limited, node("a", "us-east-1a"), full, big])), {
      big: "unschedulable",
    });
  });
});

describe("the operator's provisioning and kerf simulate decide the same on the same objects", () => {
  it("places, launches and refuses the same pods", () => {
    const unschedulable = {
      conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable" }],
      phase: "Pending",
    };
    const taints = [{ key: "example.com/agent-not-ready", effect: "NoSchedule" }];
    // As the kubelet reports them (the operator reads them; a scenario may leave them to the catalog).
    const status = {
      allocatable: { cpu: "7910m", memory: "14Gi", pods: "58" },
      capacity: { cpu: "8", memory: "16Gi", pods: "58" },
    };
    const docs: Obj[] = [
      nodeClass("default"),
      nodeClass("win", { amiSelectorTerms: [{ alias: "windows2022@latest" }] }),
      { ...nodePool("default"), status: { conditions: [{ type: "Ready", status: "True" }] } },
      { ...nodePool("windows", { className: "win" }), status: { conditions: [{ type: "Ready", status: "True" }] } },
      { ...nodePool("broken"), status: { conditions: [{ type: "Ready", status: "False" }] } },
      node("booting", "us-east-1a", { taints, status }),
      {
        apiVersion: "karpenter.sh/v1",
        kind: "NodeClaim",
        metadata: { name: "booting", labels: { "karpenter.sh/nodepool": "default" } },
        spec: { startupTaints: taints },
        status: {
          providerID: "aws:///us-east-1a/i-booting",
          nodeName: "booting",
          conditions: [{ type: "Initialized", status: "False" }],
        },
      },
      node("going", "us-east-1b", { metadata: { deletionTimestamp: DELETED }, status }),
      pod("resident", { nodeName: "going" }, { uid: "u-resident" }),
      ...["a", "b", "c"].map((n) => ({ ...pod(n, {}, { uid: `u-${n}` }), status: unschedulable })),
      { ...pod("iis", { nodeSelector: { "kubernetes.io/os": "windows" } }, { uid: "u-iis" }), status: unschedulable },
      {
        ...pod("dra", { resourceClaims: [{ name: "gpu", resourceClaimName: "gpu-claim" }] }, { uid: "u-dra" }),
        status: unschedulable,
      },
    ];
    const ofKind = (kind: string): Obj[] => docs.filter((d) => d["kind"] === kind);
    const linux = toInstanceTypes(catalog, {});
    const windows = toInstanceTypes(catalog, { amiFamily: "Windows2022" });
    // The objects as the operator's informers hold them, the types as its cloud provider lists them.
    const cluster = {
      nodePools: ofKind("NodePool"),
      nodes: ofKind("Node"),
      nodeClaims: ofKind("NodeClaim"),
      pods: ofKind("Pod"),
      daemonSets: [],
      namespaces: [],
    } as unknown as ClusterView;
    const pending = ofKind("Pod").filter((p) => (p["spec"] as Obj)["nodeName"] === undefined) as Pod[];
    const plan = planProvisioning({
      cluster,
      pending,
      instanceTypes: new Map([
        ["default", linux],
        ["windows", windows],
        ["broken", linux],
      ]),
    });
    const operator = {
      claims: plan.claims
        .map(
          (c) =>
            `${c.nodePool}:${c.launch.instanceType}:${c.pods
              .map((p) => p.metadata?.name)
              .sort()
              .join(",")}`,
        )
        .sort(),
      placed: plan.nominations.map((n) => `${n.pod.metadata?.name}->${n.target.replace(/^node\//u, "")}`).sort(),
      refused: plan.podErrors.map((e) => `${e.pod.metadata?.name}: ${e.reason}`).sort(),
    };
    const result = run(docs);
    const simulated = {
      claims: result.newClaims
        .map(
          (c) =>
            `${c.nodePool}:${c.launch.instanceType}:${c.pods
              .map((p) => p.name)
              .sort()
              .join(",")}`,
        )
        .sort(),
      // The operator nominates only pending pods: a deleting node's pods are placed but not nominated.
      placed: result.existingPlacements
        .filter((p) => p.pod.name !== "resident")
        .map((p) => `${p.pod.name}->${p.node}`)
        .sort(),
      refused: result.podErrors.map((e) => `${e.pod.name}: ${e.reason}`).sort(),
    };
    assert.deepEqual(simulated, operator);
    // And the decision is the one the cluster calls for: nothing on the deleting node, the booting node used.
    assert.ok(
      operator.placed.some((p) => p.endsWith("->booting")),
      JSON.stringify(operator),
    );
    assert.ok(
      operator.claims.some((c) => c.startsWith("windows:") && c.endsWith(":iis")),
      JSON.stringify(operator),
    );
    assert.equal(placed(result)["resident"], "booting");
    assert.ok(!operator.placed.some((p) => p.endsWith("->going")), JSON.stringify(operator));
    assert.deepEqual(
      operator.refused.map((r) => r.split(":")[0]),
      ["dra"],
    );
  });
});

describe("the disruption what-if reads the scenario's pending pods as the operator's pass does (issue 22 cause 2)", () => {
  it("keeps the node a pending pod is about to take (its room reserved before any candidate's pods move)", () => {
    const small = (name: string, on: string): Obj =>
      pod(name, { nodeName: on, containers: [{ name: "a", resources: { requests: { cpu: "500m" } } }] });
    const big = pod("big", {
      containers: [{ name: "a", resources: { requests: { cpu: "7" } } }],
      nodeSelector: { "kubernetes.io/hostname": "a" },
    });
    const docs = [...base, node("a", "us-east-1a"), node("b", "us-east-1b"), small("x", "a"), small("y", "b")];
    const touched = (extra: Obj[]): string[] => {
      const s = buildScenario([...docs, ...extra], catalog);
      const plan = whatIf(s.objects, {
        now: new Date("2026-01-02T00:00:00Z"),
        maxPasses: 3,
        spotToSpot: false,
        nominated: new Set(),
      });
      return (plan?.steps ?? []).flatMap((st) => st.candidates.map((c) => c.node));
    };
    // Without the pending pod, node a is deleted (x moves to b). With it, the pending pod's place on a is reserved.
    assert.ok(touched([]).includes("a"), JSON.stringify(touched([])));
    assert.ok(!touched([big]).includes("a"), JSON.stringify(touched([big])));
  });
});

describe("kerf simulate offers an EC2NodeClass's capacity reservations as the operator does", () => {
  it("adds a reserved offering for each reservation in status.capacityReservations, labelled with it", () => {
    const cls = {
      ...nodeClass("default"),
      status: {
        capacityReservations: [
          {
            id: "cr-1",
            availabilityZone: "us-east-1a",
            instanceType: "m5.large",
            ownerID: "012345678901",
            instanceMatchCriteria: "targeted",
            reservationType: "default",
            state: "active",
          },
        ],
      },
    };
    const scenario = buildScenario([cls, nodePool("default")], catalog);
    const m5 = scenario.objects.instanceTypes.get("default")?.find((t) => t.name === "m5.large");
    const reserved = m5?.offerings.filter((o) => o.capacityType === "reserved");
    assert.deepEqual(
      reserved?.map((o) => [o.zone, o.reservation?.id, o.available]),
      [["us-east-1a", "cr-1", true]],
    );
    assert.equal(
      scenario.objects.instanceTypes
        .get("default")
        ?.find((t) => t.name === "c5.large")
        ?.offerings.some((o) => o.capacityType === "reserved"),
      false,
    );
  });
});

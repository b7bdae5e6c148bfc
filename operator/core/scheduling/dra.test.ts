import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { whatIf } from "../../../webhook/cli/simulate-disruption.ts";
import { DRA_REASON, hasDRARequirements } from "./dra.ts";
import { buildScenario } from "./scenario.ts";
import { simulate } from "./simulate.ts";
import type { SimulationResult } from "./types.ts";

type Obj = Record<string, unknown>;

// Karpenter v1.15 pkg/utils/pod/suite_test.go, HasDRARequirements.
describe("hasDRARequirements", () => {
  const cases: { name: string; spec: Obj; want: boolean }[] = [
    {
      name: "should return false when the pod references no ResourceClaims",
      spec: { containers: [{ name: "a", resources: { requests: { cpu: "1" } } }] },
      want: false,
    },
    {
      name: "should return true when a pod-level ResourceClaim is referenced",
      spec: { resourceClaims: [{ name: "gpu", resourceClaimName: "gpu-claim" }], containers: [{ name: "a" }] },
      want: true,
    },
    {
      name: "should return true when a container consumes a ResourceClaim",
      spec: { containers: [{ name: "a", resources: { claims: [{ name: "gpu" }] } }] },
      want: true,
    },
    {
      name: "should return true when an init container consumes a ResourceClaim",
      spec: { initContainers: [{ name: "i", resources: { claims: [{ name: "gpu" }] } }], containers: [{ name: "a" }] },
      want: true,
    },
    {
      name: "(kerf) an empty resourceClaims list is no requirement",
      spec: { resourceClaims: [], containers: [{ name: "a", resources: { claims: [] } }] },
      want: false,
    },
  ];
  for (const c of cases) it(c.name, () => assert.equal(hasDRARequirements(c.spec), c.want));
});

const nodeClass = {
  apiVersion: "karpenter.k8s.aws/v1",
  kind: "EC2NodeClass",
  metadata: { name: "default" },
  spec: { amiSelectorTerms: [{ alias: "al2023@latest" }] },
};
const nodePool = {
  apiVersion: "karpenter.sh/v1",
  kind: "NodePool",
  metadata: { name: "default" },
  spec: {
    template: {
      spec: {
        nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
        requirements: [
          { key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["m5"] },
          { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
        ],
      },
    },
  },
};
const claims = { resourceClaims: [{ name: "gpu", resourceClaimName: "gpu-claim" }] };
const pod = (name: string, spec: Obj = {}, cpu = "1"): Obj => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "default" },
  spec: { containers: [{ name: "app", resources: { requests: { cpu, memory: "1Gi" } } }], ...spec },
});
const run = (docs: readonly Obj[]): SimulationResult => {
  const s = buildScenario([nodeClass, nodePool, ...docs], builtinCatalog());
  return simulate(s.snapshot, s.pending);
};

// Karpenter v1.15 under --ignore-dra-requests=true (its default; kerf's only mode).
describe("pods with DRA requirements (issue 22 item 8)", () => {
  it("should reject DRA pods with a DRAError when IgnoreDRARequests is enabled (N1): no NodeClaim, the pod gets the reason", () => {
    const result = run([pod("trainer", claims)]);
    assert.equal(result.newClaims.length, 0);
    assert.deepEqual(
      result.podErrors.map((e) => [e.pod.name, e.reason]),
      [["trainer", DRA_REASON]],
    );
  });

  it("a mixed batch of DRA and non-DRA pods: the others get a node, the DRA pod is refused", () => {
    const result = run([pod("web"), pod("trainer", claims), pod("api")]);
    assert.deepEqual(result.newClaims.flatMap((c) => c.pods.map((p) => p.name)).sort(), ["api", "web"]);
    assert.deepEqual(
      result.podErrors.map((e) => e.pod.name),
      ["trainer"],
    );
  });

  it("never places a DRA pod on an existing node either (it is not sized without its devices)", () => {
    const node = {
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name: "big",
        labels: {
          "karpenter.sh/nodepool": "default",
          "node.kubernetes.io/instance-type": "m5.4xlarge",
          "topology.kubernetes.io/zone": "us-east-1a",
        },
      },
    };
    const result = run([node, pod("trainer", claims)]);
    assert.deepEqual(result.existingPlacements, []);
    assert.deepEqual(
      result.podErrors.map((e) => e.reason),
      [DRA_REASON],
    );
  });

  it("should handle DaemonSet pods with DRA requirements based on IgnoreDRARequests flag value: their requests are not reserved", () => {
    const daemon = (spec: Obj): Obj => ({
      apiVersion: "apps/v1",
      kind: "DaemonSet",
      metadata: { name: "dra-daemon", namespace: "kube-system" },
      spec: {
        template: {
          metadata: { labels: { app: "d" } },
          spec: { containers: [{ name: "d", resources: { requests: { cpu: "3" } } }], ...spec },
        },
      },
    });
    const cpu = (r: SimulationResult): number => r.newClaims[0]?.instanceTypes[0]?.capacity["cpu"] ?? 0;
    const withClaim = run([daemon({ resourceClaims: [{ name: "gpu", resourceClaimName: "c" }] }), pod("app")]);
    const plain = run([daemon({}), pod("app")]);
    assert.ok(cpu(withClaim) < cpu(plain), `${cpu(withClaim)} vs ${cpu(plain)}`);
  });

  it("keeps a node whose pod has DRA requirements out of consolidation (its pod could not be placed again)", () => {
    const node = (name: string, zone: string): Obj => ({
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name,
        labels: {
          "karpenter.sh/nodepool": "default",
          "node.kubernetes.io/instance-type": "m5.2xlarge",
          "topology.kubernetes.io/zone": zone,
        },
      },
    });
    const docs = [
      nodeClass,
      nodePool,
      node("plain", "us-east-1a"),
      node("devices", "us-east-1b"),
      pod("web", { nodeName: "plain" }, "500m"),
      pod("trainer", { ...claims, nodeName: "devices" }, "500m"),
    ];
    const scenario = buildScenario(docs, builtinCatalog());
    const plan = whatIf(scenario.objects, {
      now: new Date("2026-01-02T00:00:00Z"),
      maxPasses: 5,
      spotToSpot: false,
      nominated: new Set(),
    });
    const touched = (plan?.steps ?? []).flatMap((s) => s.candidates.map((c) => c.node));
    assert.ok(touched.includes("plain"), JSON.stringify(plan?.steps));
    assert.ok(!touched.includes("devices"), JSON.stringify(plan?.steps));
  });
});

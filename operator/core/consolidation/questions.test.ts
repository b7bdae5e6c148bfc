import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { toInstanceTypes } from "../../../policies/domain/catalog/catalog.ts";
import { simPodFromSpec } from "../scheduling/pod-spec.ts";
import type { ExistingNode, NodePoolView, SimPod } from "../scheduling/types.ts";
import { canDelete, consolidate } from "./questions.ts";

const GI = 2 ** 30;
const types = toInstanceTypes(builtinCatalog());
const pool: NodePoolView = {
  name: "default",
  weight: 0,
  labels: {},
  taints: [],
  startupTaints: [],
  instanceTypes: types,
  requirements: [
    { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
    { key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["c5", "m5", "r5"] },
  ],
};
const pod = (name: string, memory: string): SimPod =>
  simPodFromSpec(
    {},
    { containers: [{ resources: { requests: { memory } } }] },
    { name, namespace: "default", uid: name },
  );
const node = (name: string, memGi: number, price: number, pods: SimPod[]): ExistingNode => ({
  name,
  labels: {
    "kubernetes.io/hostname": name,
    "topology.kubernetes.io/zone": "us-east-1a",
    "karpenter.sh/nodepool": "default",
  },
  taints: [],
  allocatable: { cpu: 8000, memory: memGi * GI, pods: 50 },
  pods,
  nodePool: "default",
  pricePerHour: price,
});

describe("consolidation questions", () => {
  it("deletes a node whose pods fit on the others", () => {
    const snapshot = {
      nodes: [node("a", 16, 0.4, [pod("p1", "1Gi")]), node("b", 16, 0.4, [pod("p2", "1Gi")])],
      nodePools: [pool],
      daemonSets: [],
    };
    assert.equal(canDelete(snapshot, ["a"]), true);
    assert.deepEqual(consolidate(snapshot, ["a"]), { decision: "delete", savingsPerHour: 0.4 });
  });
  it("replaces a big, mostly empty node with one cheaper node", () => {
    const snapshot = { nodes: [node("big", 64, 1.5, [pod("p1", "2Gi")])], nodePools: [pool], daemonSets: [] };
    const d = consolidate(snapshot, ["big"]);
    assert.equal(d.decision, "replace");
    if (d.decision === "replace") {
      assert.equal(d.replacement.launch.instanceType, "c5.large");
      assert.ok(d.savingsPerHour > 1.4);
    }
  });
  it("keeps a node when no replacement is cheaper", () => {
    const snapshot = { nodes: [node("small", 4, 0.05, [pod("p1", "2Gi")])], nodePools: [pool], daemonSets: [] };
    assert.equal(consolidate(snapshot, ["small"]).decision, "none");
  });
  it("deletes a node whose pods fit on the others only once a preference is relaxed", () => {
    // The pod prefers zone b, where no node is left: a run allowed one new node opens it there, the
    // delete question relaxes the preference and finds room on "a" in zone a.
    const preferB = simPodFromSpec(
      {},
      {
        containers: [{ resources: { requests: { memory: "1Gi" } } }],
        affinity: {
          nodeAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 1,
                preference: {
                  matchExpressions: [{ key: "topology.kubernetes.io/zone", operator: "In", values: ["us-east-1b"] }],
                },
              },
            ],
          },
        },
      },
      { name: "p", namespace: "default", uid: "p" },
    );
    const inB = {
      ...node("b", 16, 0.4, [preferB]),
      labels: { ...node("b", 16, 0.4, []).labels, "topology.kubernetes.io/zone": "us-east-1b" },
    };
    const snapshot = { nodes: [node("a", 16, 0.4, []), inB], nodePools: [pool], daemonSets: [] };
    assert.deepEqual(consolidate(snapshot, ["b"]), { decision: "delete", savingsPerHour: 0.4 });
  });
  it("merges two half-empty nodes into one (multi-node)", () => {
    const snapshot = {
      nodes: [node("a", 16, 0.2, [pod("p1", "2Gi")]), node("b", 16, 0.2, [pod("p2", "2Gi")])],
      nodePools: [pool],
      daemonSets: [],
    };
    const d = consolidate(snapshot, ["a", "b"]);
    assert.equal(d.decision, "replace");
    if (d.decision === "replace") assert.equal(d.replacement.pods.length, 2);
  });
});

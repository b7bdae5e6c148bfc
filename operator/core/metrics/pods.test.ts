import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Node, Pod } from "../lifecycle/objects.ts";
import { nodeLabelDigest, ownerSelfLink, podStateLabels, startupStep } from "./pods.ts";

const CREATED = "2030-01-01T00:00:00Z";
const node: Node = {
  metadata: {
    name: "ip-10-0-0-1",
    labels: {
      "karpenter.sh/nodepool": "default",
      "topology.kubernetes.io/zone": "us-east-1a",
      "kubernetes.io/arch": "amd64",
      "karpenter.sh/capacity-type": "on-demand",
      "node.kubernetes.io/instance-type": "m5.large",
      unrelated: "x",
    },
  },
};

function pod(
  o: { phase?: string; nodeName?: string; ready?: { status: string; at: string }; owner?: boolean } = {},
): Pod {
  return {
    metadata: {
      name: "web-1",
      namespace: "shop",
      creationTimestamp: CREATED,
      ownerReferences:
        o.owner === false
          ? []
          : [
              { apiVersion: "apps/v1", kind: "ReplicaSet", name: "web-5d4f", uid: "rs", controller: true },
              { apiVersion: "v1", kind: "Other", name: "x", uid: "o" },
            ],
    },
    spec: { ...(o.nodeName === undefined ? {} : { nodeName: o.nodeName }) },
    status: {
      ...(o.phase === undefined ? {} : { phase: o.phase }),
      conditions:
        o.ready === undefined ? [] : [{ type: "Ready", status: o.ready.status, lastTransitionTime: o.ready.at }],
    },
  };
}

void describe("the karpenter_pods_state labels", () => {
  void it("should label a bound pod with its Node's nodepool, zone, arch, capacity type and instance type", () => {
    assert.deepEqual(podStateLabels(pod({ phase: "Running", nodeName: "ip-10-0-0-1" }), node), {
      name: "web-1",
      namespace: "shop",
      owner: "/apis/apps/v1/namespaces/shop/replicasets/web-5d4f",
      node: "ip-10-0-0-1",
      nodepool: "default",
      zone: "us-east-1a",
      arch: "amd64",
      capacity_type: "on-demand",
      instance_type: "m5.large",
      phase: "Running",
      scheduled: "true",
      ready: "false",
      managed: "true",
    });
    const ready = pod({ phase: "Running", nodeName: "ip-10-0-0-1", ready: { status: "True", at: CREATED } });
    assert.equal(podStateLabels(ready, node).ready, "true");
  });

  void it("should leave the Node's labels empty for an unbound pod or a Node not in the cache", () => {
    assert.deepEqual(podStateLabels(pod({ phase: "Pending" }), undefined), {
      name: "web-1",
      namespace: "shop",
      owner: "/apis/apps/v1/namespaces/shop/replicasets/web-5d4f",
      node: "",
      nodepool: "",
      zone: "",
      arch: "",
      capacity_type: "",
      instance_type: "",
      phase: "Pending",
      scheduled: "false",
      ready: "false",
      managed: "false",
    });
  });

  void it('should use the first owner reference only, and "" without one', () => {
    assert.equal(ownerSelfLink(pod()), "/apis/apps/v1/namespaces/shop/replicasets/web-5d4f");
    assert.equal(ownerSelfLink(pod({ owner: false })), "");
  });

  void it("should digest only the Node labels the series carry", () => {
    const relabelled: Node = { metadata: { ...node.metadata, labels: { ...node.metadata?.labels, unrelated: "y" } } };
    const moved: Node = {
      metadata: { ...node.metadata, labels: { ...node.metadata?.labels, "karpenter.sh/capacity-type": "spot" } },
    };
    assert.equal(nodeLabelDigest(relabelled), nodeLabelDigest(node));
    assert.notEqual(nodeLabelDigest(moved), nodeLabelDigest(node));
  });
});

void describe("the pod startup duration", () => {
  const readyAt = "2030-01-01T00:00:42Z";
  const cases: { name: string; pod: Pod; seenPending: boolean; want: { pending: boolean; seconds?: number } }[] = [
    { name: "remember a Pending pod", pod: pod({ phase: "Pending" }), seenPending: false, want: { pending: true } },
    {
      name: "observe creation → Ready of a pod seen Pending",
      pod: pod({ phase: "Running", ready: { status: "True", at: readyAt } }),
      seenPending: true,
      want: { pending: false, seconds: 42 },
    },
    {
      name: "keep waiting on a Running pod that is not Ready yet",
      pod: pod({ phase: "Running", ready: { status: "False", at: readyAt } }),
      seenPending: true,
      want: { pending: true },
    },
    {
      name: "not observe a pod never seen Pending (it started before this process watched)",
      pod: pod({ phase: "Running", ready: { status: "True", at: readyAt } }),
      seenPending: false,
      want: { pending: false },
    },
    {
      name: "forget a pod that failed without becoming Ready",
      pod: pod({ phase: "Failed" }),
      seenPending: true,
      want: { pending: false },
    },
  ];
  for (const c of cases) void it(`should ${c.name}`, () => assert.deepEqual(startupStep(c.pod, c.seenPending), c.want));
});

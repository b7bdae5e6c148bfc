import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Node, Pod } from "../lifecycle/objects.ts";
import {
  NODE_LABELS,
  clusterUtilization,
  gaugeValue,
  nodeLifetimeSeconds,
  nodeResources,
  nodeSeriesLabels,
  podLimits,
  resourceType,
} from "./nodes.ts";

const node: Node = {
  metadata: {
    name: "ip-10-0-0-1",
    creationTimestamp: "2030-01-01T00:00:00Z",
    labels: {
      "karpenter.sh/nodepool": "default",
      "topology.kubernetes.io/zone": "us-east-1a",
      "kubernetes.io/arch": "amd64",
      "karpenter.k8s.aws/instance-cpu": "2",
      "topology.k8s.aws/zone-id": "use1-az1",
      unrelated: "x",
    },
  },
  status: {
    capacity: { cpu: "2", memory: "8Gi", pods: "29" },
    allocatable: { cpu: "1930m", memory: "7Gi", pods: "29" },
  },
};

const container = (requests: Record<string, string>, limits: Record<string, string> = {}): Record<string, unknown> => ({
  name: "c",
  resources: { requests, limits },
});
const pod = (o: { phase?: string; daemon?: boolean; containers: Record<string, unknown>[] }): Pod => ({
  metadata: {
    name: "p",
    namespace: "ns",
    ...(o.daemon === true
      ? { ownerReferences: [{ apiVersion: "apps/v1", kind: "DaemonSet", name: "ds", uid: "u" }] }
      : {}),
  },
  spec: { nodeName: "ip-10-0-0-1", containers: o.containers } as Pod["spec"],
  status: { phase: o.phase ?? "Running" },
});

void describe("the node gauges' labels", () => {
  void it("should name each well-known label as Karpenter does: the part after the slash, snake case", () => {
    const cases: [string, boolean][] = [
      ["zone", true],
      ["arch", true],
      ["nodepool", true],
      ["capacity_type", true],
      ["instance_type", true],
      ["instance_cpu", true],
      ["zone_id", true],
      ["instance_gpu_count", true],
      ["windows_build", true],
      ["node_name", true],
      ["phase", true],
      ["managed", true],
      ["resource_type", false],
      ["unrelated", false],
    ];
    for (const [label, present] of cases) assert.equal(NODE_LABELS.includes(label), present, label);
    assert.equal(NODE_LABELS.length, 39); // 36 well-known dimensions, node_name, phase, managed
  });

  void it('should fill a node\'s labels from its own, with "" for those it lacks', () => {
    const labels = nodeSeriesLabels(node);
    assert.deepEqual(Object.keys(labels).sort(), [...NODE_LABELS]);
    const cases: [string, string][] = [
      ["node_name", "ip-10-0-0-1"],
      ["zone", "us-east-1a"],
      ["instance_cpu", "2"],
      ["zone_id", "use1-az1"],
      ["nodepool", "default"],
      ["managed", "true"],
      ["capacity_type", ""],
      ["phase", ""],
    ];
    for (const [label, value] of cases) assert.equal(labels[label], value, label);
    assert.equal(nodeSeriesLabels({ metadata: { name: "kubelet-joined" } })["managed"], "false");
  });

  void it("should write resource names as Karpenter's resource_type", () => {
    const cases: [string, string][] = [
      ["cpu", "cpu"],
      ["ephemeral-storage", "ephemeral_storage"],
      ["nvidia.com/gpu", "nvidia.com/gpu"],
      ["hugepages-2Mi", "hugepages_2mi"],
    ];
    for (const [name, type] of cases) assert.equal(resourceType(name), type, name);
  });
});

void describe("the node gauges' values", () => {
  void it("should sum the requests and limits of the node's live pods, and of its DaemonSet pods apart", () => {
    const pods = [
      pod({ containers: [container({ cpu: "500m", memory: "1Gi" }, { cpu: "1", memory: "2Gi" })] }),
      pod({ daemon: true, containers: [container({ cpu: "100m", memory: "128Mi" }, { memory: "256Mi" })] }),
      pod({ phase: "Succeeded", containers: [container({ cpu: "4" })] }),
    ];
    const r = nodeResources(node, pods);
    assert.deepEqual(r.podRequests, { cpu: 600, memory: 1024 ** 3 + 128 * 1024 ** 2, pods: 2 });
    assert.deepEqual(r.podLimits, { cpu: 1000, memory: 2 * 1024 ** 3 + 256 * 1024 ** 2, pods: 2 });
    assert.deepEqual(r.daemonRequests, { cpu: 100, memory: 128 * 1024 ** 2, pods: 1 });
    assert.deepEqual(r.daemonLimits, { memory: 256 * 1024 ** 2, pods: 1 });
    assert.deepEqual(r.systemOverhead, { cpu: 70, memory: 1024 ** 3, pods: 0 });
    assert.equal(gaugeValue("cpu", r.allocatable["cpu"] ?? 0), 1.93);
    assert.equal(gaugeValue("memory", r.allocatable["memory"] ?? 0), 7 * 1024 ** 3);
  });

  void it("should take a pod's limits as the larger of its containers and each init container", () => {
    const cases: [string, Record<string, unknown>, Record<string, number>][] = [
      [
        "containers only",
        { containers: [container({}, { cpu: "1" }), container({}, { cpu: "2" })] },
        { cpu: 3000, pods: 1 },
      ],
      [
        "a larger init container",
        { initContainers: [container({}, { cpu: "5" })], containers: [container({}, { cpu: "1" })] },
        { cpu: 5000, pods: 1 },
      ],
      [
        "a sidecar adds to the containers",
        {
          initContainers: [{ ...container({}, { cpu: "1" }), restartPolicy: "Always" }],
          containers: [container({}, { cpu: "1" })],
        },
        { cpu: 2000, pods: 1 },
      ],
      ["overhead", { containers: [container({}, { cpu: "1" })], overhead: { cpu: "250m" } }, { cpu: 1250, pods: 1 }],
    ];
    for (const [what, spec, limits] of cases) assert.deepEqual(podLimits(spec), limits, what);
  });

  void it("should give the lifetime since creation and the cluster's utilization by resource", () => {
    assert.equal(nodeLifetimeSeconds(node, Date.parse("2030-01-01T01:00:00Z")), 3600);
    assert.equal(nodeLifetimeSeconds({ metadata: { name: "x" } }, 0), 0);
    const a = nodeResources(node, [pod({ containers: [container({ cpu: "965m" })] })]);
    const empty = nodeResources(node, []);
    assert.deepEqual(clusterUtilization([a, empty]), { cpu: 25, memory: 0, pods: 100 / 58 });
    assert.deepEqual(clusterUtilization([]), {});
  });
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Node, Pod } from "../../core/lifecycle/objects.ts";
import { createMetrics } from "../../observability/metrics.ts";
import { NODE_METRICS_PERIOD_MS, publishNodeMetrics, type NodeMetricsDeps } from "./nodes.ts";

const node = (name: string, cpu: string): Node => ({
  metadata: { name, creationTimestamp: "2030-01-01T00:00:00Z", labels: { "karpenter.sh/nodepool": "default" } },
  status: { capacity: { cpu, memory: "4Gi" }, allocatable: { cpu, memory: "3Gi" } },
});
const pod = (nodeName: string, cpu: string): Pod => ({
  metadata: { name: `p-${nodeName}`, namespace: "ns" },
  spec: { nodeName, containers: [{ name: "c", resources: { requests: { cpu } } }] } as Pod["spec"],
  status: { phase: "Running" },
});

/** The cluster reads as plain data: the Nodes and pods of one pass. */
function cluster(nodes: Node[], pods: Pod[], synced = true): NodeMetricsDeps["cluster"] {
  return { synced, nodes: () => nodes, podsOnNode: (n) => pods.filter((p) => p.spec?.nodeName === n) };
}

const clock = { now: () => new Date("2030-01-01T00:10:00Z") };

async function values(
  gauge: { get(): Promise<{ values: { labels: Record<string, unknown>; value: number }[] }> },
  label: string,
): Promise<Record<string, number>> {
  return Object.fromEntries((await gauge.get()).values.map((v) => [String(v.labels[label]), v.value]));
}

void describe("the metrics.node controller", () => {
  void it("should export each node's allocatable and pod requests per resource, its lifetime and the utilization", async () => {
    const metrics = createMetrics();
    const result = publishNodeMetrics({
      metrics,
      clock,
      cluster: cluster([node("a", "2"), node("b", "4")], [pod("a", "1"), pod("b", "500m")]),
    });
    assert.deepEqual(result, { requeueAfter: NODE_METRICS_PERIOD_MS });
    const cpu = (await metrics.nodesAllocatable.get()).values
      .filter((v) => v.labels["resource_type"] === "cpu")
      .map((v) => [v.labels["node_name"], v.value]);
    assert.deepEqual(cpu, [
      ["a", 2],
      ["b", 4],
    ]);
    const requests = (await metrics.nodesTotalPodRequests.get()).values.filter(
      (v) => v.labels["resource_type"] === "cpu",
    );
    assert.deepEqual(
      requests.map((v) => v.value),
      [1, 0.5],
    );
    assert.deepEqual(await values(metrics.nodesCurrentLifetime, "node_name"), { a: 600, b: 600 });
    assert.deepEqual(await values(metrics.nodesSystemOverhead, "resource_type"), { cpu: 0, memory: 1024 ** 3 });
    assert.equal((await values(metrics.clusterUtilization, "resource_type"))["cpu"], 25);
  });

  void it("should drop a deleted node's series on the next pass", async () => {
    const metrics = createMetrics();
    publishNodeMetrics({ metrics, clock, cluster: cluster([node("a", "2"), node("b", "4")], []) });
    publishNodeMetrics({ metrics, clock, cluster: cluster([node("b", "4")], []) });
    const names = new Set((await metrics.nodesAllocatable.get()).values.map((v) => v.labels["node_name"]));
    assert.deepEqual([...names], ["b"]);
    assert.deepEqual(Object.keys(await values(metrics.nodesCurrentLifetime, "node_name")), ["b"]);
  });

  void it("should wait for the cluster state to sync before it exports anything", async () => {
    const metrics = createMetrics();
    assert.deepEqual(publishNodeMetrics({ metrics, clock, cluster: cluster([node("a", "2")], [], false) }), {
      requeueAfter: 1000,
    });
    assert.deepEqual((await metrics.nodesAllocatable.get()).values, []);
  });
});

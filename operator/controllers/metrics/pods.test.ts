import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Node, Pod } from "../../core/lifecycle/objects.ts";
import { createMetrics } from "../../observability/metrics.ts";
import { PodMetrics, SWEEP, podKey, type PodMetricsDeps } from "./pods.ts";

/** An in-memory cluster the test edits between reconciles. */
type ClusterReads = PodMetricsDeps["cluster"];
class FakeCluster implements ClusterReads {
  synced = true;
  readonly podMap = new Map<string, Pod>();
  readonly nodeMap = new Map<string, Node>();
  pod(namespace: string, name: string): Pod | undefined {
    return this.podMap.get(`${namespace}/${name}`);
  }
  pods(): readonly Pod[] {
    return [...this.podMap.values()];
  }
  node(name: string): Node | undefined {
    return this.nodeMap.get(name);
  }
  podsOnNode(nodeName: string): readonly Pod[] {
    return this.pods().filter((p) => p.spec?.nodeName === nodeName);
  }
  put(p: Pod): string {
    this.podMap.set(podKey(p), p);
    return podKey(p);
  }
}

const pod = (name: string, phase: string, nodeName?: string, readyAt?: string): Pod => ({
  metadata: { name, namespace: "shop", creationTimestamp: "2030-01-01T00:00:00Z" },
  spec: nodeName === undefined ? {} : { nodeName },
  status: {
    phase,
    conditions: readyAt === undefined ? [] : [{ type: "Ready", status: "True", lastTransitionTime: readyAt }],
  },
});
const node = (zone: string): Node => ({
  metadata: { name: "n1", labels: { "topology.kubernetes.io/zone": zone, "karpenter.sh/nodepool": "default" } },
});

function setup(): { cluster: FakeCluster; metrics: ReturnType<typeof createMetrics>; pods: PodMetrics } {
  const cluster = new FakeCluster();
  const metrics = createMetrics();
  return { cluster, metrics, pods: new PodMetrics({ cluster, metrics }) };
}

async function series(metrics: ReturnType<typeof createMetrics>): Promise<Record<string, string | number>[]> {
  return (await metrics.podsState.get()).values.map((v) => ({
    name: String(v.labels["name"]),
    node: String(v.labels["node"]),
    zone: String(v.labels["zone"]),
    phase: String(v.labels["phase"]),
    value: v.value,
  }));
}

void describe("the karpenter_pods_state series", () => {
  void it("should export one series per pod and move it, not add one, when the pod's phase or node changes", async () => {
    const { cluster, metrics, pods } = setup();
    cluster.nodeMap.set("n1", node("us-east-1a"));
    const key = cluster.put(pod("web-1", "Pending"));
    pods.reconcile(key);
    assert.deepEqual(await series(metrics), [{ name: "web-1", node: "", zone: "", phase: "Pending", value: 1 }]);
    cluster.put(pod("web-1", "Running", "n1"));
    pods.reconcile(key);
    assert.deepEqual(await series(metrics), [
      { name: "web-1", node: "n1", zone: "us-east-1a", phase: "Running", value: 1 },
    ]);
  });

  void it("should remove the series when the pod goes away", async () => {
    const { cluster, metrics, pods } = setup();
    const key = cluster.put(pod("web-1", "Running"));
    pods.reconcile(key);
    cluster.podMap.delete(key);
    pods.reconcile(key);
    assert.deepEqual(await series(metrics), []);
    assert.equal(pods.size, 0);
  });

  void it("should relabel a Node's pods only when a label the series carry changes", async () => {
    const { cluster, metrics, pods } = setup();
    cluster.nodeMap.set("n1", node("us-east-1a"));
    const key = cluster.put(pod("web-1", "Running", "n1"));
    assert.deepEqual(pods.nodeChanged(node("us-east-1a"), "add"), [key]);
    pods.reconcile(key);
    assert.deepEqual(
      pods.nodeChanged(node("us-east-1a"), "update"),
      [],
      "a heartbeat changes nothing the series carry",
    );
    cluster.nodeMap.set("n1", node("us-east-1b"));
    assert.deepEqual(pods.nodeChanged(node("us-east-1b"), "update"), [key]);
    pods.reconcile(key);
    assert.deepEqual(
      (await series(metrics)).map((s) => s["zone"]),
      ["us-east-1b"],
    );
  });

  void it("should sweep on start: export every cached pod and drop series of pods deleted while not watching", async () => {
    const { cluster, metrics, pods } = setup();
    const gone = cluster.put(pod("gone", "Running"));
    pods.reconcile(gone);
    cluster.podMap.delete(gone);
    cluster.put(pod("web-1", "Running"));
    cluster.put(pod("web-2", "Pending"));
    assert.deepEqual(pods.reconcile(SWEEP), {});
    assert.deepEqual((await series(metrics)).map((s) => s["name"]).sort(), ["web-1", "web-2"]);
  });

  void it("should wait for the cluster state to sync before sweeping", () => {
    const { cluster, pods } = setup();
    cluster.synced = false;
    assert.deepEqual(pods.reconcile(SWEEP), { requeueAfter: 1000 });
  });
});

void describe("the karpenter_pods_startup_duration_seconds summary", () => {
  void it("should observe a pod seen Pending once, when it becomes Ready", async () => {
    const { cluster, metrics, pods } = setup();
    const key = cluster.put(pod("web-1", "Pending"));
    pods.reconcile(key);
    cluster.put(pod("web-1", "Running", "n1", "2030-01-01T00:00:30Z"));
    pods.reconcile(key);
    pods.reconcile(key);
    const values = (await metrics.podsStartupDuration.get()).values;
    assert.equal(values.find((v) => v.metricName === "karpenter_pods_startup_duration_seconds_count")?.value, 1);
    assert.equal(values.find((v) => v.metricName === "karpenter_pods_startup_duration_seconds_sum")?.value, 30);
  });
});

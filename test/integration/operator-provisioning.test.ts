import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { nodePoolHash } from "../../operator/core/nodepool/hash.ts";
import type { RunningOperator } from "../../operator/main.ts";
import { KubeletSim } from "../harness/kubelet-sim.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { CLUSTER } from "./aws-fixtures.ts";
import { replica } from "./operator-fixtures.ts";
import {
  NODECLAIMS,
  ON_DEMAND,
  WORKSHOP_FAMILIES,
  consistency,
  createInflate,
  createNodePool,
  isReady,
  liveInstances,
  nodeClaims,
  prepareCluster,
  runningPods,
  scaleInflate,
  type Claim,
} from "./provisioning-fixtures.ts";

const instanceTypeOf = (c: Claim): string => c.metadata.labels?.["node.kubernetes.io/instance-type"] ?? "";
const leaderOf = (replicas: readonly RunningOperator[]): RunningOperator => {
  const leader = replicas.find((r) => r.isLeader());
  assert.ok(leader !== undefined, "one replica leads");
  return leader;
};
/** The leader's karpenter_pods_state series of one namespace (only the leader runs controllers). */
const podStates = async (op: RunningOperator, namespace: string): Promise<Record<string, string>[]> =>
  (await op.metrics.podsState.get()).values
    .filter((v) => v.labels["namespace"] === namespace && v.value === 1)
    .map((v) => v.labels as Record<string, string>);
const created = async (op: RunningOperator): Promise<number> =>
  (await op.metrics.nodeClaimsCreated.get()).values.reduce((n, v) => n + v.value, 0);

void describe("the EKS workshop inflate scenario on the real apiserver, scheduler, kwok and moto", () => {
  let env: TestEnvironment;
  let replicas: RunningOperator[] = [];
  let sim: KubeletSim;
  let namespace: string;
  const started = performance.now();
  const log = (step: string): void =>
    console.log(`# ${step} at ${((performance.now() - started) / 1000).toFixed(1)} s`);

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    await prepareCluster(env);
    await createNodePool(env, "default", { requirements: [ON_DEMAND, WORKSHOP_FAMILIES], limits: { cpu: "100" } });
    // Two replicas on one Lease: only the leader may create NodeClaims.
    replicas = await Promise.all([replica(env, "workshop-a"), replica(env, "workshop-b")]);
    sim = new KubeletSim({ kubeConfig: env.kubeConfig, aws: env.aws(), clusterName: CLUSTER });
    sim.start();
    namespace = await createInflate(env, 0);
    log("set up");
  });
  after(async () => {
    await sim.stop();
    await Promise.all(replicas.map((r) => r.stop()));
  });

  void it("should run 5 replicas on one m5.large, the cheapest type whose allocatable memory holds five 1Gi pods", async () => {
    await scaleInflate(env, namespace, 5);
    const { pods, claims } = await eventually(
      "5 inflate pods Running on Ready NodeClaims",
      async () => {
        const [running, all] = await Promise.all([runningPods(env, namespace), nodeClaims(env)]);
        return running.length === 5 && all.length > 0 && all.every(isReady)
          ? { pods: running, claims: all }
          : undefined;
      },
      60_000,
      250,
    );
    log("5 replicas running");
    assert.equal(claims.length, 1);
    assert.ok(claims.every(isReady));
    assert.deepEqual(claims.map(instanceTypeOf), ["m5.large"]);
    assert.equal(claims[0]?.metadata.labels?.["karpenter.sh/nodepool"], "default");
    const instances = await liveInstances(env);
    assert.deepEqual(
      instances.map((i) => [i.type, i.nodeClaim, i.providerID]),
      [["m5.large", claims[0]?.metadata.name, claims[0]?.status?.providerID]],
    );
    assert.deepEqual([...new Set(pods.map((p) => p.node))], [claims[0]?.status?.nodeName]);

    // The NodePool carries the drift hash of its template, and the NodeClaim created from it the same two annotations.
    const pool = await eventually(
      "the NodePool to carry karpenter.sh/nodepool-hash",
      async () => {
        const np = (await env.kubeConfig
          .makeApiClient(CustomObjectsApi)
          .getClusterCustomObject({ group: "karpenter.sh", version: "v1", plural: "nodepools", name: "default" })) as {
          metadata: { annotations?: Record<string, string> };
          spec: Record<string, unknown>;
        };
        return np.metadata.annotations?.["karpenter.sh/nodepool-hash"] === undefined ? undefined : np;
      },
      10_000,
      100,
    );
    // karpenter_pods_state: one series per inflate pod, labelled with its phase, owner and its
    // Node's labels; startups observed.
    const node = await env.kubeConfig.makeApiClient(CoreV1Api).readNode({ name: claims[0]?.status?.nodeName ?? "" });
    const nodeLabels = node.metadata?.labels ?? {};
    const states = await eventually(
      "a Running karpenter_pods_state series per inflate pod",
      async () => {
        const all = await podStates(leaderOf(replicas), namespace);
        return all.length === 5 && all.every((s) => s["phase"] === "Running") ? all : undefined;
      },
      10_000,
      100,
    );
    assert.deepEqual(states.map((s) => s["name"]).sort(), pods.map((p) => p.name).sort());
    for (const s of states) {
      assert.match(s["owner"] ?? "", new RegExp(`^/apis/apps/v1/namespaces/${namespace}/replicasets/inflate-`));
      assert.deepEqual(
        [s["node"], s["nodepool"], s["instance_type"], s["capacity_type"], s["zone"], s["arch"]],
        [
          node.metadata?.name,
          "default",
          "m5.large",
          "on-demand",
          nodeLabels["topology.kubernetes.io/zone"] ?? "",
          nodeLabels["kubernetes.io/arch"] ?? "",
        ],
      );
    }
    const startups =
      (await leaderOf(replicas).metrics.podsStartupDuration.get()).values.find(
        (v) => v.metricName === "karpenter_pods_startup_duration_seconds_count",
      )?.value ?? 0;
    assert.ok(startups >= 5, `5 inflate pods seen Pending then Ready (${startups} observed)`);

    const stamp = { "karpenter.sh/nodepool-hash": nodePoolHash(pool), "karpenter.sh/nodepool-hash-version": "kerf-1" };
    assert.deepEqual(
      {
        "karpenter.sh/nodepool-hash": pool.metadata.annotations?.["karpenter.sh/nodepool-hash"],
        "karpenter.sh/nodepool-hash-version": pool.metadata.annotations?.["karpenter.sh/nodepool-hash-version"],
      },
      stamp,
    );
    const claimAnnotations =
      (claims[0]?.metadata as { annotations?: Record<string, string> } | undefined)?.annotations ?? {};
    assert.deepEqual(
      {
        "karpenter.sh/nodepool-hash": claimAnnotations["karpenter.sh/nodepool-hash"],
        "karpenter.sh/nodepool-hash-version": claimAnnotations["karpenter.sh/nodepool-hash-version"],
      },
      stamp,
    );
  });

  void it("should add one more m5.large when scaled to 12: the first node takes a sixth pod, six more fit a second m5.large", async () => {
    await scaleInflate(env, namespace, 12);
    const claims = await eventually(
      "12 inflate pods Running on Ready NodeClaims",
      async () => {
        const [running, all] = await Promise.all([runningPods(env, namespace), nodeClaims(env)]);
        return running.length === 12 && all.length > 1 && all.every(isReady) ? all : undefined;
      },
      60_000,
      250,
    );
    log("12 replicas running");
    assert.deepEqual(claims.map(instanceTypeOf).sort(), ["m5.large", "m5.large"]);
    assert.ok(claims.every(isReady));
    const { instances, leaked, withoutInstance } = await consistency(env);
    assert.deepEqual(instances.map((i) => i.type).sort(), ["m5.large", "m5.large"]);
    assert.deepEqual([leaked, withoutInstance], [[], []]);
    const counts = await Promise.all(replicas.map(created));
    assert.deepEqual(counts.sort(), [0, 2], "one replica created both NodeClaims, the other none");
  });

  void it("should drain and terminate a deleted NodeClaim's instance and give its pods a replacement", async () => {
    const victim = (await nodeClaims(env)).find((c) => c.status?.providerID !== undefined);
    assert.ok(victim !== undefined);
    const instanceID = victim.status?.providerID?.split("/").pop() ?? "";
    await env.kubeConfig
      .makeApiClient(CustomObjectsApi)
      .deleteClusterCustomObject({ ...NODECLAIMS, name: victim.metadata.name });
    await eventually(
      "the deleted NodeClaim's instance to be terminated and its Node gone",
      async () => {
        const live = await liveInstances(env);
        const nodes = await env.kubeConfig.makeApiClient(CoreV1Api).listNode();
        return (
          !live.some((i) => i.id === instanceID) &&
          !nodes.items.some((n) => n.metadata?.name === victim.status?.nodeName)
        );
      },
      60_000,
      250,
    );
    await eventually(
      "12 inflate pods Running again on two NodeClaims with an instance each",
      async () => {
        const { claims, leaked, withoutInstance } = await consistency(env);
        return (
          (await runningPods(env, namespace)).length === 12 &&
          claims.length === 2 &&
          claims.every(isReady) &&
          leaked.length === 0 &&
          withoutInstance.length === 0
        );
      },
      60_000,
      250,
    );
    log("replacement running");
    assert.ok(!(await nodeClaims(env)).some((c) => c.metadata.name === victim.metadata.name));
    // The drained pods' karpenter_pods_state series went with them: exactly one series per pod that exists.
    await eventually(
      "karpenter_pods_state to hold exactly the inflate pods that exist",
      async () => {
        const [states, existing] = await Promise.all([
          podStates(leaderOf(replicas), namespace),
          env.kubeConfig.makeApiClient(CoreV1Api).listNamespacedPod({ namespace }),
        ]);
        return (
          JSON.stringify(states.map((s) => s["name"]).sort()) ===
          JSON.stringify(existing.items.map((p) => p.metadata?.name).sort())
        );
      },
      30_000,
      250,
    );
  });
});

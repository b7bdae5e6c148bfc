import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { AppsV1Api, CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { mergePatch } from "../../operator/adapters/kube/client.ts";
import type { RunningOperator } from "../../operator/main.ts";
import { createTestNamespace } from "../harness/reset.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { replica } from "./operator-fixtures.ts";
import {
  ON_DEMAND,
  WORKSHOP_FAMILIES,
  isReady,
  nodeClaims,
  runOperatorOnCluster,
  runningPods,
  type Claim,
  type OperatorOnCluster,
} from "./provisioning-fixtures.ts";

const PAUSE = "public.ecr.aws/eks-distro/kubernetes/pause:3.7";
const NODEPOOLS = { group: "karpenter.sh", version: "v1", plural: "nodepools" } as const;

async function createStaticPool(env: TestEnvironment, name: string, replicas: number): Promise<void> {
  await env.kubeConfig.makeApiClient(CustomObjectsApi).createClusterCustomObject({
    ...NODEPOOLS,
    body: {
      apiVersion: "karpenter.sh/v1",
      kind: "NodePool",
      metadata: { name },
      spec: {
        replicas,
        template: {
          metadata: { labels: { role: name } },
          spec: {
            nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
            requirements: [ON_DEMAND, WORKSHOP_FAMILIES],
          },
        },
      },
    },
  });
}

async function scalePool(env: TestEnvironment, name: string, replicas: number): Promise<void> {
  const api = env.kubeConfig.makeApiClient(CustomObjectsApi);
  await api.patchClusterCustomObject({ ...NODEPOOLS, name, body: { spec: { replicas } } }, mergePatch);
}

async function poolStatusNodes(env: TestEnvironment, name: string): Promise<number | undefined> {
  const api = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const pool = (await api.getClusterCustomObject({ ...NODEPOOLS, name })) as { status?: { nodes?: number } };
  return pool.status?.nodes;
}

const ofPool = (claims: readonly Claim[], pool: string): Claim[] =>
  claims.filter((c) => c.metadata.labels?.["karpenter.sh/nodepool"] === pool);
const live = (claims: readonly Claim[]): Claim[] => claims.filter((c) => c.metadata.deletionTimestamp === undefined);

/** Waits until the pool has exactly `count` NodeClaims, none deleting, all Ready with a Node; status.nodes agrees. */
function poolAt(env: TestEnvironment, pool: string, count: number): Promise<Claim[]> {
  return eventually(
    `NodePool ${pool} at ${count} Ready NodeClaims with Nodes`,
    async () => {
      const claims = ofPool(await nodeClaims(env), pool);
      const selector = { labelSelector: `karpenter.sh/nodepool=${pool}` };
      const nodes = (await env.kubeConfig.makeApiClient(CoreV1Api).listNode(selector)).items;
      const ok =
        claims.length === count &&
        live(claims).length === count &&
        claims.every(isReady) &&
        nodes.length === count &&
        (await poolStatusNodes(env, pool)) === count;
      return ok ? claims : undefined;
    },
    120_000,
    250,
  );
}

/** A Deployment of one pause pod on the pool's nodes requesting `memory`; returns its namespace. */
async function podOnPool(env: TestEnvironment, pool: string, name: string, memory: string): Promise<string> {
  const namespace = await createTestNamespace(env.kubeConfig, name);
  await env.kubeConfig.makeApiClient(AppsV1Api).createNamespacedDeployment({
    namespace,
    body: {
      metadata: { name },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: {
            nodeSelector: { "karpenter.sh/nodepool": pool },
            terminationGracePeriodSeconds: 0,
            containers: [{ name, image: PAUSE, resources: { requests: { memory } } }],
          },
        },
      },
    },
  });
  return namespace;
}

async function events(
  env: TestEnvironment,
  namespace: string,
  reason: string,
  involved?: string,
): Promise<{ message: string; name: string }[]> {
  const selector = `reason=${reason}${involved === undefined ? "" : `,involvedObject.name=${involved}`}`;
  const api = env.kubeConfig.makeApiClient(CoreV1Api);
  const list = await api.listNamespacedEvent({ namespace, fieldSelector: selector });
  return list.items.map((e) => ({ message: e.message ?? "", name: e.involvedObject.name ?? "" }));
}

void describe("static NodePools (spec.replicas) on the real apiserver, scheduler, kwok and moto", () => {
  let env: TestEnvironment;
  let running: OperatorOnCluster | undefined;
  let gateOff: RunningOperator | undefined;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    const fast = { disruption: { pollMs: 1000, validationDelayMs: 2000 } };
    running = await runOperatorOnCluster(env, "static", { FEATURE_GATES: "StaticCapacity=true" }, fast);
  });
  after(async () => {
    await running?.stop();
    await gateOff?.stop();
  });

  void it("should launch 2 NodeClaims for replicas 2, from the template, with no instance-type list", async () => {
    await createStaticPool(env, "fixed", 2);
    const claims = await poolAt(env, "fixed", 2);
    for (const c of claims) {
      assert.equal(c.metadata.labels?.["role"], "fixed", "the template's labels");
      assert.ok(
        !c.spec.requirements.some((r) => r.key === "node.kubernetes.io/instance-type"),
        "the launch picks the cheapest type",
      );
    }
  });

  void it("should launch a third NodeClaim when replicas goes to 3", async () => {
    await scalePool(env, "fixed", 3);
    await poolAt(env, "fixed", 3);
  });

  void it("should keep the node running a pod and remove the empty ones when replicas goes to 1", async () => {
    const namespace = await podOnPool(env, "fixed", "small", "1Gi");
    const [pod] = await eventually(
      "the small pod Running on a static node",
      async () => {
        const pods = await runningPods(env, namespace);
        return pods.length === 1 ? pods : undefined;
      },
      60_000,
      250,
    );
    await scalePool(env, "fixed", 1);
    const [kept] = await poolAt(env, "fixed", 1);
    assert.equal(kept?.status?.nodeName, pod?.node, "scale-down removes empty nodes first");
  });

  void it("should launch no static node for a pending pod that fits no static node", async () => {
    const namespace = await podOnPool(env, "fixed", "big", "64Gi");
    const failed = await eventually(
      "kerf's FailedScheduling Event for the pod that fits no static node",
      async () => {
        const all = await events(env, namespace, "FailedScheduling");
        const own = all.filter((e) => e.message.startsWith("Failed to schedule pod,"));
        return own.length > 0 ? own : undefined;
      },
      60_000,
      250,
    );
    assert.ok(failed.length > 0);
    const claims = await nodeClaims(env);
    assert.equal(claims.length, 1, `only the static NodeClaim: ${claims.map((c) => c.metadata.name).join(", ")}`);
    assert.equal((await runningPods(env, namespace)).length, 0);
  });

  void it("should replace the drifted static node one for one when the template changes (StaticDrift)", async () => {
    const [before] = ofPool(await nodeClaims(env), "fixed");
    assert.ok(before !== undefined);
    await env.kubeConfig.makeApiClient(CustomObjectsApi).patchClusterCustomObject(
      {
        ...NODEPOOLS,
        name: "fixed",
        body: { spec: { template: { metadata: { labels: { role: "fixed", release: "2" } } } } },
      },
      mergePatch,
    );
    const [after] = await eventually(
      "the drifted NodeClaim replaced by one carrying the new template",
      async () => {
        const claims = ofPool(await nodeClaims(env), "fixed");
        const [only] = claims;
        const ok =
          claims.length === 1 &&
          only !== undefined &&
          only.metadata.name !== before.metadata.name &&
          only.metadata.labels?.["release"] === "2" &&
          isReady(only);
        return ok ? claims : undefined;
      },
      120_000,
      250,
    );
    assert.ok(after !== undefined);
    await poolAt(env, "fixed", 1);
    const disrupted = (await running?.operator.metrics.nodeClaimsDisrupted.get())?.values ?? [];
    const drifted = disrupted.filter((v) => v.labels["reason"] === "drifted" && v.labels["nodepool"] === "fixed");
    assert.equal(
      drifted.reduce((n, v) => n + v.value, 0),
      1,
      "one static node disrupted for drift",
    );
  });

  void it("should launch nothing with the StaticCapacity gate off, and say so in a NodePool Event", async () => {
    await running?.stop();
    running = undefined;
    gateOff = await replica(env, "static-gate-off", { DISABLE_LEADER_ELECTION: "true" });
    await createStaticPool(env, "dormant", 2);
    const told = await eventually(
      "a StaticCapacityDisabled Event on NodePool dormant",
      async () => {
        const found = await events(env, "default", "StaticCapacityDisabled", "dormant");
        return found.length > 0 ? found : undefined;
      },
      60_000,
      250,
    );
    assert.match(told[0]?.message ?? "", /StaticCapacity feature gate is off/);
    assert.deepEqual(ofPool(await nodeClaims(env), "dormant"), []);
  });
});

/**
 * A burst of whole-CPU pods under NodePool limits, end to end: the workshop's `inflate` shape (pause
 * pods requesting cpu: 1, memory: 1.5Gi) scaled 0 → 100 → 300 on a spot + on-demand c/m/r NodePool
 * with limits of 1000 CPU and 1000Gi. One NodeClaim per pod was the old plan (100 NodeClaims, 100
 * CreateFleet calls, $2.12/h); Karpenter v1.15 launched one m8id.32xlarge spot at $1.19/h for the
 * first hundred. The fault proxy in front of moto only records the CreateFleet requests (no faults).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { AppsV1Api } from "@kubernetes/client-node";
import { mergePatch } from "../../operator/adapters/kube/client.ts";
import { builtinCatalog } from "../../policies/domain/catalog/builtin.ts";
import { toInstanceTypes } from "../../policies/domain/catalog/catalog.ts";
import type { RunningOperator } from "../../operator/main.ts";
import { startFaultProxy, type FaultProxy } from "../harness/fault-proxy.ts";
import { createTestNamespace } from "../harness/reset.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { consistency, createNodePool, isReady, runOperatorOnCluster, runningPods } from "./provisioning-fixtures.ts";
import type { Claim, OperatorOnCluster } from "./provisioning-fixtures.ts";

const catalog = new Map(toInstanceTypes(builtinCatalog()).map((t) => [t.name, t]));
const LIMITS = { cpu: "1000", memory: "1000Gi" };
const typesOf = (claims: readonly Claim[]): string =>
  claims.map((c) => c.metadata.labels?.["node.kubernetes.io/instance-type"]).join(", ");

/** The catalog price of what a NodeClaim launched (its instance type, zone and capacity type). */
function pricePerHour(claim: Claim): number {
  const labels = claim.metadata.labels ?? {};
  const [zone, capacityType] = [labels["topology.kubernetes.io/zone"], labels["karpenter.sh/capacity-type"]];
  const offering = catalog
    .get(labels["node.kubernetes.io/instance-type"] ?? "")
    ?.offerings.find((o) => o.zone === zone && o.capacityType === capacityType);
  assert.ok(offering !== undefined, `no catalog offering for ${JSON.stringify(labels)}`);
  return offering.pricePerHour;
}

void describe("a burst of whole-CPU pods under NodePool limits", () => {
  let env: TestEnvironment;
  let proxy: FaultProxy;
  let running: OperatorOnCluster;
  let operator: RunningOperator;
  let namespace: string;

  const scale = async (replicas: number): Promise<void> => {
    const body = { spec: { replicas } };
    const apps = env.kubeConfig.makeApiClient(AppsV1Api);
    await apps.patchNamespacedDeployment({ name: "inflate", namespace, body }, mergePatch);
  };
  /** The burst pool's NodeClaims when `pods` pods run on them, all Ready, with no leaked instance; else undefined. */
  const burstState = async (pods: number): Promise<Claim[] | undefined> => {
    const [state, running_] = await Promise.all([consistency(env), runningPods(env, namespace)]);
    // Only this pool's objects: what earlier test files left behind in the shared environment is theirs.
    const ours = (c: Claim): boolean => c.metadata.labels?.["karpenter.sh/nodepool"] === "burst";
    const claims = state.claims.filter(ours);
    const leaked = state.leaked.filter((i) => i.nodeClaim.startsWith("burst-"));
    const clean = leaked.length === 0 && !state.withoutInstance.some(ours);
    return running_.length === pods && claims.length > 0 && claims.every(isReady) && clean ? claims : undefined;
  };
  const settled = (pods: number): Promise<Claim[]> =>
    eventually(`${pods} inflate pods Running on Ready NodeClaims`, () => burstState(pods), 180_000, 500);
  const created = async (): Promise<number> =>
    (await operator.metrics.nodeClaimsCreated.get()).values.reduce((n, v) => n + v.value, 0);

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    proxy = await startFaultProxy(env.aws().endpoint);
    running = await runOperatorOnCluster(env, "burst", { AWS_ENDPOINT_URL: proxy.url });
    operator = running.operator;
    await createNodePool(env, "burst", {
      requirements: [
        { key: "karpenter.k8s.aws/instance-category", operator: "In", values: ["c", "m", "r"] },
        { key: "karpenter.sh/capacity-type", operator: "In", values: ["spot", "on-demand"] },
      ],
      limits: LIMITS,
    });
    namespace = await createTestNamespace(env.kubeConfig, "burst");
    await env.kubeConfig.makeApiClient(AppsV1Api).createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: "inflate" },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: "inflate" } },
          template: {
            metadata: { labels: { app: "inflate" } },
            spec: {
              terminationGracePeriodSeconds: 0,
              containers: [
                {
                  name: "inflate",
                  image: "public.ecr.aws/eks-distro/kubernetes/pause:3.7",
                  resources: { requests: { cpu: "1", memory: "1.5Gi" } },
                },
              ],
            },
          },
        },
      },
    });
  });
  after(async () => {
    await running.stop();
    await proxy.stop();
  });

  void it("should run 100 pods on at most three NodeClaims, one CreateFleet each, for less than Karpenter's $1.19/h", async () => {
    await scale(100);
    const claims = await settled(100);
    const total = claims.reduce((s, c) => s + pricePerHour(c), 0);
    console.log(`# 100 pods: ${typesOf(claims)}, $${total.toFixed(4)}/h`);
    assert.ok(claims.length <= 3, `${claims.length} NodeClaims`);
    assert.equal(await created(), claims.length, "no NodeClaim was created and dropped on the way");
    assert.equal(proxy.createFleetRequests.length, claims.length, "one CreateFleet per NodeClaim");
    assert.ok(total < 1.19, `$${total.toFixed(4)}/h`);
  });

  void it("should add the next 200 pods in one go within the NodePool's limits", async () => {
    const before_ = (await settled(100)).length;
    await scale(300);
    const claims = await settled(300);
    const added = claims.length - before_;
    const capacity = (c: Claim, key: string): number => {
      const status = c.status as { capacity?: Record<string, string> } | undefined;
      return Number.parseFloat(String(status?.capacity?.[key] ?? "0"));
    };
    const sum = (key: string): number => claims.reduce((s, c) => s + capacity(c, key), 0);
    console.log(`# 300 pods: ${claims.length} NodeClaims (${added} added), cpu ${sum("cpu")}, ${typesOf(claims)}`);
    assert.ok(added >= 1 && added <= 3, `${added} NodeClaims added`);
    assert.equal(proxy.createFleetRequests.length, claims.length, "one CreateFleet per NodeClaim");
    assert.ok(sum("cpu") <= 1000, `cpu capacity ${sum("cpu")} within the limit`);
  });
});

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { DescribeInstancesCommand } from "@aws-sdk/client-ec2";
import { AppsV1Api, CoreV1Api, CustomObjectsApi, PolicyV1Api } from "@kubernetes/client-node";
import type { RunningOperator } from "../../operator/main.ts";
import { createTestNamespace } from "../harness/reset.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { clients } from "./aws-fixtures.ts";
import {
  NODECLAIMS,
  runOperatorOnCluster,
  type OperatorOnCluster,
  createM5NodeClaim,
} from "./provisioning-fixtures.ts";

interface Claim {
  metadata?: { finalizers?: string[] };
  status?: { providerID?: string; nodeName?: string; conditions?: { type: string; status: string }[] };
}
const condition = (c: Claim, type: string): boolean =>
  c.status?.conditions?.some((x) => x.type === type && x.status === "True") ?? false;

void describe("NodeClaim lifecycle on the real apiserver, kwok and moto", () => {
  let env: TestEnvironment;
  let running: OperatorOnCluster;
  let operator: RunningOperator;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    running = await runOperatorOnCluster(env, "lifecycle");
    operator = running.operator;
  });
  after(async () => {
    await running.stop();
  });

  void it("should launch, register and initialize a NodeClaim, then drain it past a PDB and terminate its instance on delete", async () => {
    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    await createM5NodeClaim(env, "lifecycle-a", { zone: "us-east-1a" });
    const ready = await eventually(
      "the NodeClaim to be Launched, Registered and Initialized",
      async () => {
        const c = (await custom.getClusterCustomObject({ ...NODECLAIMS, name: "lifecycle-a" })) as Claim;
        return condition(c, "Launched") &&
          condition(c, "Registered") &&
          condition(c, "Initialized") &&
          condition(c, "Ready")
          ? c
          : undefined;
      },
      120_000,
      250,
    );
    const providerID = ready.status?.providerID ?? "";
    const instanceID = providerID.split("/").pop() ?? "";
    assert.match(providerID, /^aws:\/\/\/us-east-1a\/i-/);
    assert.deepEqual(ready.metadata?.finalizers, ["karpenter.sh/termination"]);
    const node = await core.readNode({ name: ready.status?.nodeName ?? "" });
    assert.equal(node.spec?.providerID, providerID);
    assert.equal(node.metadata?.labels?.["karpenter.sh/registered"], "true");
    assert.equal(node.metadata?.labels?.["karpenter.sh/initialized"], "true");
    assert.equal(node.metadata?.labels?.["karpenter.sh/nodepool"], "default");
    assert.equal(node.metadata?.labels?.["node.kubernetes.io/instance-type"], "m5.large");
    assert.deepEqual(node.spec?.taints ?? [], []);
    assert.ok(node.metadata?.finalizers?.includes("karpenter.sh/termination"));

    // Two replicas behind a PDB that allows one disruption at a time; a spare Node takes the replacements.
    const namespace = await createTestNamespace(env.kubeConfig, "operator-drain");
    await env.kubeConfig.makeApiClient(AppsV1Api).createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: "web" },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: "web" } },
          template: {
            metadata: { labels: { app: "web" } },
            spec: {
              containers: [
                { name: "pause", image: "registry.k8s.io/pause:3.10", resources: { requests: { cpu: "100m" } } },
              ],
            },
          },
        },
      },
    });
    const policy = env.kubeConfig.makeApiClient(PolicyV1Api);
    await policy.createNamespacedPodDisruptionBudget({
      namespace,
      body: { metadata: { name: "web" }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: "web" } } } },
    });
    await eventually(
      "2 web pods running on the NodeClaim's node",
      async () => {
        const pods = await core.listNamespacedPod({ namespace });
        return (
          pods.items.filter((p) => p.status?.phase === "Running" && p.spec?.nodeName === node.metadata?.name).length ===
          2
        );
      },
      60_000,
    );
    await core.createNode({
      body: {
        metadata: {
          name: "spare",
          annotations: { "kwok.x-k8s.io/node": "fake" },
          labels: { "kubernetes.io/hostname": "spare" },
        },
        status: {
          capacity: { cpu: "8", memory: "32Gi", pods: "110" },
          allocatable: { cpu: "8", memory: "32Gi", pods: "110" },
        },
      },
    });
    await eventually(
      "the spare Node to be Ready",
      async () =>
        (await core.readNode({ name: "spare" })).status?.conditions?.some(
          (c) => c.type === "Ready" && c.status === "True",
        ),
      60_000,
    );

    await custom.deleteClusterCustomObject({ ...NODECLAIMS, name: "lifecycle-a" });
    await eventually(
      "the NodeClaim to be gone",
      async () => {
        try {
          await custom.getClusterCustomObject({ ...NODECLAIMS, name: "lifecycle-a" });
          return false;
        } catch (e) {
          return (e as { code?: number }).code === 404;
        }
      },
      120_000,
      250,
    );
    await assert.rejects(core.readNode({ name: node.metadata?.name ?? "" }), (e: { code?: number }) => e.code === 404);
    const pods = await core.listNamespacedPod({ namespace });
    assert.deepEqual(
      pods.items
        .filter((p) => p.metadata?.deletionTimestamp === undefined)
        .map((p) => p.spec?.nodeName ?? "pending")
        .filter((n) => n !== "spare"),
      [],
    );
    const described = await clients(env.aws()).ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceID] }));
    assert.equal(described.Reservations?.[0]?.Instances?.[0]?.State?.Name, "terminated");
    const evictions = await operator.metrics.podsEvictionRequests.get();
    assert.ok(
      evictions.values.some((v) => v.labels["code"] === "200" && v.value >= 2),
      "two evictions went through",
    );
  });
});

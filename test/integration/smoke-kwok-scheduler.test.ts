import { before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { AppsV1Api, CoreV1Api } from "@kubernetes/client-node";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { createTestNamespace } from "../harness/reset.ts";
import { eventually } from "../harness/wait.ts";

describe("kube-scheduler, kube-controller-manager and kwok", () => {
  let env: TestEnvironment;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true });
  });

  it("runs a Deployment of 3 pause pods on a kwok Node", async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const apps = env.kubeConfig.makeApiClient(AppsV1Api);
    await core.createNode({
      body: {
        metadata: {
          name: "kwok-node-1",
          annotations: { "kwok.x-k8s.io/node": "fake" },
          labels: { "kubernetes.io/hostname": "kwok-node-1", type: "kwok" },
        },
        spec: { providerID: "kwok://kwok-node-1" },
        status: {
          capacity: { cpu: "8", memory: "32Gi", pods: "110" },
          allocatable: { cpu: "8", memory: "32Gi", pods: "110" },
        },
      },
    });
    await eventually(
      "the kwok Node to be Ready",
      async () => {
        const node = await core.readNode({ name: "kwok-node-1" });
        return node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");
      },
      60_000,
    );
    const namespace = await createTestNamespace(env.kubeConfig, "smoke-kwok");
    await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: "inflate" },
        spec: {
          replicas: 3,
          selector: { matchLabels: { app: "inflate" } },
          template: {
            metadata: { labels: { app: "inflate" } },
            spec: {
              containers: [
                {
                  name: "pause",
                  image: "registry.k8s.io/pause:3.10",
                  resources: { requests: { cpu: "100m", memory: "64Mi" } },
                },
              ],
            },
          },
        },
      },
    });
    const pods = await eventually(
      "3 Running pods",
      async () => {
        const list = await core.listNamespacedPod({ namespace, labelSelector: "app=inflate" });
        const running = list.items.filter((p) => p.status?.phase === "Running");
        return running.length === 3 ? running : undefined;
      },
      90_000,
    );
    assert.deepEqual(
      pods.map((p) => p.spec?.nodeName),
      ["kwok-node-1", "kwok-node-1", "kwok-node-1"],
    );
  });
});

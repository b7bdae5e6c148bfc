/**
 * Disruption parity on the real environment (issue 21, review S9–S17): a node whose only pod is a
 * terminating StatefulSet pod keeps its node (S13, Karpenter's IsReschedulable and emptiness_test.go
 * "will not consider a node with a terminating StatefulSet pod as empty"). A bare pod held terminating
 * the same way on another pool's node is the control: emptiness deletes that node, which shows passes
 * ran after both pods started terminating, so the StatefulSet node staying is the decision, not a delay.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { AppsV1Api, CoreV1Api, type V1PodSpec } from "@kubernetes/client-node";
import { mergePatch } from "../../operator/adapters/kube/client.ts";
import { createTestNamespace } from "../harness/reset.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { createPool, ofPool, ready } from "./disruption-fixtures.ts";
import { runOperatorOnCluster, type Claim, type OperatorOnCluster } from "./provisioning-fixtures.ts";

const FAST = { disruption: { pollMs: 1000, validationDelayMs: 2000 } };
const HOLD = "kerf.test/hold";
const PAUSE = "public.ecr.aws/eks-distro/kubernetes/pause:3.7";

const podSpec = (pool: string): V1PodSpec => ({
  terminationGracePeriodSeconds: 0,
  nodeSelector: { "karpenter.sh/nodepool": pool },
  containers: [{ name: "pause", image: PAUSE, resources: { requests: { memory: "1Gi" } } }],
});

/** The namespace's one Running pod and its node's NodeClaim, once that NodeClaim is initialized. */
async function placed(env: TestEnvironment, pool: string, namespace: string): Promise<{ pod: string; claim: Claim }> {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  return eventually(
    `a pod of ${namespace} Running on an initialized NodeClaim of ${pool}`,
    async () => {
      const pod = (await core.listNamespacedPod({ namespace })).items.find((p) => p.status?.phase === "Running");
      const claim = (await ofPool(env, pool)).find((c) => c.status?.nodeName === pod?.spec?.nodeName);
      if (pod === undefined || claim === undefined || !ready(claim)) return undefined;
      return { pod: pod.metadata?.name ?? "", claim };
    },
    90_000,
    250,
  );
}

/** Holds the pod with a finalizer, then deletes it: it stays Terminating on its node. */
async function holdTerminating(env: TestEnvironment, namespace: string, name: string): Promise<void> {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  await core.patchNamespacedPod({ namespace, name, body: { metadata: { finalizers: [HOLD] } } }, mergePatch);
  await core.deleteNamespacedPod({ namespace, name });
}

async function release(env: TestEnvironment, namespace: string, name: string): Promise<void> {
  await env.kubeConfig
    .makeApiClient(CoreV1Api)
    .patchNamespacedPod({ namespace, name, body: { metadata: { finalizers: null } } }, mergePatch)
    .catch(() => undefined);
}

void describe("disruption parity S9–S17 on the real environment", () => {
  let env: TestEnvironment;
  let op: OperatorOnCluster;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    op = await runOperatorOnCluster(env, "disruption-s9-s17", {}, FAST);
  });
  after(async () => {
    await op.stop();
  });

  void it("should keep a node whose only pod is a terminating StatefulSet pod (a bare pod's node goes)", async () => {
    await createPool(env, "stateful", { budgets: [{ nodes: "100%" }] });
    await createPool(env, "bare", { budgets: [{ nodes: "100%" }] });
    const statefulNs = await createTestNamespace(env.kubeConfig, "stateful");
    const bareNs = await createTestNamespace(env.kubeConfig, "bare");
    const labels = { app: "stateful" };
    await env.kubeConfig.makeApiClient(AppsV1Api).createNamespacedStatefulSet({
      namespace: statefulNs,
      body: {
        metadata: { name: "web" },
        spec: {
          serviceName: "web",
          replicas: 1,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: podSpec("stateful") },
        },
      },
    });
    await env.kubeConfig.makeApiClient(CoreV1Api).createNamespacedPod({
      namespace: bareNs,
      body: {
        metadata: { name: "solo" },
        spec: podSpec("bare"),
      },
    });
    const stateful = await placed(env, "stateful", statefulNs);
    const bare = await placed(env, "bare", bareNs);
    try {
      await holdTerminating(env, statefulNs, stateful.pod);
      await holdTerminating(env, bareNs, bare.pod);
      const what = "the bare pod's node is being deleted (emptiness ran after both pods began terminating)";
      await eventually(
        what,
        async () => {
          const claim = (await ofPool(env, "bare")).find((c) => c.metadata.name === bare.claim.metadata.name);
          return claim === undefined || claim.metadata.deletionTimestamp !== undefined;
        },
        60_000,
        250,
      );
      const kept = (await ofPool(env, "stateful")).find((c) => c.metadata.name === stateful.claim.metadata.name);
      const stays = kept !== undefined && kept.metadata.deletionTimestamp === undefined;
      assert.ok(stays, "the StatefulSet pod's node stays");
      const core = env.kubeConfig.makeApiClient(CoreV1Api);
      const pod = await core.readNamespacedPod({ namespace: statefulNs, name: stateful.pod });
      assert.ok(pod.metadata?.deletionTimestamp !== undefined, "its pod still terminating when the other node went");
    } finally {
      await release(env, statefulNs, stateful.pod);
      await release(env, bareNs, bare.pod);
    }
  });
});

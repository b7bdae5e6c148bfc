/**
 * Expiration end to end (real apiserver, scheduler, kubelet simulation, moto): a NodeClaim older than
 * its NodePool's expireAfter is deleted — drained, its instance terminated — and the pods get a new
 * NodeClaim, with the `expired` disruption reason in the metrics and an Event on the NodeClaim.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import type { RunningOperator } from "../../operator/main.ts";
import { KubeletSim } from "../harness/kubelet-sim.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { CLUSTER } from "./aws-fixtures.ts";
import { replica } from "./operator-fixtures.ts";
import { consistency, createInflate, isReady, liveInstances, ON_DEMAND, prepareCluster, runningPods, WORKSHOP_FAMILIES } from "./provisioning-fixtures.ts";

const EXPIRE_AFTER_S = 15;

void describe("NodeClaim expiration on the real environment", () => {
  let env: TestEnvironment;
  let operator: RunningOperator;
  let sim: KubeletSim;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    await prepareCluster(env);
    operator = await replica(env, "expiration", { DISABLE_LEADER_ELECTION: "true" });
    sim = new KubeletSim({ kubeConfig: env.kubeConfig, aws: env.aws(), clusterName: CLUSTER });
    sim.start();
  });
  after(async () => { await sim.stop(); await operator.stop(); });

  void it(`should replace a NodeClaim ${EXPIRE_AFTER_S} s after its creation when the NodePool says expireAfter: ${EXPIRE_AFTER_S}s`, async () => {
    await env.kubeConfig.makeApiClient(CustomObjectsApi).createClusterCustomObject({ group: "karpenter.sh", version: "v1", plural: "nodepools", body: {
      apiVersion: "karpenter.sh/v1", kind: "NodePool", metadata: { name: "short-lived" },
      spec: { template: { spec: { nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" }, expireAfter: `${EXPIRE_AFTER_S}s`, requirements: [ON_DEMAND, WORKSHOP_FAMILIES] } } },
    } });
    const namespace = await createInflate(env, 2);
    const first = await eventually("2 pods Running on one Ready NodeClaim", async () => {
      const { claims } = await consistency(env);
      return (await runningPods(env, namespace)).length === 2 && claims.length === 1 && isReady(claims[0]!) ? claims[0] : undefined;
    }, 60_000, 250);
    const firstInstance = first.status?.providerID ?? "";
    const createdAt = Date.now();

    const replacement = await eventually("the pods Running on a new Ready NodeClaim after the first expired", async () => {
      const { claims, leaked, withoutInstance } = await consistency(env);
      const running = await runningPods(env, namespace);
      const ok = running.length === 2 && claims.length === 1 && claims[0]?.metadata.name !== first.metadata.name && isReady(claims[0]!) && leaked.length === 0 && withoutInstance.length === 0;
      return ok ? claims[0] : undefined;
    }, 90_000, 250);
    assert.ok(Date.now() - createdAt >= (EXPIRE_AFTER_S - 5) * 1000, "not replaced long before it expired");
    assert.ok(!(await liveInstances(env)).some((i) => i.providerID === firstInstance), "the expired NodeClaim's instance is terminated");
    assert.equal(replacement.metadata.labels?.["karpenter.sh/nodepool"], "short-lived");
    const expired = (await operator.metrics.nodeClaimsDisrupted.get()).values.filter((v) => v.labels["reason"] === "expired");
    assert.ok(expired.reduce((n, v) => n + v.value, 0) >= 1);
    const events = await env.kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace: "default", fieldSelector: `involvedObject.name=${first.metadata.name},reason=Disrupted` });
    assert.ok(events.items.some((e) => e.message === "Disrupting NodeClaim: expired"), "a Disrupted event says why");
  });
});

/**
 * Expiration end to end (real apiserver, scheduler, kubelet simulation, moto): a NodeClaim older than
 * its NodePool's expireAfter is deleted — drained, its instance terminated — and the pods get a new
 * NodeClaim, with the `expired` disruption reason in the metrics and an Event on the NodeClaim.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import {
  createInflate,
  liveInstances,
  ON_DEMAND,
  replacementClaim,
  runOperatorOnCluster,
  singleReadyClaim,
  WORKSHOP_FAMILIES,
  type OperatorOnCluster,
} from "./provisioning-fixtures.ts";

const EXPIRE_AFTER_S = 15;

void describe("NodeClaim expiration on the real environment", () => {
  let env: TestEnvironment;
  let running: OperatorOnCluster;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    running = await runOperatorOnCluster(env, "expiration");
  });
  after(async () => {
    await running.stop();
  });

  void it(`should replace a NodeClaim ${EXPIRE_AFTER_S} s after its creation when the NodePool says expireAfter: ${EXPIRE_AFTER_S}s`, async () => {
    await env.kubeConfig.makeApiClient(CustomObjectsApi).createClusterCustomObject({
      group: "karpenter.sh",
      version: "v1",
      plural: "nodepools",
      body: {
        apiVersion: "karpenter.sh/v1",
        kind: "NodePool",
        metadata: { name: "short-lived" },
        spec: {
          template: {
            spec: {
              nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
              expireAfter: `${EXPIRE_AFTER_S}s`,
              requirements: [ON_DEMAND, WORKSHOP_FAMILIES],
            },
          },
        },
      },
    });
    const namespace = await createInflate(env, 2);
    const first = await singleReadyClaim(env, namespace, 2);
    const firstInstance = first.status?.providerID ?? "";
    const createdAt = Date.now();

    const replacement = await replacementClaim(env, namespace, 2, first);
    assert.ok(Date.now() - createdAt >= (EXPIRE_AFTER_S - 5) * 1000, "not replaced long before it expired");
    assert.ok(
      !(await liveInstances(env)).some((i) => i.providerID === firstInstance),
      "the expired NodeClaim's instance is terminated",
    );
    assert.equal(replacement.metadata.labels?.["karpenter.sh/nodepool"], "short-lived");
    const expired = (await running.operator.metrics.nodeClaimsDisrupted.get()).values.filter(
      (v) => v.labels["reason"] === "expired",
    );
    assert.ok(expired.reduce((n, v) => n + v.value, 0) >= 1);
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const events = await core.listNamespacedEvent({
      namespace: "default",
      fieldSelector: `involvedObject.name=${first.metadata.name},reason=Disrupted`,
    });
    assert.ok(
      events.items.some((e) => e.message === "Disrupting NodeClaim: expired"),
      "a Disrupted event says why",
    );
  });
});

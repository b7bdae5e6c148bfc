/**
 * Node repair end to end (real apiserver, scheduler, kwok, moto): a Node whose Ready condition has been False
 * for longer than the 30 min toleration has its NodeClaim replaced when the NodeRepair gate is on, not when it
 * is off, and not while more than 20% of its NodePool's Nodes are unhealthy (a NodeRepairBlocked Event says so).
 *
 * kwok re-initializes every Node it manages whose Ready is not True, so the test first takes the Node from
 * kwok (drops its kwok.x-k8s.io/node annotation) and then reports Ready=False itself, as a broken kubelet
 * would, through the status subresource with a lastTransitionTime an hour ago.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { mergePatch } from "../../operator/adapters/kube/client.ts";
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
  createInflate,
  createNodePool,
  prepareCluster,
  replacementClaim,
  singleReadyClaim,
  type Claim,
} from "./provisioning-fixtures.ts";

const POOL = "repairable";
const HOUR_AGO = (): string => new Date(Date.now() - 60 * 60_000).toISOString();

/** Takes the Node from kwok and reports Ready=False since an hour ago (`message` varies to wake watchers). */
async function breakNode(env: TestEnvironment, name: string, message: string): Promise<void> {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  await core.patchNode({ name, body: { metadata: { annotations: { "kwok.x-k8s.io/node": null } } } }, mergePatch);
  const ready = {
    type: "Ready",
    status: "False",
    reason: "KubeletNotReady",
    message,
    lastHeartbeatTime: new Date().toISOString(),
    lastTransitionTime: HOUR_AGO(),
  };
  await core.patchNodeStatus({ name, body: { status: { conditions: [ready] } } }, mergePatch);
}

async function claimNamed(env: TestEnvironment, name: string): Promise<Claim | undefined> {
  try {
    return (await env.kubeConfig
      .makeApiClient(CustomObjectsApi)
      .getClusterCustomObject({ ...NODECLAIMS, name })) as Claim;
  } catch {
    return undefined;
  }
}

async function reconciles(operator: RunningOperator, controller: string): Promise<number> {
  const values = (await operator.metrics.reconcileTotal.get()).values.filter(
    (v) => v.labels["controller"] === controller,
  );
  return values.reduce((n, v) => n + v.value, 0);
}

async function start(
  env: TestEnvironment,
  identity: string,
  gates: string,
): Promise<{ operator: RunningOperator; stop: () => Promise<void> }> {
  const operator = await replica(env, identity, {
    DISABLE_LEADER_ELECTION: "true",
    AWS_REGION: "us-east-1",
    FEATURE_GATES: gates,
  });
  const sim = new KubeletSim({
    kubeConfig: env.kubeConfig,
    aws: { ...env.aws(), region: "us-east-1" },
    clusterName: CLUSTER,
  });
  sim.start();
  return {
    operator,
    stop: async () => {
      await sim.stop();
      await operator.stop();
    },
  };
}

void describe("node repair on the real environment", () => {
  let env: TestEnvironment;
  let running: { operator: RunningOperator; stop: () => Promise<void> } | undefined;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    await prepareCluster(env);
  });
  after(async () => {
    await running?.stop();
  });

  void it("should leave an unhealthy Node alone with the gate off, report a blocked repair, then replace its NodeClaim", async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    // Gate off: the operator sees the Node change (node.termination reconciles it) and repairs nothing.
    running = await start(env, "repair-off", "NodeRepair=false");
    await createNodePool(env, POOL, { requirements: [ON_DEMAND, WORKSHOP_FAMILIES] });
    const namespace = await createInflate(env, 2);
    const first = await singleReadyClaim(env, namespace, 2);
    const nodeName = first.status?.nodeName ?? "";
    assert.notEqual(nodeName, "", "the NodeClaim has its Node");
    const seenBefore = await reconciles(running.operator, "node.termination");
    await breakNode(env, nodeName, "gate off");
    await eventually(
      "the operator to see the unhealthy Node",
      async () => (await reconciles(running!.operator, "node.termination")) > seenBefore,
      30_000,
      100,
    );
    assert.equal(
      (await claimNamed(env, first.metadata.name))?.metadata.deletionTimestamp,
      undefined,
      "no repair with NodeRepair=false",
    );
    assert.equal((await running.operator.metrics.nodeClaimsUnhealthyDisrupted.get()).values.length, 0);
    await running.stop();
    running = undefined;

    // Gate on, with a second unhealthy Node in the pool: 2 of 2 unhealthy is more than 20% (threshold 1).
    await core.createNode({ body: { metadata: { name: "repair-ghost", labels: { "karpenter.sh/nodepool": POOL } } } });
    await core.patchNodeStatus(
      {
        name: "repair-ghost",
        body: {
          status: {
            conditions: [
              { type: "Ready", status: "Unknown", reason: "NodeStatusUnknown", lastTransitionTime: HOUR_AGO() },
            ],
          },
        },
      },
      mergePatch,
    );
    running = await start(env, "repair-on", "NodeRepair=true");
    await breakNode(env, nodeName, "gate on, pool unhealthy");
    const blocked = await eventually(
      "a NodeRepairBlocked Event on the Node",
      async () => {
        const events = await core.listNamespacedEvent({
          namespace: "default",
          fieldSelector: `involvedObject.name=${nodeName},reason=NodeRepairBlocked`,
        });
        return events.items.find((e) => e.type === "Warning");
      },
      60_000,
      250,
    );
    assert.equal(blocked.message, "more than 20% nodes are unhealthy in the nodepool");
    assert.equal(
      (await claimNamed(env, first.metadata.name))?.metadata.deletionTimestamp,
      undefined,
      "a blocked repair deletes nothing",
    );

    // The pool recovers (the ghost goes) and the kubelet reports again: the NodeClaim is replaced.
    await core.deleteNode({ name: "repair-ghost" });
    await breakNode(env, nodeName, "gate on, pool healthy");
    const replacement = await replacementClaim(env, namespace, 2, first);
    assert.equal(replacement.metadata.labels?.["karpenter.sh/nodepool"], POOL);
    assert.equal(await claimNamed(env, first.metadata.name), undefined, "the unhealthy NodeClaim is gone");
    const byCondition = (await running.operator.metrics.nodeClaimsUnhealthyDisrupted.get()).values;
    assert.ok(
      byCondition.some((v) => v.labels["condition"] === "ready" && v.labels["nodepool"] === POOL && v.value >= 1),
      JSON.stringify(byCondition),
    );
    const disrupted = (await running.operator.metrics.nodeClaimsDisrupted.get()).values.filter(
      (v) => v.labels["reason"] === "unhealthy",
    );
    assert.ok(disrupted.reduce((n, v) => n + v.value, 0) >= 1);
  });
});

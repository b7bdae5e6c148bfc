/**
 * Expendable pods end to end (real apiserver with Priority admission, scheduler, kwok, moto): with
 * EXPENDABLE_PODS_PRIORITY_CUTOFF=0 a pending pod of a PriorityClass valued -5 launches no node and gets a
 * FailedScheduling Event from kerf saying why; a pod at priority 0 gets a node, and the low-priority pod then
 * runs on that existing capacity.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CoreV1Api, SchedulingV1Api, type V1Pod } from "@kubernetes/client-node";
import { createTestNamespace } from "../harness/reset.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import {
  ON_DEMAND,
  WORKSHOP_FAMILIES,
  createNodePool,
  nodeClaims,
  runOperatorOnCluster,
  type OperatorOnCluster,
} from "./provisioning-fixtures.ts";

const pod = (name: string, priorityClassName?: string): V1Pod => ({
  metadata: { name },
  spec: {
    ...(priorityClassName === undefined ? {} : { priorityClassName }),
    terminationGracePeriodSeconds: 0,
    containers: [
      {
        name: "pause",
        image: "public.ecr.aws/eks-distro/kubernetes/pause:3.7",
        resources: { requests: { memory: "1Gi" } },
      },
    ],
  },
});

void describe("expendable pods on the real environment", () => {
  let env: TestEnvironment;
  let running: OperatorOnCluster;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    running = await runOperatorOnCluster(env, "expendable", { EXPENDABLE_PODS_PRIORITY_CUTOFF: "0" });
  });
  after(async () => {
    await running.stop();
    await env.kubeConfig
      .makeApiClient(SchedulingV1Api)
      .deletePriorityClass({ name: "kerf-test-expendable" })
      .catch(() => undefined);
  });

  void it("should launch no node for a pod below the cutoff, say why on the pod, and launch for a pod at the cutoff", async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    await env.kubeConfig
      .makeApiClient(SchedulingV1Api)
      .createPriorityClass({ body: { metadata: { name: "kerf-test-expendable" }, value: -5 } });
    await createNodePool(env, "expendable", { requirements: [ON_DEMAND, WORKSHOP_FAMILIES] });
    const namespace = await createTestNamespace(env.kubeConfig, "expendable");

    await core.createNamespacedPod({ namespace, body: pod("low", "kerf-test-expendable") });
    assert.equal(
      (await core.readNamespacedPod({ namespace, name: "low" })).spec?.priority,
      -5,
      "Priority admission set the class's value",
    );
    const event = await eventually(
      "kerf's FailedScheduling Event on the low-priority pod",
      async () => {
        const events = await core.listNamespacedEvent({
          namespace,
          fieldSelector: "involvedObject.name=low,reason=FailedScheduling",
        });
        return events.items.find((e) => /expendable-pods priority cutoff/.test(e.message ?? ""));
      },
      60_000,
      250,
    );
    assert.match(
      event.message ?? "",
      /pod priority -5 is below the expendable-pods priority cutoff 0 \(--expendable-pods-priority-cutoff\)/,
    );
    assert.deepEqual(await nodeClaims(env), [], "no NodeClaim for the low-priority pod");
    assert.equal((await core.readNamespacedPod({ namespace, name: "low" })).status?.phase, "Pending");

    await core.createNamespacedPod({ namespace, body: pod("high") });
    const runningOn = async (name: string): Promise<string | undefined> => {
      const p = await core.readNamespacedPod({ namespace, name });
      return p.status?.phase === "Running" ? p.spec?.nodeName : undefined;
    };
    const highNode = await eventually("the priority-0 pod Running on a new node", () => runningOn("high"), 90_000, 250);
    const claims = await nodeClaims(env);
    assert.equal(claims.length, 1, "one NodeClaim, for the priority-0 pod");
    // The node bought for the priority-0 pod has room for the other 1Gi pod: existing capacity takes it.
    assert.equal(
      await eventually("the low-priority pod Running on the existing node", () => runningOn("low"), 60_000, 250),
      highNode,
    );
    assert.equal((await nodeClaims(env)).length, 1, "still one NodeClaim");
  });
});

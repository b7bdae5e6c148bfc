/**
 * How fast disruption moves, on the real environment: drift goes without the consolidation
 * validation wait (Karpenter queues drift commands at once, with no validation), and a scale-down
 * that takes nodes one at a time under a budget of 1 takes the next as soon as the previous one is
 * gone, not at the next poll. The operators here poll or validate slowly on purpose (60 s), so a
 * test that passes cannot have waited for either.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CoreV1Api } from "@kubernetes/client-node";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { createPool, deploy, ofPool, patchPool, ready, running, scale, settled } from "./disruption-fixtures.ts";
import { replica } from "./operator-fixtures.ts";
import { runOperatorOnCluster, type OperatorOnCluster } from "./provisioning-fixtures.ts";

const SLOW_MS = 60_000;
const seconds = (since: number): string => ((Date.now() - since) / 1000).toFixed(1);

void describe("disruption pace on the real environment", () => {
  let env: TestEnvironment;
  let op: OperatorOnCluster;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    op = await runOperatorOnCluster(env, "pace", {}, { disruption: { pollMs: 1000, validationDelayMs: SLOW_MS } });
  });
  after(async () => {
    await op.stop();
  });

  void it(`should replace a drifted node without consolidation's ${SLOW_MS / 1000} s validation wait`, async () => {
    // consolidateAfter 1h: no consolidation command (which would wait the 60 s) can hold the pool's budget meanwhile.
    await createPool(env, "relabelled", { consolidateAfter: "1h" });
    const namespace = await deploy(env, "relabelled", 2);
    const [old] = await settled(env, "relabelled", namespace, { pods: 2, claims: 1 });
    const changed = Date.now();
    await patchPool(env, "relabelled", { template: { metadata: { labels: { team: "b" } } } });
    await eventually(
      "a NodeClaim labelled team=b runs the pods and the old one is gone",
      async () => {
        const [claim, ...rest] = await ofPool(env, "relabelled");
        const pods = await running(env, namespace);
        return (
          claim !== undefined &&
          rest.length === 0 &&
          claim.metadata.name !== old?.metadata.name &&
          claim.metadata.labels?.["team"] === "b" &&
          ready(claim) &&
          pods.length === 2
        );
      },
      SLOW_MS - 5_000,
      250,
    );
    console.log(`# drift replaced in ${seconds(changed)} s with a ${SLOW_MS / 1000} s validation delay`);
  });

  void it("should take the next node of a one-at-a-time scale-down when the previous one is gone, not at the next poll", async () => {
    // Three nodes (one pod each, hostname anti-affinity), then a replica that polls once a minute.
    await createPool(env, "stepwise", { budgets: [{ nodes: "1" }] });
    const namespace = await deploy(env, "stepwise", 3, { spreadOverNodes: true });
    await settled(env, "stepwise", namespace, { pods: 3, claims: 3 });
    await op.operator.stop();
    await scale(env, namespace, "stepwise", 0);
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const podsLeft = async (): Promise<number> => (await core.listNamespacedPod({ namespace })).items.length;
    await eventually("the pods gone", async () => (await podsLeft()) === 0, 30_000, 250);
    const settings = { disruption: { pollMs: SLOW_MS, validationDelayMs: 1000 } };
    const slow = await replica(env, "pace-slow-poll", { DISABLE_LEADER_ELECTION: "true" }, settings);
    try {
      const started = Date.now();
      // Its first pass runs at start; the next two only when a NodeClaim is gone (a poll would come a minute later).
      const gone = async (): Promise<boolean> => (await ofPool(env, "stepwise")).length === 0;
      await eventually("every NodeClaim of the pool gone", gone, SLOW_MS - 5_000, 250);
      console.log(`# three empty nodes removed one at a time in ${seconds(started)} s with a ${SLOW_MS / 1000} s poll`);
      const disrupted = (await slow.metrics.nodeClaimsDisrupted.get()).values;
      assert.equal(
        disrupted.filter((v) => v.labels["reason"] === "empty").reduce((n, v) => n + v.value, 0),
        3,
      );
    } finally {
      await slow.stop();
    }
  });
});

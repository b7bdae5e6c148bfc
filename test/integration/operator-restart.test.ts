import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { DescribeInstancesCommand } from "@aws-sdk/client-ec2";
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import type { RunningOperator } from "../../operator/main.ts";
import { startFaultProxy, type CrashPoint } from "../harness/fault-proxy.ts";
import { KubeletSim } from "../harness/kubelet-sim.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { CLUSTER, clients } from "./aws-fixtures.ts";
import { replica } from "./operator-fixtures.ts";
import {
  NODECLAIMS,
  ON_DEMAND,
  WORKSHOP_FAMILIES,
  consistency,
  createInflate,
  createNodePool,
  isReady,
  liveInstances,
  nodeClaims,
  prepareCluster,
  runningPods,
  createM5NodeClaim,
} from "./provisioning-fixtures.ts";

/** Rejects after `ms` (so a crash point that is never reached fails the test instead of hanging it). */
function within<T>(what: string, promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`waiting for ${what}: timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

void describe("an operator killed in the middle of a launch and started again", () => {
  let env: TestEnvironment;
  let sim: KubeletSim;
  const cleanups: (() => Promise<unknown>)[] = [];

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    sim = new KubeletSim({ kubeConfig: env.kubeConfig, aws: env.aws(), clusterName: CLUSTER });
    sim.start();
  });
  after(async () => {
    await sim.stop();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const cases: { point: CrashPoint; instancesAtCrash: number; story: string }[] = [
    {
      point: "after-create-fleet",
      instancesAtCrash: 1,
      story:
        "after CreateFleet launched the instance, " +
        "before the NodeClaim recorded it: the new operator adopts the tagged instance",
    },
    {
      point: "before-create-fleet",
      instancesAtCrash: 0,
      story: "after the NodeClaim was created, before CreateFleet: the new operator launches it",
    },
  ];

  for (const { point, instancesAtCrash, story } of cases) {
    void it(`should converge with no leaked instance and no NodeClaim without one when killed ${story}`, async () => {
      const started = performance.now();
      await env.reset();
      await prepareCluster(env);
      const proxy = await startFaultProxy(env.aws().endpoint);
      const crash = proxy.holdFromCreateFleet(point);
      const first: RunningOperator = await replica(env, `restart-${point}-1`, {
        AWS_ENDPOINT_URL: proxy.url,
        DISABLE_LEADER_ELECTION: "true",
      });
      // The dead operator's AWS calls hang on the proxy until it stops; only then can its stop() finish.
      let dying: Promise<void> = Promise.resolve();
      cleanups.push(async () => {
        await proxy.stop();
        await dying;
      });

      await createNodePool(env, "default", { requirements: [ON_DEMAND, WORKSHOP_FAMILIES] });
      const namespace = await createInflate(env, 5);
      await within(`the operator to reach ${point}`, crash, 60_000);
      // Killed: its controllers take no more work; the CreateFleet it waits on never answers.
      dying = first.stop();

      const atCrash = await nodeClaims(env);
      assert.equal(atCrash.length, 1);
      assert.equal(atCrash[0]?.status?.providerID, undefined, "the NodeClaim never learnt of an instance");
      const instancesBefore = await liveInstances(env);
      assert.equal(instancesBefore.length, instancesAtCrash);
      assert.ok(
        instancesBefore.every((i) => i.nodeClaim === atCrash[0]?.metadata.name),
        "the instance is tagged with its NodeClaim",
      );

      const second = await replica(env, `restart-${point}-2`, { DISABLE_LEADER_ELECTION: "true" });
      cleanups.push(() => second.stop());
      const converged = await eventually(
        "5 pods Running and every NodeClaim Ready with its instance",
        async () => {
          const state = await consistency(env);
          const running = await runningPods(env, namespace);
          return running.length === 5 &&
            state.claims.length > 0 &&
            state.claims.every(isReady) &&
            state.leaked.length === 0 &&
            state.withoutInstance.length === 0
            ? state
            : undefined;
        },
        60_000,
        250,
      );
      console.log(`# ${point}: converged ${((performance.now() - started) / 1000).toFixed(1)} s after the reset`);

      assert.deepEqual(
        converged.claims.map((c) => c.metadata.name),
        [atCrash[0]?.metadata.name],
        "the NodeClaim from before the crash was completed, not replaced",
      );
      assert.equal(converged.instances.length, 1);
      if (instancesAtCrash === 1)
        assert.equal(
          converged.instances[0]?.id,
          instancesBefore[0]?.id,
          "the instance launched before the crash was adopted",
        );
      assert.equal(
        await (async () => (await second.metrics.nodeClaimsCreated.get()).values.reduce((n, v) => n + v.value, 0))(),
        0,
        "the new operator created no NodeClaim",
      );
      await second.stop();
    });
  }

  void it("should terminate the instance and delete the Node of a NodeClaim deleted while the operator that launched it was dead", async () => {
    await env.reset();
    await prepareCluster(env);
    const proxy = await startFaultProxy(env.aws().endpoint);
    const crash = proxy.holdFromCreateFleet("after-create-fleet");
    const first = await replica(env, "restart-deleted-1", {
      AWS_ENDPOINT_URL: proxy.url,
      DISABLE_LEADER_ELECTION: "true",
    });
    let dying: Promise<void> = Promise.resolve();
    cleanups.push(async () => {
      await proxy.stop();
      await dying;
    });
    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    await createM5NodeClaim(env, "deleted-while-dead");
    await within("the operator to reach after-create-fleet", crash, 60_000);
    dying = first.stop();
    await custom.deleteClusterCustomObject({ ...NODECLAIMS, name: "deleted-while-dead" });
    const [instance] = await liveInstances(env);
    assert.equal(instance?.nodeClaim, "deleted-while-dead", "CreateFleet launched the instance before the kill");
    const node = await eventually(
      "the instance's kubelet to register a Node",
      async () => (await core.listNode()).items.find((n) => n.spec?.providerID === instance.providerID),
      30_000,
      250,
    );

    const second = await replica(env, "restart-deleted-2", { DISABLE_LEADER_ELECTION: "true" });
    cleanups.push(() => second.stop());
    await eventually(
      "the NodeClaim to be gone",
      async () => {
        try {
          await custom.getClusterCustomObject({ ...NODECLAIMS, name: "deleted-while-dead" });
          return false;
        } catch (e) {
          return (e as { code?: number }).code === 404;
        }
      },
      60_000,
      100,
    );
    const described = await clients(env.aws()).ec2.send(new DescribeInstancesCommand({ InstanceIds: [instance.id] }));
    assert.equal(
      described.Reservations?.[0]?.Instances?.[0]?.State?.Name,
      "terminated",
      "the instance went before its NodeClaim",
    );
    await assert.rejects(
      core.readNode({ name: node.metadata?.name ?? "" }),
      (e: { code?: number }) => e.code === 404,
      "the instance's Node went with it",
    );
    await second.stop();
  });
});

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { CoordinationV1Api } from "@kubernetes/client-node";
import type { RunningOperator } from "../../operator/main.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { installKarpenterCrds, replica } from "./operator-fixtures.ts";

void describe("operator leader election on a real Lease", () => {
  let env: TestEnvironment;
  const replicas: RunningOperator[] = [];

  before(async () => {
    env = await useEnvironment({ controlPlane: true, moto: true });
    await installKarpenterCrds(env);
    await env.kubeConfig
      .makeApiClient(CoordinationV1Api)
      .deleteNamespacedLease({ name: "kerf-test-leader", namespace: "default" })
      .catch(() => undefined);
  });
  after(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
  });

  void it("should let exactly one of two replicas lead, and hand over promptly when the leader stops", async () => {
    replicas.push(await replica(env, "replica-a"), await replica(env, "replica-b"));
    const [a, b] = replicas as [RunningOperator, RunningOperator];
    await eventually("one replica to lead", () => a.isLeader() || b.isLeader(), 15_000);
    let both = 0;
    for (let i = 0; i < 40; i += 1) {
      if (a.isLeader() && b.isLeader()) both += 1;
      await sleep(100);
    }
    assert.equal(both, 0, "both replicas claimed leadership");
    const leader = a.isLeader() ? a : b;
    const follower = leader === a ? b : a;
    assert.equal(follower.isLeader(), false);
    const lease = await env.kubeConfig
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ name: "kerf-test-leader", namespace: "default" });
    assert.equal(lease.spec?.holderIdentity, leader.config.leaderElectionIdentity);

    const stoppedAt = performance.now();
    await leader.stop();
    replicas.splice(replicas.indexOf(leader), 1);
    await eventually("the follower to take over", () => follower.isLeader(), 10_000, 20);
    const takeoverMs = performance.now() - stoppedAt;
    assert.ok(takeoverMs < 3_000, `takeover took ${Math.round(takeoverMs)} ms, more than the 3 s lease duration`);
    const after = await env.kubeConfig
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ name: "kerf-test-leader", namespace: "default" });
    assert.equal(after.spec?.holderIdentity, follower.config.leaderElectionIdentity);
    assert.equal(after.spec?.leaseTransitions, 1);
  });
});

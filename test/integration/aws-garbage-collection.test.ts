import { before, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { DescribeInstancesCommand } from "@aws-sdk/client-ec2";
import { collectGarbage } from "../../operator/controllers/gc/controller.ts";
import type { GcNodeClaim } from "../../operator/controllers/gc/plan.ts";
import type { EC2NodeClassLike } from "../../operator/core/launch-template/node-class.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { clients, nodeClaim, nodeClass, providers, seedAl2023Alias, tagDefaultSubnets, testClock } from "./aws-fixtures.ts";

const requirements = [
  { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.large"] },
  { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
];

void describe("garbage collection against moto", () => {
  let env: TestEnvironment;
  let nodeClasses: Map<string, EC2NodeClassLike>;

  before(async () => { env = await useEnvironment({ moto: true }); });
  beforeEach(async () => {
    await env.reset();
    await seedAl2023Alias(env.aws(), "x86_64");
    await tagDefaultSubnets(env.aws(), ["us-east-1a"]);
    nodeClasses = new Map([["default", nodeClass("default")]]);
  });

  async function state(instanceID: string): Promise<string | undefined> {
    const out = await clients(env.aws()).ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceID] }));
    return out.Reservations?.[0]?.Instances?.[0]?.State?.Name;
  }

  function gc(clock: ReturnType<typeof testClock>, cloudProvider: ReturnType<typeof providers>["cloudProvider"], claims: GcNodeClaim[], deleted: string[]): Promise<Awaited<ReturnType<typeof collectGarbage>>> {
    return collectGarbage({ cloudProvider, clock, listNodeClaims: async () => claims, deleteNodeClaim: async (name) => { deleted.push(name); } });
  }

  void it("should terminate an orphaned instance older than 30 s and keep a young one", async () => {
    const clock = testClock();
    const { cloudProvider } = providers(env.aws(), clock, nodeClasses);
    const orphan = await cloudProvider.create(nodeClaim("orphan", requirements));
    const launchTime = (await cloudProvider.get(orphan.providerID)).launchTime;

    clock.set(new Date(launchTime.getTime() + 10_000));
    const young = await gc(clock, cloudProvider, [], []);
    assert.deepEqual(young.terminate, []);
    assert.equal(await state(orphan.instanceID), "running");

    clock.set(new Date(launchTime.getTime() + 31_000));
    const old = await gc(clock, cloudProvider, [], []);
    assert.deepEqual(old.terminate.map((i) => i.instanceID), [orphan.instanceID]);
    assert.deepEqual(old.errors, []);
    assert.equal(await state(orphan.instanceID), "terminated");
  });

  void it("should keep an instance whose NodeClaim exists without a providerID, so the restarted launch adopts it", async () => {
    const clock = testClock();
    const crashed = providers(env.aws(), clock, nodeClasses).cloudProvider;
    const launched = await crashed.create(nodeClaim("in-flight", requirements));
    clock.advance(10 * 60_000);
    const restarted = providers(env.aws(), clock, nodeClasses).cloudProvider;
    const result = await gc(clock, restarted, [{ name: "in-flight" }], []);
    assert.deepEqual(result.terminate, []);
    const adopted = await restarted.create(nodeClaim("in-flight", requirements));
    assert.equal(adopted.instanceID, launched.instanceID);
    assert.equal((await restarted.list()).length, 1, "no instance leaked");
  });

  void it("should delete NodeClaims whose instance is gone and keep those whose instance runs", async () => {
    const clock = testClock();
    const { cloudProvider } = providers(env.aws(), clock, nodeClasses);
    const alive = await cloudProvider.create(nodeClaim("alive", requirements));
    const gone = await cloudProvider.create(nodeClaim("gone", requirements));
    await cloudProvider.delete(gone.providerID);
    const deleted: string[] = [];
    const result = await gc(clock, cloudProvider, [{ name: "alive", providerID: alive.providerID }, { name: "gone", providerID: gone.providerID }], deleted);
    assert.deepEqual(deleted, ["gone"]);
    assert.deepEqual(result.terminate, []);
  });
});

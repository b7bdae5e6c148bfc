/**
 * A CreateFleet whose answer is lost after EC2 launched the instance (a 5xx, a timeout): the AWS SDK
 * would retry it without a ClientToken and launch a second instance. CreateFleet makes one attempt;
 * the NodeClaim's next launch attempt finds the instance by its karpenter.sh/nodeclaim tag instead.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startFaultProxy, type FaultProxy } from "../harness/fault-proxy.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import {
  liveInstances,
  runOperatorOnCluster,
  type OperatorOnCluster,
  createM5NodeClaim,
  claimWithCondition,
} from "./provisioning-fixtures.ts";

void describe("a CreateFleet answer lost after the launch", () => {
  let env: TestEnvironment;
  let proxy: FaultProxy;
  let running: OperatorOnCluster;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    proxy = await startFaultProxy(env.aws().endpoint);
    running = await runOperatorOnCluster(env, "lost-answer", { AWS_ENDPOINT_URL: proxy.url });
  });
  after(async () => {
    await running.stop();
    await proxy.stop();
  });

  void it("should launch one instance and adopt it, not send CreateFleet again", async () => {
    proxy.loseAnswers("CreateFleet", 1);
    await createM5NodeClaim(env, "lost-answer");
    const claim = await claimWithCondition(env, "lost-answer", "Launched", 60_000);
    assert.equal(proxy.createFleetRequests.length, 1, "one CreateFleet reached EC2");
    const instances = await liveInstances(env);
    assert.deepEqual(
      instances.map((i) => [i.providerID, i.nodeClaim]),
      [[claim.status?.providerID, "lost-answer"]],
      "one instance, the NodeClaim's",
    );
  });
});

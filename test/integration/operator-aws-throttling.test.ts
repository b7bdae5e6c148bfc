import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { DescribeInstancesCommand } from "@aws-sdk/client-ec2";
import { CustomObjectsApi } from "@kubernetes/client-node";
import { startFaultProxy, type FaultProxy } from "../harness/fault-proxy.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { clients } from "./aws-fixtures.ts";
import {
  NODECLAIMS,
  liveInstances,
  runOperatorOnCluster,
  type OperatorOnCluster,
  createM5NodeClaim,
  claimWithCondition,
} from "./provisioning-fixtures.ts";

/**
 * More throttled answers in a row than the AWS SDK's 3 attempts: the operator's own retry
 * has to carry the call through.
 */
const THROTTLED = 5;

void describe("the operator under EC2 throttling (RequestLimitExceeded)", () => {
  let env: TestEnvironment;
  let proxy: FaultProxy;
  let running: OperatorOnCluster;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    proxy = await startFaultProxy(env.aws().endpoint);
    running = await runOperatorOnCluster(env, "throttling", { AWS_ENDPOINT_URL: proxy.url });
  });
  after(async () => {
    await running.stop();
    await proxy.stop();
  });

  void it("should launch exactly one instance through throttled CreateFleet calls and terminate it through throttled TerminateInstances calls", async () => {
    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    proxy.throttle("CreateFleet", THROTTLED);
    await createM5NodeClaim(env, "throttled");
    const claim = await claimWithCondition(env, "throttled", "Launched", 90_000);
    assert.equal(proxy.throttled.get("CreateFleet"), THROTTLED);
    assert.equal(proxy.createFleetRequests.length, 1, "one CreateFleet reached EC2");
    const instances = await liveInstances(env);
    assert.deepEqual(
      instances.map((i) => [i.providerID, i.nodeClaim]),
      [[claim.status?.providerID, "throttled"]],
      "one instance, the NodeClaim's",
    );
    const errors = (await running.operator.metrics.cloudProviderErrors.get()).values.filter(
      (v) => v.labels["method"] === "Create",
    );
    assert.ok(errors.reduce((n, v) => n + v.value, 0) >= 1, "the SDK gave up at least once and the operator retried");

    proxy.throttle("TerminateInstances", THROTTLED);
    await custom.deleteClusterCustomObject({ ...NODECLAIMS, name: "throttled" });
    await eventually(
      "the NodeClaim to be gone",
      async () => {
        try {
          await custom.getClusterCustomObject({ ...NODECLAIMS, name: "throttled" });
          return false;
        } catch (e) {
          return (e as { code?: number }).code === 404;
        }
      },
      90_000,
      250,
    );
    assert.equal(proxy.throttled.get("TerminateInstances"), THROTTLED);
    const instanceID = instances[0]?.id ?? "";
    const described = await clients(env.aws()).ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceID] }));
    assert.equal(
      described.Reservations?.[0]?.Instances?.[0]?.State?.Name,
      "terminated",
      "the instance went before its NodeClaim",
    );
    assert.deepEqual(await liveInstances(env), []);
  });
});

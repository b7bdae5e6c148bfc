/**
 * A CreateFleet whose answer is lost after EC2 launched the instance (a 5xx, a timeout): the AWS SDK
 * would retry it without a ClientToken and launch a second instance. CreateFleet makes one attempt;
 * the NodeClaim's next launch attempt finds the instance by its karpenter.sh/nodeclaim tag instead.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CustomObjectsApi } from "@kubernetes/client-node";
import { startFaultProxy, type FaultProxy } from "../harness/fault-proxy.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import {
  isLaunched,
  NODECLAIMS,
  ON_DEMAND,
  liveInstances,
  runOperatorOnCluster,
  type Claim,
  type OperatorOnCluster,
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
    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    proxy.loseAnswers("CreateFleet", 1);
    await custom.createClusterCustomObject({
      ...NODECLAIMS,
      body: {
        apiVersion: "karpenter.sh/v1",
        kind: "NodeClaim",
        metadata: { name: "lost-answer", labels: { "karpenter.sh/nodepool": "default" } },
        spec: {
          nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
          requirements: [ON_DEMAND, { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.large"] }],
        },
      },
    });
    const claim = await eventually(
      "the NodeClaim to be Launched",
      async () => {
        const c = (await custom.getClusterCustomObject({ ...NODECLAIMS, name: "lost-answer" })) as Claim;
        return isLaunched(c) ? c : undefined;
      },
      60_000,
      250,
    );
    assert.equal(proxy.createFleetRequests.length, 1, "one CreateFleet reached EC2");
    const instances = await liveInstances(env);
    assert.deepEqual(
      instances.map((i) => [i.providerID, i.nodeClaim]),
      [[claim.status?.providerID, "lost-answer"]],
      "one instance, the NodeClaim's",
    );
  });
});

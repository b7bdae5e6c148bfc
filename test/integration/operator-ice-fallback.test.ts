import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { RunningOperator } from "../../operator/main.ts";
import { startFaultProxy, type FaultProxy } from "../harness/fault-proxy.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import {
  ON_DEMAND,
  WORKSHOP_FAMILIES,
  consistency,
  createInflate,
  createNodePool,
  isReady,
  runOperatorOnCluster,
  runningPods,
  type OperatorOnCluster,
} from "./provisioning-fixtures.ts";

/** The (type/zone) overrides of one recorded CreateFleet request. */
function overridesOf(request: Readonly<Record<string, string>>): string[] {
  return Object.entries(request)
    .filter(([k]) => /^LaunchTemplateConfigs\.\d+\.Overrides\.\d+\.InstanceType$/.test(k))
    .map(([k, v]) => `${v}/${request[k.replace("InstanceType", "AvailabilityZone")] ?? ""}`);
}

void describe("insufficient capacity during provisioning, with CreateFleet failures injected in front of moto", () => {
  let env: TestEnvironment;
  let proxy: FaultProxy;
  let running: OperatorOnCluster;
  let operator: RunningOperator;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    proxy = await startFaultProxy(env.aws().endpoint);
    running = await runOperatorOnCluster(env, "ice", { AWS_ENDPOINT_URL: proxy.url });
    operator = running.operator;
  });
  after(async () => {
    await running.stop();
    await proxy.stop();
  });

  void it("should delete the NodeClaim whose offerings all failed and run the pods on the next offering of a lower-weight NodePool, never retrying the failed one", async () => {
    // The preferred pool can only buy m5.large; there is none in either zone.
    proxy.injectFleetFaults([
      { instanceType: "m5.large", zone: "us-east-1a" },
      { instanceType: "m5.large", zone: "us-east-1b" },
    ]);
    await createNodePool(env, "preferred", {
      weight: 50,
      requirements: [ON_DEMAND, { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.large"] }],
    });
    await createNodePool(env, "fallback", { weight: 10, requirements: [ON_DEMAND, WORKSHOP_FAMILIES] });
    const namespace = await createInflate(env, 5);

    const { claims, instances, leaked, withoutInstance } = await eventually(
      "5 inflate pods Running on a Ready NodeClaim",
      async () => {
        const state = await consistency(env);
        return (await runningPods(env, namespace)).length === 5 &&
          state.claims.length > 0 &&
          state.claims.every(isReady)
          ? state
          : undefined;
      },
      60_000,
      250,
    );
    assert.deepEqual([leaked, withoutInstance], [[], []]);
    assert.equal(claims.length, 1, "the failed NodeClaim is gone");
    assert.ok(isReady(claims[0]!));
    assert.equal(claims[0]?.metadata.labels?.["karpenter.sh/nodepool"], "fallback");
    assert.equal(instances.length, 1);
    assert.notEqual(instances[0]?.type, "m5.large");
    assert.equal(instances[0]?.type, "r5.large", "the cheapest fitting type left: five 1Gi pods do not fit c5.large");

    const requests = proxy.createFleetRequests.map(overridesOf);
    assert.deepEqual(
      requests[0]?.sort(),
      ["m5.large/us-east-1a", "m5.large/us-east-1b"],
      "the first launch asked for the preferred pool's m5.large",
    );
    assert.ok(
      requests.slice(1).every((r) => !r.some((o) => o.startsWith("m5.large/"))),
      "no later CreateFleet offered m5.large again",
    );
    const disrupted = (await operator.metrics.nodeClaimsDisrupted.get()).values.filter(
      (v) => v.labels["reason"] === "insufficient_capacity",
    );
    assert.equal(
      disrupted.reduce((n, v) => n + v.value, 0),
      1,
    );
  });
});

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { DescribeInstancesCommand } from "@aws-sdk/client-ec2";
import { CoreV1Api, CustomObjectsApi, Watch } from "@kubernetes/client-node";
import { startFaultProxy, type FaultProxy } from "../harness/fault-proxy.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { prng } from "../perf/scheduling/generator.ts";
import { CLUSTER, clients } from "./aws-fixtures.ts";
import {
  NODECLAIMS,
  ON_DEMAND,
  WORKSHOP_FAMILIES,
  consistency,
  createInflate,
  createNodePool,
  isReady,
  runningPods,
  runOperatorOnCluster,
  type OperatorOnCluster,
} from "./provisioning-fixtures.ts";

/** NodeClaims deleted as they appear; the one after them is left to serve the pods. */
const ROUNDS = 6;
const SEED = 15_13;
/**
 * CreateFleet answers this late (the instance runs meanwhile), and deletions come at a seeded moment
 * in [0, MAX_DELAY_MS) after the NodeClaim appears: most while its CreateFleet is pending, the rest
 * after the launch was recorded.
 */
const CREATE_FLEET_LATENCY_MS = 1500;
const MAX_DELAY_MS = 2000;

/**
 * The test cluster's instances tagged for `nodeClaim` that still run (pending to stopped; shutting-down
 * and terminated count as gone).
 */
async function runningInstancesOf(env: TestEnvironment, nodeClaim: string): Promise<string[]> {
  const out = await clients(env.aws()).ec2.send(
    new DescribeInstancesCommand({
      Filters: [
        { Name: `tag:kubernetes.io/cluster/${CLUSTER}`, Values: ["owned"] },
        { Name: "tag:karpenter.sh/nodeclaim", Values: [nodeClaim] },
        { Name: "instance-state-name", Values: ["pending", "running", "stopping", "stopped"] },
      ],
    }),
  );
  return (out.Reservations ?? []).flatMap((r) => r.Instances ?? []).map((i) => i.InstanceId ?? "");
}

void describe("NodeClaims deleted in the middle of their launch, and Nodes left without one", () => {
  let env: TestEnvironment;
  let running: OperatorOnCluster;
  let proxy: FaultProxy;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    proxy = await startFaultProxy(env.aws().endpoint);
    running = await runOperatorOnCluster(env, "deleted-mid-launch", { AWS_ENDPOINT_URL: proxy.url });
  });
  after(async () => {
    await running.stop();
    await proxy.stop();
  });

  void it("should leave no instance running past a NodeClaim deleted the moment it appears, and no Node without a NodeClaim", async () => {
    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const rand = prng(SEED);
    proxy.delayCreateFleetResponses(CREATE_FLEET_LATENCY_MS);
    const deleted = new Set<string>();
    const gone = new Set<string>();
    const outlived: string[] = [];
    const checks: Promise<void>[] = [];
    const watch = await new Watch(env.kubeConfig).watch(
      "/apis/karpenter.sh/v1/nodeclaims",
      {},
      (phase: string, obj: { metadata?: { name?: string } }) => {
        const name = obj.metadata?.name ?? "";
        if (phase === "ADDED" && !deleted.has(name) && deleted.size < ROUNDS) {
          deleted.add(name);
          // The NodeClaim after the last one deleted launches at moto's pace.
          if (deleted.size === ROUNDS) proxy.delayCreateFleetResponses(0);
          const delay = Math.floor(rand() * MAX_DELAY_MS);
          setTimeout(() => {
            custom.deleteClusterCustomObject({ ...NODECLAIMS, name }).catch(() => undefined);
          }, delay);
        }
        // Termination removes the finalizer only once the instance is gone: the DELETED event is the NodeClaim's end.
        if (phase === "DELETED" && deleted.has(name)) {
          checks.push(
            runningInstancesOf(env, name).then((ids) => {
              gone.add(name);
              if (ids.length > 0) outlived.push(`${name}: ${ids.join(", ")}`);
            }),
          );
        }
      },
      () => undefined,
    );
    try {
      await createNodePool(env, "default", { requirements: [ON_DEMAND, WORKSHOP_FAMILIES] });
      const namespace = await createInflate(env, 2);
      await eventually(
        `${ROUNDS} NodeClaims deleted as they appeared to be gone`,
        () => gone.size === ROUNDS,
        180_000,
        250,
      );
      await Promise.all(checks);
      assert.deepEqual(outlived, [], "instances still running when their NodeClaim was gone");
      const terminated = (await running.operator.metrics.nodeClaimsTerminated.get()).values.reduce(
        (n, v) => n + v.value,
        0,
      );
      assert.equal(terminated, ROUNDS, "karpenter_nodeclaims_terminated_total counts each NodeClaim once");

      const nodes = async (): Promise<{ name: string; providerID: string }[]> =>
        (await core.listNode()).items
          .map((n) => ({ name: n.metadata?.name ?? "", providerID: n.spec?.providerID ?? "" }))
          .filter((n) => n.providerID !== "");
      await eventually(
        "2 pods Running on a Ready NodeClaim, no leaked instance, no Node without a NodeClaim",
        async () => {
          const state = await consistency(env);
          const held = new Set(state.claims.map((c) => c.status?.providerID ?? ""));
          const strays = (await nodes()).filter((n) => !held.has(n.providerID));
          const pods = (await runningPods(env, namespace)).length;
          if (
            pods === 2 &&
            state.claims.length === 1 &&
            state.claims.every(isReady) &&
            state.leaked.length === 0 &&
            state.withoutInstance.length === 0 &&
            strays.length === 0
          )
            return true;
          throw new Error(
            `${pods} pods Running, ${state.claims.length} NodeClaims, ` +
              `leaked ${JSON.stringify(state.leaked.map((i) => i.id))}, ` +
              `Nodes without a NodeClaim ${JSON.stringify(strays.map((n) => n.name))}`,
          );
        },
        90_000,
        500,
      );
    } finally {
      watch.abort();
    }
  });

  void it("should delete a Node that registered for an instance that is gone, and leave Nodes it did not launch", async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const gone = "aws:///us-east-1a/i-0123456789abcdef0";
    const unregistered = [{ key: "karpenter.sh/unregistered", effect: "NoExecute" }];
    await core.createNode({
      body: { metadata: { name: "late-joiner" }, spec: { providerID: gone, taints: unregistered } },
    });
    await core.createNode({ body: { metadata: { name: "not-ours" }, spec: { providerID: gone } } });
    await eventually(
      "garbage collection to delete the Node of the gone instance",
      async () => {
        try {
          await core.readNode({ name: "late-joiner" });
          return false;
        } catch (e) {
          return (e as { code?: number }).code === 404;
        }
      },
      60_000,
      500,
    );
    assert.equal((await core.readNode({ name: "not-ours" })).spec?.providerID, gone);
    await core.deleteNode({ name: "not-ours" });
  });
});

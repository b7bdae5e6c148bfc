// NodeOverlay (gate NodeOverlay=true) on the real apiserver, kube-scheduler, kwok and moto: a price overlay changes
// the instance CreateFleet launches, a capacity overlay lets a pod asking for an extended resource run, and
// equal-weight overlays on the same offering get Karpenter's Conflict condition.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { AppsV1Api, CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { createTestNamespace } from "../harness/reset.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import type { RunningOperator } from "../../operator/main.ts";
import { installNodeOverlayCrd, replica } from "./operator-fixtures.ts";
import {
  createNodePool,
  isReady,
  liveInstances,
  nodeClaims,
  runOperatorOnCluster,
  runningPods,
  type OperatorOnCluster,
} from "./provisioning-fixtures.ts";

const OVERLAYS = { group: "karpenter.sh", version: "v1alpha1", plural: "nodeoverlays" } as const;
const TYPES = { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.large", "m5.xlarge"] };
const ON_DEMAND = { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] };

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
type Overlay = { status?: { conditions?: Condition[] } };

void describe("NodeOverlays with --feature-gates NodeOverlay=true", () => {
  let env: TestEnvironment;
  let op: OperatorOnCluster;
  const custom = (): CustomObjectsApi => env.kubeConfig.makeApiClient(CustomObjectsApi);
  const createOverlay = (name: string, spec: Record<string, unknown>): Promise<unknown> =>
    custom().createClusterCustomObject({
      ...OVERLAYS,
      body: { apiVersion: "karpenter.sh/v1alpha1", kind: "NodeOverlay", metadata: { name }, spec },
    });
  const condition = async (name: string, type: string): Promise<Condition | undefined> =>
    ((await custom().getClusterCustomObject({ ...OVERLAYS, name })) as Overlay).status?.conditions?.find(
      (c) => c.type === type,
    );
  const validated = (name: string): Promise<Condition> =>
    eventually(
      `NodeOverlay ${name} to get ValidationSucceeded`,
      async () => condition(name, "ValidationSucceeded"),
      60_000,
      200,
    );
  const deployment = async (name: string, requests: Record<string, string>): Promise<string> => {
    const namespace = await createTestNamespace(env.kubeConfig, name);
    await env.kubeConfig.makeApiClient(AppsV1Api).createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: name } },
          template: {
            metadata: { labels: { app: name } },
            spec: {
              terminationGracePeriodSeconds: 0,
              containers: [
                {
                  name,
                  image: "public.ecr.aws/eks-distro/kubernetes/pause:3.7",
                  resources: { requests, limits: requests },
                },
              ],
            },
          },
        },
      },
    });
    return namespace;
  };

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    await installNodeOverlayCrd(env);
    // Before the operator starts: its first evaluation already sees it, so no launch happens at catalog prices.
    await createOverlay("xlarge-cheap", {
      requirements: [{ key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.xlarge"] }],
      price: "0.001",
    });
    op = await runOperatorOnCluster(env, "overlay", { FEATURE_GATES: "NodeOverlay=true" });
    await createNodePool(env, "default", { requirements: [TYPES, ON_DEMAND] });
  });
  let stopped = false;
  // The last test stops it early to start an operator with the gate off.
  after(async () => {
    if (!stopped) await op.stop();
  });

  void it("launches the m5.xlarge an overlay prices below the otherwise cheapest m5.large", async () => {
    assert.deepEqual(await validated("xlarge-cheap").then((c) => [c.status, c.reason]), [
      "True",
      "ValidationSucceeded",
    ]);
    const namespace = await deployment("inflate", { memory: "1Gi" });
    const claim = await eventually(
      "the inflate pod Running on a Ready NodeClaim",
      async () => {
        const [running, claims] = await Promise.all([runningPods(env, namespace), nodeClaims(env)]);
        return running.length === 1 && claims.length === 1 && claims.every(isReady) ? claims[0] : undefined;
      },
      90_000,
      250,
    );
    assert.equal(claim?.metadata.labels?.["node.kubernetes.io/instance-type"], "m5.xlarge");
    // Karpenter's marker, which also makes the launch follow the overlaid priorities (prioritized allocation).
    const annotations = (claim?.metadata as { annotations?: Record<string, string> } | undefined)?.annotations;
    assert.equal(annotations?.["karpenter.sh/price-overlay-applied"], "true");
    const instances = await liveInstances(env);
    assert.deepEqual(
      instances.map((i) => [i.type, i.nodeClaim]),
      [["m5.xlarge", claim?.metadata.name]],
    );
  });

  void it("runs a pod asking for example.com/device once an overlay adds that capacity", async () => {
    await createOverlay("device", {
      requirements: [{ key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["m5"] }],
      capacity: { "example.com/device": "1" },
    });
    assert.equal((await validated("device")).status, "True");
    const namespace = await deployment("device", { memory: "1Gi", "example.com/device": "1" });
    const [pod] = await eventually(
      "the device pod Running",
      async () => {
        const running = await runningPods(env, namespace);
        return running.length === 1 ? running : undefined;
      },
      90_000,
      250,
    );
    const node = await env.kubeConfig.makeApiClient(CoreV1Api).readNode({ name: pod?.node ?? "" });
    assert.equal(node.status?.capacity?.["example.com/device"], "1");
  });

  void it("marks the earlier name of two equal-weight overlays on the same offering as in conflict", async () => {
    const spec = (adjustment: string): Record<string, unknown> => ({
      weight: 50,
      requirements: [{ key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.large"] }],
      priceAdjustment: adjustment,
    });
    await createOverlay("conflict-a", spec("+10%"));
    await createOverlay("conflict-b", spec("+20%"));
    const a = await eventually(
      "conflict-a to be marked in conflict",
      async () => {
        const c = await condition("conflict-a", "ValidationSucceeded");
        return c?.status === "False" ? c : undefined;
      },
      60_000,
      200,
    );
    assert.deepEqual([a.reason, a.message], ["Conflict", "conflict with another overlay"]);
    const ready = await condition("conflict-a", "Ready");
    assert.deepEqual(
      [ready?.status, ready?.reason, ready?.message],
      ["False", "UnhealthyDependents", "ValidationSucceeded=False"],
    );
    assert.equal((await validated("conflict-b")).status, "True");
  });

  void it("tells each overlay, with a Warning Event, that an operator with the gate off does not apply it", async () => {
    stopped = true;
    await op.stop();
    let off: RunningOperator | undefined;
    try {
      off = await replica(env, "overlay-off", { DISABLE_LEADER_ELECTION: "true", FEATURE_GATES: "NodeOverlay=false" });
      const events = await eventually(
        "a NodeOverlayNotApplied Event on xlarge-cheap",
        async () => {
          const list = await env.kubeConfig
            .makeApiClient(CoreV1Api)
            .listEventForAllNamespaces({ fieldSelector: "reason=NodeOverlayNotApplied" });
          const on = list.items.filter(
            (e) => e.involvedObject.kind === "NodeOverlay" && e.involvedObject.name === "xlarge-cheap",
          );
          return on.length > 0 ? on : undefined;
        },
        60_000,
        250,
      );
      assert.equal(events[0]?.type, "Warning");
      assert.match(events[0]?.message ?? "", /feature gate NodeOverlay=false/);
    } finally {
      await off?.stop();
    }
  });
});

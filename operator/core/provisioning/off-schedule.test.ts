// Scheduled capacity in the provisioning plan: a pool off under kerf.dev/off-schedule launches nothing, and the pods
// it would have launched for are named with its state (the provisioner's NodePoolOff Event).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { toInstanceTypes } from "../../../policies/domain/catalog/catalog.ts";
import type { Pod } from "../lifecycle/objects.ts";
import { planProvisioning, type ClusterView, type NodePoolObject } from "./plan.ts";

const types = toInstanceTypes(builtinCatalog(), { zones: new Set(["us-east-1a"]) });
const NIGHT = "2026-11-27T23:00:00Z";
const NOON = "2026-11-27T12:00:00Z";
const NIGHTLY = JSON.stringify([{ schedule: "0 20 * * *", duration: "10h" }]);

function nodePool(name: string, offSchedule?: string, weight = 0): NodePoolObject {
  return {
    metadata: {
      name,
      uid: `uid-${name}`,
      ...(offSchedule === undefined ? {} : { annotations: { "kerf.dev/off-schedule": offSchedule } }),
    },
    spec: {
      weight,
      template: {
        metadata: { labels: { pool: name } },
        spec: {
          nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
          requirements: [{ key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] }],
        },
      },
    },
    status: { conditions: [{ type: "Ready", status: "True" }] },
  };
}

function pod(nodeSelector?: Record<string, string>): Pod {
  return {
    metadata: { name: "web", namespace: "default", uid: "uid-web", creationTimestamp: "2026-11-27T00:00:00Z" },
    spec: {
      containers: [{ name: "c", resources: { requests: { memory: "1Gi" } } }],
      ...(nodeSelector === undefined ? {} : { nodeSelector }),
    },
    status: { phase: "Pending", conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable" }] },
  } as Pod;
}

void describe("the provisioning plan under kerf.dev/off-schedule", () => {
  // [title, pools, pod's nodeSelector, now, pools given claims, pools holding the pod (with until)]
  const cases: [
    string,
    NodePoolObject[],
    Record<string, string> | undefined,
    string | undefined,
    string[],
    string[],
  ][] = [
    [
      "an off pool launches nothing and holds the pod until its window closes",
      [nodePool("dev", NIGHTLY)],
      undefined,
      NIGHT,
      [],
      ["dev until 2026-11-28T06:00:00.000Z"],
    ],
    ["a pool whose window is closed launches as usual", [nodePool("dev", NIGHTLY)], undefined, NOON, ["dev"], []],
    ["a pool without the annotation launches as usual", [nodePool("dev")], undefined, NIGHT, ["dev"], []],
    ["without a time every pool is on", [nodePool("dev", NIGHTLY)], undefined, undefined, ["dev"], []],
    ["an unusable annotation leaves the pool on", [nodePool("dev", "nightly")], undefined, NIGHT, ["dev"], []],
    [
      "another pool that is on serves the pod, so nothing holds it",
      [nodePool("dev", NIGHTLY, 50), nodePool("prod")],
      undefined,
      NIGHT,
      ["prod"],
      [],
    ],
    [
      "a pod only the off pool could serve is held by it alone",
      [nodePool("dev", NIGHTLY), nodePool("prod")],
      { pool: "dev" },
      NIGHT,
      [],
      ["dev until 2026-11-28T06:00:00.000Z"],
    ],
  ];
  for (const [title, nodePools, selector, now, claims, held] of cases) {
    void it(title, () => {
      const cluster: ClusterView = { pods: [], nodes: [], nodeClaims: [], nodePools, daemonSets: [] };
      const instanceTypes = new Map(nodePools.map((p) => [p.metadata?.name ?? "", types]));
      const plan = planProvisioning({
        cluster,
        pending: [pod(selector)],
        instanceTypes,
        now: now === undefined ? undefined : Date.parse(now),
      });
      assert.deepEqual(
        plan.claims.map((c) => c.nodePool),
        claims,
      );
      assert.deepEqual(
        plan.heldByOffPools.map((h) => `${h.nodePool} until ${h.state.until?.toISOString() ?? "-"}`),
        held,
      );
      assert.ok(plan.heldByOffPools.every((h) => h.pod.metadata?.name === "web"));
    });
  }
});

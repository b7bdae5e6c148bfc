import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { toInstanceTypes } from "../../../policies/domain/catalog/catalog.ts";
import type { NodeClaim, Pod } from "../../core/lifecycle/objects.ts";
import type { ClusterView, NodeClaimManifest } from "../../core/provisioning/plan.ts";
import type { SimulateOptions } from "../../core/scheduling/types.ts";
import type { OperatorEvent } from "../../observability/events.ts";
import { silentLogger } from "../../observability/logger.ts";
import { createMetrics } from "../../observability/metrics.ts";
import type { Cluster } from "../../ports/cluster.ts";
import { Batcher } from "./batcher.ts";
import { Provisioner } from "./provisioner.ts";

const types = toInstanceTypes(builtinCatalog(), { zones: new Set(["us-east-1a"]) });
const pool = {
  metadata: { name: "default", uid: "uid-default" },
  spec: {
    template: {
      spec: {
        nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
        requirements: [{ key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] }],
      },
    },
  },
  status: { conditions: [{ type: "Ready", status: "True" }] },
};
const pending: Pod[] = Array.from({ length: 3 }, (_, i) => ({
  metadata: { name: `p-${i}`, namespace: "default", uid: `uid-${i}` },
  spec: { containers: [{ name: "c", resources: { requests: { memory: "1Gi" } } }] } as Pod["spec"],
  status: { phase: "Pending", conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable" }] },
}));

/** A cluster whose informer never delivers what is created, but which reads its own creates, as the port promises. */
function laggingCluster(failCreates = 0): { cluster: Cluster; created: NodeClaimManifest[] } {
  const created: NodeClaimManifest[] = [];
  const ownCreates: NodeClaim[] = [];
  let failures = failCreates;
  const cluster = {
    synced: true,
    snapshot: (): ClusterView => ({
      pods: pending,
      nodes: [],
      nodeClaims: [...ownCreates],
      nodePools: [pool],
      daemonSets: [],
    }),
    pendingPods: () => pending,
    nodeClaim: (name: string) => ownCreates.find((c) => c.metadata?.name === name),
    createNodeClaim: async (manifest: NodeClaimManifest): Promise<NodeClaim> => {
      if (failures-- > 0) throw new Error("creating a nodeclaim: apiserver unavailable");
      created.push(manifest);
      const claim = {
        metadata: { ...manifest.metadata, name: `${manifest.metadata.generateName}${created.length}` },
        spec: manifest.spec as NodeClaim["spec"],
      };
      ownCreates.push(claim);
      return claim;
    },
  } as unknown as Cluster;
  return { cluster, created };
}

function provisioner(
  cluster: Cluster,
  events: OperatorEvent[] = [],
  scheduling?: SimulateOptions,
): { p: Provisioner; batcher: Batcher } {
  const batcher = new Batcher({ idleMs: 1_000, maxMs: 10_000 });
  const p = new Provisioner({
    cluster,
    cloud: { getInstanceTypes: async () => types },
    events: { publish: (e) => events.push(e) },
    metrics: createMetrics(),
    logger: silentLogger(),
    batcher,
    ...(scheduling === undefined ? {} : { scheduling }),
  });
  return { p, batcher };
}

void describe("the provisioner", () => {
  void it("should count a NodeClaim it created before the informer delivers it, so the next batch creates none", async () => {
    const { cluster, created } = laggingCluster();
    const events: OperatorEvent[] = [];
    const { p } = provisioner(cluster, events);
    const first = await p.provision();
    assert.equal(first?.claims.length, 1);
    const second = await p.provision();
    assert.equal(created.length, 1);
    assert.deepEqual(second?.claims, []);
    assert.deepEqual(new Set(second?.nominations.map((n) => n.target)), new Set(["nodeclaim/default-1"]));
    assert.deepEqual(
      new Set(events.filter((e) => e.reason === "Nominated").map((e) => e.message)),
      new Set(["Pod should schedule on: nodeclaim/default-1"]),
    );
  });

  void it("should open a new batch window when creating a NodeClaim fails, and create it then", async () => {
    const { cluster, created } = laggingCluster(1);
    const { p, batcher } = provisioner(cluster);
    await p.provision();
    assert.equal(created.length, 0);
    assert.equal(batcher.open, true, "the failure re-triggers provisioning");
    await p.provision();
    assert.equal(created.length, 1);
  });

  void it("should plan with the operator's scheduling options (--max-price-ratio)", async () => {
    // Three 1Gi pods share one NodeClaim by default; at ratio 1 no NodeClaim may grow past what its pods are worth.
    assert.equal((await provisioner(laggingCluster().cluster).p.provision())?.claims.length, 1);
    assert.equal(
      (await provisioner(laggingCluster().cluster, [], { maxPriceRatio: 1 }).p.provision())?.claims.length,
      3,
    );
  });

  void it("should report pods that fit nowhere as FailedScheduling events", async () => {
    const { cluster } = laggingCluster();
    const events: OperatorEvent[] = [];
    const { p } = provisioner(
      { ...cluster, snapshot: () => ({ ...cluster.snapshot(), nodePools: [] }) } as Cluster,
      events,
    );
    await p.provision();
    const failed = events.filter((e) => e.reason === "FailedScheduling");
    assert.equal(failed.length, 3);
    assert.match(
      failed[0]?.message ?? "",
      /^Failed to schedule pod, no existing node can take the pod and no NodePool can launch nodes/,
    );
  });

  void it("should give a pod with DRA requirements a FailedScheduling event with Karpenter's reason and launch nothing for it (issue 22 item 8)", async () => {
    const dra: Pod = {
      ...pending[0]!,
      metadata: { name: "trainer", namespace: "default", uid: "uid-dra" },
      spec: { ...pending[0]!.spec, resourceClaims: [{ name: "gpu", resourceClaimName: "gpu-claim" }] } as Pod["spec"],
    };
    const { cluster, created } = laggingCluster();
    const events: OperatorEvent[] = [];
    const only = {
      ...cluster,
      pendingPods: () => [dra],
      snapshot: () => ({ ...cluster.snapshot(), pods: [dra] }),
    } as Cluster;
    await provisioner(only, events).p.provision();
    assert.equal(created.length, 0);
    const failed = events.filter((e) => e.reason === "FailedScheduling");
    assert.equal(failed.length, 1);
    assert.match(
      failed[0]?.message ?? "",
      /pod has Dynamic Resource Allocation requirements that are not yet supported by Karpenter/,
    );
  });
});

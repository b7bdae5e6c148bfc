/**
 * Taking over a fleet from Karpenter v1.14 (real apiserver, scheduler, kubelet simulation, moto):
 * NodePools, EC2NodeClasses and NodeClaims carry Karpenter's hash annotations (nodepool-hash-version
 * v3, ec2nodeclass-hash-version v5, hash values kerf cannot reproduce), its finalizers and labels.
 * kerf's operator starts on them and must replace nothing: the hashes are re-stamped with kerf's
 * version, no NodeClaim becomes Drifted, every instance keeps its NodeClaim and the pods keep running.
 * The fleet is built by a first operator and then rewritten to Karpenter's annotations, which is what
 * the objects look like after `helm uninstall karpenter` (its CRDs and objects stay).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CustomObjectsApi } from "@kubernetes/client-node";
import { mergePatch } from "../../operator/adapters/kube/client.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { replica } from "./operator-fixtures.ts";
import {
  consistency,
  createInflate,
  nodeClaims,
  ON_DEMAND,
  runningPods,
  runOperatorOnCluster,
  WORKSHOP_FAMILIES,
  type OperatorOnCluster,
} from "./provisioning-fixtures.ts";

const NODEPOOLS = { group: "karpenter.sh", version: "v1", plural: "nodepools" } as const;
const NODECLAIMS = { group: "karpenter.sh", version: "v1", plural: "nodeclaims" } as const;
const NODECLASSES = { group: "karpenter.k8s.aws", version: "v1", plural: "ec2nodeclasses" } as const;
const KARPENTER = {
  "karpenter.sh/nodepool-hash": "6821555240504101244",
  "karpenter.sh/nodepool-hash-version": "v3",
  "karpenter.k8s.aws/ec2nodeclass-hash": "15535182697325354914",
  "karpenter.k8s.aws/ec2nodeclass-hash-version": "v5",
};

interface Stamped {
  metadata: { name: string; annotations?: Record<string, string>; finalizers?: string[] };
  status?: { conditions?: { type: string; status: string; reason?: string }[] };
}

void describe("migrating from Karpenter v1.14", () => {
  let env: TestEnvironment;
  let op: OperatorOnCluster | undefined;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
  });
  after(async () => {
    await op?.stop();
  });

  void it("should take over Karpenter's NodePools, EC2NodeClasses and NodeClaims without replacing a node or leaking an instance", async () => {
    const first = await runOperatorOnCluster(
      env,
      "before-migration",
      {},
      { disruption: { pollMs: 1000, validationDelayMs: 1000 } },
    );
    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    await custom.createClusterCustomObject({
      ...NODEPOOLS,
      body: {
        apiVersion: "karpenter.sh/v1",
        kind: "NodePool",
        metadata: { name: "default" },
        spec: {
          disruption: { consolidationPolicy: "WhenEmptyOrUnderutilized", consolidateAfter: "0s" },
          template: {
            metadata: { labels: { team: "a" } },
            spec: {
              nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
              requirements: [ON_DEMAND, WORKSHOP_FAMILIES],
            },
          },
        },
      },
    });
    const namespace = await createInflate(env, 8);
    const fleet = await eventually(
      "8 pods running on initialized NodeClaims",
      async () => {
        const claims = await nodeClaims(env);
        const initialized = claims.every((c) =>
          c.status?.conditions?.some((x) => x.type === "Initialized" && x.status === "True"),
        );
        return (await runningPods(env, namespace)).length === 8 && claims.length >= 1 && initialized
          ? claims
          : undefined;
      },
      90_000,
      250,
    );
    await first.operator.stop();

    // What Karpenter leaves: its hash versions and values on every object, its finalizers in place.
    for (const c of fleet)
      await custom.patchClusterCustomObject(
        { ...NODECLAIMS, name: c.metadata.name, body: { metadata: { annotations: KARPENTER } } },
        mergePatch,
      );
    await custom.patchClusterCustomObject(
      {
        ...NODEPOOLS,
        name: "default",
        body: {
          metadata: {
            annotations: {
              "karpenter.sh/nodepool-hash": KARPENTER["karpenter.sh/nodepool-hash"],
              "karpenter.sh/nodepool-hash-version": "v3",
            },
          },
        },
      },
      mergePatch,
    );
    await custom.patchClusterCustomObject(
      {
        ...NODECLASSES,
        name: "default",
        body: {
          metadata: {
            annotations: {
              "karpenter.k8s.aws/ec2nodeclass-hash": KARPENTER["karpenter.k8s.aws/ec2nodeclass-hash"],
              "karpenter.k8s.aws/ec2nodeclass-hash-version": "v5",
            },
          },
        },
      },
      mergePatch,
    );
    const before_ = await consistency(env);
    assert.equal(before_.leaked.length, 0);

    const second = await replica(
      env,
      "after-migration",
      { DISABLE_LEADER_ELECTION: "true" },
      { disruption: { pollMs: 1000, validationDelayMs: 1000 } },
    );
    op = {
      operator: second,
      sim: first.sim,
      stop: async () => {
        await first.sim.stop();
        await second.stop();
      },
    };
    const names = fleet.map((c) => c.metadata.name).sort();
    await eventually(
      "every NodeClaim re-stamped with kerf's hash versions",
      async () => {
        const claims = (await custom.listClusterCustomObject(NODECLAIMS)) as { items: Stamped[] };
        return (
          claims.items.length === names.length &&
          claims.items.every(
            (c) =>
              c.metadata.annotations?.["karpenter.sh/nodepool-hash-version"] === "kerf-1" &&
              c.metadata.annotations["karpenter.k8s.aws/ec2nodeclass-hash-version"] === "kerf-2",
          )
        );
      },
      60_000,
      250,
    );
    // Several disruption passes (1 s poll) and status reconciles later, nothing may have moved.
    await new Promise((r) => setTimeout(r, 8000));
    const claims = (await custom.listClusterCustomObject(NODECLAIMS)) as { items: Stamped[] };
    assert.deepEqual(claims.items.map((c) => c.metadata.name).sort(), names, "the same NodeClaims, none replaced");
    assert.ok(
      claims.items.every((c) => !(c.status?.conditions ?? []).some((x) => x.type === "Drifted")),
      "no NodeClaim is Drifted",
    );
    assert.ok(
      claims.items.every((c) => (c.metadata as { deletionTimestamp?: string }).deletionTimestamp === undefined),
      "none is being deleted",
    );
    assert.ok(
      claims.items.every((c) => c.metadata.finalizers?.includes("karpenter.sh/termination")),
      "Karpenter's finalizer stays",
    );
    const pool = (await custom.getClusterCustomObject({ ...NODEPOOLS, name: "default" })) as Stamped;
    assert.equal(pool.metadata.annotations?.["karpenter.sh/nodepool-hash-version"], "kerf-1");
    const after_ = await consistency(env);
    assert.deepEqual(
      after_.instances.map((i) => i.id).sort(),
      before_.instances.map((i) => i.id).sort(),
      "the same instances run",
    );
    assert.equal(after_.leaked.length, 0);
    assert.equal((await runningPods(env, namespace)).length, 8);

    // And drift still works after the takeover: a template change now replaces the nodes.
    await custom.patchClusterCustomObject(
      { ...NODEPOOLS, name: "default", body: { spec: { template: { metadata: { labels: { team: "b" } } } } } },
      mergePatch,
    );
    await eventually(
      "a NodeClaim is marked NodePoolDrifted",
      async () => {
        const now = (await custom.listClusterCustomObject(NODECLAIMS)) as { items: Stamped[] };
        return now.items.some((c) =>
          (c.status?.conditions ?? []).some((x) => x.type === "Drifted" && x.reason === "NodePoolDrifted"),
        );
      },
      60_000,
      250,
    );
  });
});

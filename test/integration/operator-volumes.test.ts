/**
 * Zonal volumes end to end (real apiserver, kube-scheduler, controller-manager with the StatefulSet and
 * PersistentVolume binder controllers, kubelet simulation, moto): a StatefulSet whose claim is pre-bound
 * to an EBS PersistentVolume in us-east-1b gets its node in us-east-1b, although a node with room runs
 * in us-east-1a; and while consolidation replaces the other node (underutilized) and then deletes it
 * (empty), the StatefulSet's pod is never moved off its zone.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { AppsV1Api, CoreV1Api, StorageV1Api } from "@kubernetes/client-node";
import { createTestNamespace } from "../harness/reset.ts";
import type { TestEnvironment } from "../harness/use-environment.ts";
import { useEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { createPool, ofPool, ready, scale } from "./disruption-fixtures.ts";
import {
  consistency,
  liveInstances,
  runOperatorOnCluster,
  type Claim,
  type OperatorOnCluster,
} from "./provisioning-fixtures.ts";

const POOL = "volumes";
const ZONE = "topology.kubernetes.io/zone";
const CLASS = "kerf-test-zonal-ebs";
const PV = "kerf-test-volume-b";
const FAST = { disruption: { pollMs: 1000, validationDelayMs: 2000 } };
const PAUSE = "public.ecr.aws/eks-distro/kubernetes/pause:3.7";

const zoneOfClaim = (c: Claim): string | undefined =>
  c.metadata.labels?.[ZONE] ??
  c.spec.requirements.find((r) => r.key === ZONE && r.operator === "In" && r.values?.length === 1)?.values?.[0];

/** The pool's NodeClaims not being deleted, initialized. */
async function liveClaims(env: TestEnvironment): Promise<Claim[]> {
  return (await ofPool(env, POOL)).filter((c) => c.metadata.deletionTimestamp === undefined && ready(c));
}

/** Where a pod runs: its node and that node's zone (undefined until it runs). */
async function placement(
  env: TestEnvironment,
  namespace: string,
  pod: string,
): Promise<{ node: string; zone: string } | undefined> {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const p = await core.readNamespacedPod({ namespace, name: pod });
  const node = p.spec?.nodeName ?? "";
  if (p.status?.phase !== "Running" || node === "") return undefined;
  const n = await core.readNode({ name: node });
  return { node, zone: n.metadata?.labels?.[ZONE] ?? "" };
}

/** The EBS StorageClass, and a PV in us-east-1b pre-bound to `namespace/data-db-0` with its claim. */
async function zonalVolume(env: TestEnvironment, namespace: string): Promise<void> {
  await env.kubeConfig.makeApiClient(StorageV1Api).createStorageClass({
    body: {
      metadata: { name: CLASS },
      provisioner: "ebs.csi.aws.com",
      volumeBindingMode: "WaitForFirstConsumer",
    },
  });
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  await core.createPersistentVolume({
    body: {
      metadata: { name: PV },
      spec: {
        capacity: { storage: "10Gi" },
        accessModes: ["ReadWriteOnce"],
        storageClassName: CLASS,
        persistentVolumeReclaimPolicy: "Retain",
        csi: { driver: "ebs.csi.aws.com", volumeHandle: "vol-0123456789abcdef0", fsType: "ext4" },
        claimRef: { namespace, name: "data-db-0" },
        // The well-known zone key, as the EBS CSI driver writes it: kube-scheduler matches it against the Node's labels
        // (the driver's own key, topology.ebs.csi.aws.com/zone, is a label only its node plugin adds; the unit tests
        // cover kerf reading it as the zone).
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: "In", values: ["us-east-1b"] }] }],
          },
        },
      },
    },
  });
  await core.createNamespacedPersistentVolumeClaim({
    namespace,
    body: {
      metadata: { name: "data-db-0" },
      spec: {
        accessModes: ["ReadWriteOnce"],
        storageClassName: CLASS,
        volumeName: PV,
        resources: { requests: { storage: "10Gi" } },
      },
    },
  });
  await eventually(
    "the claim bound to its volume",
    async () =>
      (await core.readNamespacedPersistentVolumeClaim({ namespace, name: "data-db-0" })).status?.phase === "Bound",
    30_000,
    250,
  );
}

function podTemplate(app: string, nodeSelector: Record<string, string>): object {
  return {
    metadata: { labels: { app } },
    spec: {
      terminationGracePeriodSeconds: 0,
      nodeSelector: { "karpenter.sh/nodepool": POOL, ...nodeSelector },
      containers: [
        {
          name: "pause",
          image: PAUSE,
          resources: { requests: { memory: "1Gi" } },
          volumeMounts: app === "db" ? [{ name: "data", mountPath: "/data" }] : [],
        },
      ],
    },
  };
}

void describe("zonal volumes on the real environment", () => {
  let env: TestEnvironment;
  let op: OperatorOnCluster;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    op = await runOperatorOnCluster(env, "volumes", {}, FAST);
  });
  after(async () => {
    // Cluster-scoped: the reset between files does not remove them.
    await env.kubeConfig
      .makeApiClient(CoreV1Api)
      .deletePersistentVolume({ name: PV })
      .catch(() => undefined);
    await env.kubeConfig
      .makeApiClient(StorageV1Api)
      .deleteStorageClass({ name: CLASS })
      .catch(() => undefined);
    await op.stop();
  });

  void it("should launch the StatefulSet's node in its volume's zone and never consolidate it across zones", async () => {
    await createPool(env, POOL);
    const namespace = await createTestNamespace(env.kubeConfig, POOL);
    const apps = env.kubeConfig.makeApiClient(AppsV1Api);
    // A node in us-east-1a with room to spare (six 1 GiB pods: an m5.large, as in operator-disruption.test.ts).
    await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: "web" },
        spec: {
          replicas: 6,
          selector: { matchLabels: { app: "web" } },
          template: podTemplate("web", { [ZONE]: "us-east-1a" }),
        },
      },
    });
    const [nodeA] = await eventually(
      "the web pods on one node in us-east-1a",
      async () => {
        const claims = await liveClaims(env);
        return claims.length === 1 && zoneOfClaim(claims[0]!) === "us-east-1a" ? claims : undefined;
      },
      90_000,
      250,
    );

    await zonalVolume(env, namespace);
    await apps.createNamespacedStatefulSet({
      namespace,
      body: {
        metadata: { name: "db" },
        spec: {
          serviceName: "db",
          replicas: 1,
          selector: { matchLabels: { app: "db" } },
          template: podTemplate("db", {}),
          volumeClaimTemplates: [
            {
              metadata: { name: "data" },
              spec: {
                accessModes: ["ReadWriteOnce"],
                storageClassName: CLASS,
                resources: { requests: { storage: "10Gi" } },
              },
            },
          ],
        },
      },
    });
    const home = await eventually("db-0 running", () => placement(env, namespace, "db-0"), 90_000, 250);
    assert.equal(home.zone, "us-east-1b", "the node of the StatefulSet's pod is in its volume's zone");
    assert.notEqual(home.node, nodeA?.status?.nodeName, "not the us-east-1a node that had room");
    const instances = await liveInstances(env);
    assert.ok(
      instances.some((i) => i.zone === "us-east-1b"),
      "an instance launched in us-east-1b",
    );

    // The web node becomes underutilized, then empty. One node for web and db together, or db moved beside the web
    // pod, would be cheaper, but crosses zones; what consolidation may do is replace the web node by a cheaper one in
    // us-east-1a (which shows that it looked at the nodes with the scaled-down web), then delete it once empty.
    let movedTo: string | undefined;
    /** Waits for `done` while watching db-0: stops early (and the test fails) once it runs anywhere else. */
    const watching = <T>(what: string, done: () => Promise<T | undefined>, timeoutMs: number): Promise<T | true> =>
      eventually(
        what,
        async () => {
          const now = await placement(env, namespace, "db-0");
          if (now !== undefined && (now.node !== home.node || now.zone !== "us-east-1b"))
            movedTo = `${now.node} (${now.zone})`;
          return movedTo !== undefined ? true : await done();
        },
        timeoutMs,
        250,
      );
    await scale(env, namespace, "web", 1);
    const replaced = await watching(
      "the web node replaced by a cheaper one in us-east-1a",
      async () => {
        const claims = await liveClaims(env);
        const web = claims.filter((c) => c.status?.nodeName !== home.node);
        const ok =
          claims.length === 2 &&
          web.length === 1 &&
          web[0]?.metadata.name !== nodeA?.metadata.name &&
          zoneOfClaim(web[0]!) === "us-east-1a";
        return ok ? web[0] : undefined;
      },
      120_000,
    );
    assert.equal(movedTo, undefined, "db-0 stays on its node while the web node is underutilized");
    assert.notEqual(replaced, true);
    await scale(env, namespace, "web", 0);
    await watching(
      "the empty web node consolidated away",
      async () => {
        const claims = await liveClaims(env);
        return claims.length === 1 && claims[0]?.status?.nodeName === home.node ? true : undefined;
      },
      120_000,
    );
    assert.equal(movedTo, undefined, "db-0 stays on its node while the empty web node goes");
    // Quiet before the operator stops: the web node's termination done, no instance left without its NodeClaim.
    await eventually(
      "the web node terminated, no leaked instance",
      async () => {
        const { claims, leaked } = await consistency(env);
        return claims.length === 1 && leaked.length === 0;
      },
      60_000,
      250,
    );
    assert.deepEqual(await placement(env, namespace, "db-0"), home, "db-0 still on its node in us-east-1b");
  });
});

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { DescribeInstancesCommand } from "@aws-sdk/client-ec2";
import { CustomObjectsApi, StorageV1Api } from "@kubernetes/client-node";
import type { RunningOperator } from "../../operator/main.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { clients } from "./aws-fixtures.ts";
import {
  NODECLAIMS,
  runOperatorOnCluster,
  type OperatorOnCluster,
  createM5NodeClaim,
  claimWithCondition,
} from "./provisioning-fixtures.ts";

interface Condition {
  type: string;
  status: string;
  reason?: string;
}
interface Claim {
  status?: { providerID?: string; nodeName?: string; conditions?: Condition[] };
}
const conditionOf = (c: Claim, type: string): Condition | undefined =>
  c.status?.conditions?.find((x) => x.type === type);

void describe("termination waits for VolumeAttachments on the real apiserver, kwok and moto", () => {
  let env: TestEnvironment;
  let running: OperatorOnCluster;
  let operator: RunningOperator;
  let custom: CustomObjectsApi;
  let storage: StorageV1Api;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    storage = env.kubeConfig.makeApiClient(StorageV1Api);
    running = await runOperatorOnCluster(env, "termination-volumes");
    operator = running.operator;
  });
  after(async () => {
    await running.stop();
    for (const name of ["csi-volumes-a", "csi-volumes-b"])
      await storage.deleteVolumeAttachment({ name }).catch(() => undefined);
  });

  /** Creates a NodeClaim and waits until its Node is initialized; returns its node name and instance id. */
  async function readyNodeClaim(
    name: string,
    terminationGracePeriod?: string,
  ): Promise<{ nodeName: string; instanceID: string }> {
    await createM5NodeClaim(env, name, {
      zone: "us-east-1a",
      ...(terminationGracePeriod === undefined ? {} : { terminationGracePeriod }),
    });
    const claim = await claimWithCondition(env, name, "Initialized", 120_000);
    return { nodeName: claim.status?.nodeName ?? "", instanceID: claim.status?.providerID?.split("/").pop() ?? "" };
  }

  /** A VolumeAttachment as the attach-detach controller would write it for a CSI PersistentVolume on `nodeName`. */
  const attach = (name: string, nodeName: string): Promise<unknown> =>
    storage.createVolumeAttachment({
      body: {
        metadata: { name },
        spec: { attacher: "ebs.csi.aws.com", nodeName, source: { persistentVolumeName: `pv-${name}` } },
      },
    });

  const instanceState = async (id: string): Promise<string | undefined> =>
    (await clients(env.aws()).ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] }))).Reservations?.[0]
      ?.Instances?.[0]?.State?.Name;

  const gone = async (name: string): Promise<boolean> => {
    try {
      await custom.getClusterCustomObject({ ...NODECLAIMS, name });
      return false;
    } catch (e) {
      return (e as { code?: number }).code === 404;
    }
  };

  const lifecycleRequeues = async (): Promise<number> =>
    (await operator.metrics.reconcileTotal.get()).values
      .filter((v) => v.labels["controller"] === "nodeclaim.lifecycle" && v.labels["result"] === "requeue_after")
      .reduce((n, v) => n + v.value, 0);

  void it("should keep the instance while a VolumeAttachment references the drained node, and terminate it once the attachment is deleted", async () => {
    const { nodeName, instanceID } = await readyNodeClaim("volumes-a");
    await attach("csi-volumes-a", nodeName);
    await eventually(
      "the VolumeAttachment in the operator's cache",
      () => operator.state.volumeAttachments().some((va) => va.metadata?.name === "csi-volumes-a"),
      10_000,
    );

    await custom.deleteClusterCustomObject({ ...NODECLAIMS, name: "volumes-a" });
    const waiting = await eventually(
      "the drained NodeClaim to await volume detachment",
      async () => {
        const c = (await custom.getClusterCustomObject({ ...NODECLAIMS, name: "volumes-a" })) as Claim;
        return conditionOf(c, "Drained")?.status === "True" &&
          conditionOf(c, "VolumesDetached")?.reason === "AwaitingVolumeDetachment"
          ? c
          : undefined;
      },
      30_000,
      100,
    );
    assert.equal(conditionOf(waiting, "VolumesDetached")?.status, "Unknown");
    // Let the termination look again a few times (it polls every second) while the attachment stays.
    const before = await lifecycleRequeues();
    await eventually(
      "three more termination passes",
      async () => (await lifecycleRequeues()) >= before + 3,
      15_000,
      200,
    );
    assert.equal(await instanceState(instanceID), "running", "the instance is kept while the attachment exists");
    const still = (await custom.getClusterCustomObject({ ...NODECLAIMS, name: "volumes-a" })) as Claim;
    assert.equal(conditionOf(still, "InstanceTerminating"), undefined);

    await storage.deleteVolumeAttachment({ name: "csi-volumes-a" });
    await eventually("the NodeClaim to be gone once the attachment is", () => gone("volumes-a"), 30_000, 250);
    assert.ok(["shutting-down", "terminated"].includes((await instanceState(instanceID)) ?? ""));
  });

  void it("should stop waiting for a VolumeAttachment once the terminationGracePeriod has elapsed", async () => {
    const { nodeName, instanceID } = await readyNodeClaim("volumes-b", "5s");
    await attach("csi-volumes-b", nodeName);
    await eventually(
      "the VolumeAttachment in the operator's cache",
      () => operator.state.volumeAttachments().some((va) => va.metadata?.name === "csi-volumes-b"),
      10_000,
    );
    await custom.deleteClusterCustomObject({ ...NODECLAIMS, name: "volumes-b" });
    await eventually(
      "the NodeClaim to await volume detachment within its 5 s terminationGracePeriod",
      async () => {
        const c = (await custom.getClusterCustomObject({ ...NODECLAIMS, name: "volumes-b" })) as Claim;
        return conditionOf(c, "VolumesDetached")?.reason === "AwaitingVolumeDetachment";
      },
      4_000,
      100,
    );
    await eventually(
      "the NodeClaim to be gone after its terminationGracePeriod, the attachment still there",
      () => gone("volumes-b"),
      30_000,
      250,
    );
    assert.ok(["shutting-down", "terminated"].includes((await instanceState(instanceID)) ?? ""));
    assert.ok((await storage.readVolumeAttachment({ name: "csi-volumes-b" })).spec.nodeName === nodeName);
  });
});

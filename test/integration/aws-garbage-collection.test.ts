import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { DescribeInstancesCommand } from "@aws-sdk/client-ec2";
import { collectGarbage } from "../../operator/controllers/gc/controller.ts";
import type { GcNode, GcNodeClaim } from "../../operator/controllers/gc/plan.ts";
import { createLogger } from "../../operator/observability/logger.ts";
import type { AwsProviderGraph } from "../../operator/adapters/aws/factory.ts";
import { clients, nodeClaim, testClock, type TestClock } from "./aws-fixtures.ts";
import { useMotoSuite } from "./aws-moto-suite.ts";

const requirements = [
  { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.large"] },
  { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
];

void describe("garbage collection against moto", () => {
  const moto = useMotoSuite({ al2023: true, zones: ["us-east-1a"], defaultNodeClass: {} });

  async function state(instanceID: string): Promise<string | undefined> {
    const out = await clients(moto.aws()).ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceID] }));
    return out.Reservations?.[0]?.Instances?.[0]?.State?.Name;
  }

  interface Seen {
    deletedNodes: string[];
    logs: { msg: string; [field: string]: unknown }[];
  }

  interface Cluster {
    claims: GcNodeClaim[];
    deleted?: string[];
    nodes?: GcNode[];
    seen?: Seen;
  }

  function gc(
    clock: TestClock,
    cloudProvider: AwsProviderGraph["cloudProvider"],
    { claims, deleted = [], nodes = [], seen = { deletedNodes: [], logs: [] } }: Cluster,
  ): Promise<Awaited<ReturnType<typeof collectGarbage>>> {
    const logger = createLogger("info", {
      write: (line: string) => {
        seen.logs.push(JSON.parse(line) as Seen["logs"][number]);
      },
    });
    return collectGarbage({
      cloudProvider,
      clock,
      logger,
      listNodeClaims: async () => claims,
      listNodes: async () => nodes,
      deleteNodeClaim: async (name) => {
        deleted.push(name);
      },
      deleteNode: async (name) => {
        seen.deletedNodes.push(name);
      },
    });
  }

  void it("should terminate an orphaned instance older than 30 s and keep a young one", async () => {
    const clock = testClock();
    const { cloudProvider } = moto.providers(moto.aws(), clock);
    const orphan = await cloudProvider.create(nodeClaim("orphan", requirements));
    const launchTime = (await cloudProvider.get(orphan.providerID)).launchTime;

    clock.set(new Date(launchTime.getTime() + 10_000));
    const young = await gc(clock, cloudProvider, { claims: [] });
    assert.deepEqual(young.terminate, []);
    assert.equal(await state(orphan.instanceID), "running");

    clock.set(new Date(launchTime.getTime() + 31_000));
    const old = await gc(clock, cloudProvider, { claims: [] });
    assert.deepEqual(
      old.terminate.map((i) => i.instanceID),
      [orphan.instanceID],
    );
    assert.deepEqual(old.errors, []);
    assert.equal(await state(orphan.instanceID), "terminated");
  });

  void it("should keep an instance whose NodeClaim exists without a providerID, so the restarted launch adopts it", async () => {
    const clock = testClock();
    const crashed = moto.providers(moto.aws(), clock).cloudProvider;
    const launched = await crashed.create(nodeClaim("in-flight", requirements));
    clock.advance(10 * 60_000);
    const restarted = moto.providers(moto.aws(), clock).cloudProvider;
    const result = await gc(clock, restarted, { claims: [{ name: "in-flight" }] });
    assert.deepEqual(result.terminate, []);
    const adopted = await restarted.create(nodeClaim("in-flight", requirements));
    assert.equal(adopted.instanceID, launched.instanceID);
    assert.equal((await restarted.list()).length, 1, "no instance leaked");
  });

  void it("should delete NodeClaims whose instance is gone and keep those whose instance runs", async () => {
    const clock = testClock();
    const { cloudProvider } = moto.providers(moto.aws(), clock);
    const alive = await cloudProvider.create(nodeClaim("alive", requirements));
    const gone = await cloudProvider.create(nodeClaim("gone", requirements));
    await cloudProvider.delete(gone.providerID);
    const deleted: string[] = [];
    const result = await gc(clock, cloudProvider, {
      claims: [
        { name: "alive", providerID: alive.providerID },
        { name: "gone", providerID: gone.providerID },
      ],
      deleted,
    });
    assert.deepEqual(deleted, ["gone"]);
    assert.deepEqual(result.terminate, []);
  });

  void it("should delete the Node of each orphan it terminates and each launched Node whose instance is gone, logging every action", async () => {
    const clock = testClock();
    const { cloudProvider } = moto.providers(moto.aws(), clock);
    const orphan = await cloudProvider.create(nodeClaim("orphan", requirements));
    const held = await cloudProvider.create(nodeClaim("held", requirements));
    const gone = await cloudProvider.create(nodeClaim("gone", requirements));
    await cloudProvider.delete(gone.providerID);
    const unknown = "aws:///us-east-1a/i-0123456789abcdef0";
    const node = (name: string, providerID: string, launchedForNodeClaim = true): GcNode => ({
      name,
      providerID,
      launchedForNodeClaim,
    });
    const nodes = [
      node("of-orphan", orphan.providerID),
      node("of-held", held.providerID),
      node("of-gone", gone.providerID),
      node("of-unknown", unknown),
      node("not-launched-by-kerf", gone.providerID, false),
      { ...node("already-deleting", unknown), deleting: true },
    ];
    clock.set(new Date((await cloudProvider.get(orphan.providerID)).launchTime.getTime() + 31_000));
    const seen: Seen = { deletedNodes: [], logs: [] };
    const result = await gc(clock, cloudProvider, {
      claims: [{ name: "held", providerID: held.providerID }],
      nodes,
      seen,
    });

    assert.deepEqual(result.errors, []);
    assert.equal(await state(orphan.instanceID), "terminated");
    assert.equal(await state(held.instanceID), "running");
    assert.deepEqual(seen.deletedNodes.sort(), ["of-gone", "of-orphan", "of-unknown"]);
    const terminated = seen.logs.filter((l) => l.msg === "garbage collected cloudprovider instance");
    assert.deepEqual(
      terminated.map((l) => [l["instanceID"], l["nodeclaim"]]),
      [[orphan.instanceID, "orphan"]],
    );
    const deletedNodes = seen.logs.filter((l) => l.msg === "garbage collected node");
    assert.deepEqual(deletedNodes.map((l) => [l["node"], l["reason"]]).sort(), [
      ["of-gone", "instance-gone"],
      ["of-orphan", "orphaned-instance-terminated"],
      ["of-unknown", "instance-gone"],
    ]);

    // A pass killed after the termination: the next one finds the Node through its terminating
    // (or terminated) instance.
    const again: Seen = { deletedNodes: [], logs: [] };
    await gc(clock, cloudProvider, {
      claims: [{ name: "held", providerID: held.providerID }],
      nodes: [node("of-orphan", orphan.providerID)],
      seen: again,
    });
    assert.deepEqual(again.deletedNodes, ["of-orphan"]);
  });

  void it("should terminate a second instance tagged for a NodeClaim that recorded another one (a CreateFleet retried after a lost answer)", async () => {
    const clock = testClock();
    const { cloudProvider } = moto.providers(moto.aws(), clock);
    const lost = await cloudProvider.create(nodeClaim("twice", requirements), { knownNew: true });
    const recorded = await cloudProvider.create(nodeClaim("twice", requirements), { knownNew: true });
    clock.set(new Date((await cloudProvider.get(lost.providerID)).launchTime.getTime() + 31_000));
    const result = await gc(clock, cloudProvider, { claims: [{ name: "twice", providerID: recorded.providerID }] });
    assert.deepEqual(
      result.terminate.map((i) => i.instanceID),
      [lost.instanceID],
    );
    assert.equal(await state(lost.instanceID), "terminated");
    assert.equal(await state(recorded.instanceID), "running");
  });
});

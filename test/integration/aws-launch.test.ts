import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  CreateSubnetCommand,
  CreateTagsCommand,
  DescribeInstancesCommand,
  DescribeLaunchTemplatesCommand,
  DescribeSubnetsCommand,
} from "@aws-sdk/client-ec2";
import { CLUSTER, clients, nodeClaim, nodeClass, providers, testClock } from "./aws-fixtures.ts";
import { useMotoSuite } from "./aws-moto-suite.ts";

const onDemandM5 = [
  { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.large", "m5.xlarge"] },
  { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
  { key: "topology.kubernetes.io/zone", operator: "In", values: ["us-east-1a", "us-east-1b"] },
];

void describe("launching through AwsCloudProvider against moto", () => {
  const moto = useMotoSuite({
    faultProxy: true,
    al2023: true,
    zones: ["us-east-1a", "us-east-1b"],
    defaultNodeClass: { tags: { team: "platform" } },
  });

  void it("should launch with CreateFleet instant, cheapest override first, and tag the instance", async () => {
    const { cloudProvider } = moto.providers(moto.viaProxy());
    const launched = await cloudProvider.create(nodeClaim("claim-a", onDemandM5));
    assert.match(launched.providerID, /^aws:\/\/\/us-east-1[ab]\/i-[0-9a-f]+$/);
    assert.equal(launched.instanceType, "m5.large");
    assert.equal(launched.capacityType, "on-demand");
    assert.equal(launched.labels["karpenter.sh/capacity-type"], "on-demand");
    assert.equal(launched.labels["topology.kubernetes.io/zone"], launched.zone);
    assert.equal(launched.capacity["cpu"], "2");
    assert.ok(Number(launched.allocatable["pods"]) > 0);

    const request = moto.proxy.createFleetRequests[0];
    assert.ok(request !== undefined);
    assert.equal(request["Type"], "instant");
    assert.equal(request["TargetCapacitySpecification.TotalTargetCapacity"], "1");
    assert.equal(request["OnDemandOptions.AllocationStrategy"], "lowest-price");
    assert.equal(request["LaunchTemplateConfigs.1.Overrides.1.InstanceType"], "m5.large");
    assert.equal(request["LaunchTemplateConfigs.1.Overrides.1.Priority"], "0.096");
    assert.equal(request["LaunchTemplateConfigs.1.Overrides.3.InstanceType"], "m5.xlarge");
    const tagged = Object.entries(request)
      .filter(([k]) => /^TagSpecification\.\d+\.ResourceType$/.test(k))
      .map(([, v]) => v);
    assert.deepEqual(tagged.sort(), ["instance", "volume"]);

    const { ec2 } = clients(moto.aws());
    const described = await ec2.send(new DescribeInstancesCommand({ InstanceIds: [launched.instanceID] }));
    const tags = Object.fromEntries(
      (described.Reservations?.[0]?.Instances?.[0]?.Tags ?? []).map((t) => [t.Key, t.Value]),
    );
    assert.deepEqual(
      tags,
      {
        team: "platform",
        "karpenter.sh/nodepool": "default",
        "karpenter.sh/nodeclaim": "claim-a",
        "karpenter.k8s.aws/ec2nodeclass": "default",
        [`kubernetes.io/cluster/${CLUSTER}`]: "owned",
        "eks:eks-cluster-name": CLUSTER,
      },
      "no Name at launch: nodeclaim.tagging sets it to the Node's name once the node registered",
    );
  });

  void it("should override each zone with the subnet that has the most free IPs", async () => {
    const { ec2 } = clients(moto.aws());
    const vpc = (await ec2.send(new DescribeSubnetsCommand({}))).Subnets?.[0]?.VpcId;
    const small = await ec2.send(
      new CreateSubnetCommand({ VpcId: vpc, CidrBlock: "172.31.200.0/28", AvailabilityZone: "us-east-1a" }),
    );
    await ec2.send(
      new CreateTagsCommand({
        Resources: [small.Subnet?.SubnetId ?? ""],
        Tags: [{ Key: "karpenter.sh/discovery", Value: CLUSTER }],
      }),
    );
    const big = (
      await ec2.send(
        new DescribeSubnetsCommand({
          Filters: [
            { Name: "availability-zone", Values: ["us-east-1a"] },
            { Name: "default-for-az", Values: ["true"] },
          ],
        }),
      )
    ).Subnets?.[0]?.SubnetId;
    const { cloudProvider } = moto.providers(moto.viaProxy());
    await cloudProvider.create(
      nodeClaim("claim-ips", [
        ...onDemandM5.slice(0, 2),
        { key: "topology.kubernetes.io/zone", operator: "In", values: ["us-east-1a"] },
      ]),
    );
    const request = moto.proxy.createFleetRequests[0] ?? {};
    const subnets = Object.entries(request)
      .filter(([k]) => k.endsWith(".SubnetId"))
      .map(([, v]) => v);
    assert.ok(subnets.length > 0);
    assert.deepEqual([...new Set(subnets)], [big]);
  });

  void it("should create one launch template for equal content, reuse it, and delete it once unused", async () => {
    const clock = testClock();
    const { cloudProvider, launchTemplates } = moto.providers(moto.aws(), clock);
    await cloudProvider.create(nodeClaim("claim-1", onDemandM5));
    await cloudProvider.create(nodeClaim("claim-2", onDemandM5));
    const { ec2 } = clients(moto.aws());
    const owned = async (): Promise<string[]> =>
      (
        (
          await ec2.send(
            new DescribeLaunchTemplatesCommand({
              Filters: [{ Name: "tag:karpenter.k8s.aws/cluster", Values: [CLUSTER] }],
            }),
          )
        ).LaunchTemplates ?? []
      ).map((t) => t.LaunchTemplateName ?? "");
    const names = await owned();
    assert.equal(names.length, 1);
    assert.match(names[0] ?? "", /^karpenter\.k8s\.aws\/\d+$/);

    const spot = [
      { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.large"] },
      { key: "karpenter.sh/capacity-type", operator: "In", values: ["spot"] },
    ];
    await cloudProvider.create(nodeClaim("claim-3", spot));
    assert.equal((await owned()).length, 2, "a different capacity-type label is different content");

    assert.deepEqual((await launchTemplates.collect()).deleted, []);
    clock.advance(4 * 60_000);
    await cloudProvider.create(nodeClaim("claim-4", onDemandM5));
    clock.advance(2 * 60_000);
    const { deleted } = await launchTemplates.collect();
    assert.equal(deleted.length, 1, "only the template unused for 5 minutes goes");
    assert.deepEqual(await owned(), names);
  });

  void it("should return the existing instance instead of launching again after a crash before the status write", async () => {
    const first = moto.providers(moto.aws()).cloudProvider;
    const launched = await first.create(nodeClaim("claim-crash", onDemandM5));
    // A fresh provider graph stands for the restarted operator: no in-memory state survives.
    const restarted = moto.providers(moto.viaProxy()).cloudProvider;
    const again = await restarted.create(nodeClaim("claim-crash", onDemandM5));
    assert.equal(again.instanceID, launched.instanceID);
    assert.equal(again.providerID, launched.providerID);
    assert.equal(moto.proxy.createFleetRequests.length, 0, "no CreateFleet after the restart");
    const listed = (await restarted.list()).filter((i) => i.nodeClaimName === "claim-crash");
    assert.equal(listed.length, 1);
  });

  void it("should skip the lookup of an earlier launch only when the caller knows the NodeClaim is new", async () => {
    const cloud = moto.providers(moto.viaProxy()).cloudProvider;
    await cloud.create(nodeClaim("claim-known-new", onDemandM5), { knownNew: true });
    const beforeFleet = (): string[] => moto.proxy.actions.slice(0, moto.proxy.actions.indexOf("CreateFleet"));
    assert.deepEqual(
      beforeFleet().filter((a) => a === "DescribeInstances"),
      [],
    );
    moto.proxy.clear();
    await cloud.create(nodeClaim("claim-maybe-launched", onDemandM5));
    const actions = moto.proxy.actions.join(", ");
    assert.ok(beforeFleet().includes("DescribeInstances"), `actions before CreateFleet: ${actions}`);
  });

  void it("should fail with NodeClassNotReadyError when the node class is missing or selects nothing", async () => {
    const empty = nodeClass("empty", { subnetSelectorTerms: [{ tags: { no: "match" } }] });
    const { cloudProvider } = providers(moto.aws(), testClock(), new Map([["empty", empty]]));
    await assert.rejects(cloudProvider.create(nodeClaim("c", onDemandM5, "missing")), {
      name: "NodeClassNotReadyError",
    });
    await assert.rejects(cloudProvider.create(nodeClaim("c", onDemandM5, "empty")), {
      name: "NodeClassNotReadyError",
      message: /subnets/,
    });
  });

  void it("should get, list and delete instances and report a deleted one as not found", async () => {
    const { cloudProvider } = moto.providers(moto.aws());
    const launched = await cloudProvider.create(nodeClaim("claim-del", onDemandM5));
    assert.equal((await cloudProvider.get(launched.providerID)).nodeClaimName, "claim-del");
    assert.deepEqual(
      (await cloudProvider.list()).map((i) => i.instanceID),
      [launched.instanceID],
    );
    await cloudProvider.delete(launched.providerID);
    await assert.rejects(cloudProvider.get(launched.providerID), { name: "NodeClaimNotFoundError" });
    await assert.rejects(cloudProvider.delete(launched.providerID), { name: "NodeClaimNotFoundError" });
    assert.deepEqual(await cloudProvider.list(), []);
  });
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  CreateSubnetCommand,
  CreateTagsCommand,
  CreateVpcCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  RegisterImageCommand,
} from "@aws-sdk/client-ec2";
import { PutParameterCommand } from "@aws-sdk/client-ssm";
import { reconcileNodeClass } from "../../operator/controllers/nodeclass/controller.ts";
import type { EC2NodeClassStatus } from "../../operator/core/launch-template/node-class.ts";
import { clients, nodeClass, seedAl2023Alias, seedNodeRole, testClock } from "./aws-fixtures.ts";
import { useMotoSuite } from "./aws-moto-suite.ts";

void describe("EC2NodeClass selectors against moto", () => {
  const moto = useMotoSuite();

  void it("should resolve default-VPC subnets by id and by tag, terms ORed", async () => {
    const { ec2 } = clients(moto.aws());
    const subnets = (await ec2.send(new DescribeSubnetsCommand({}))).Subnets ?? [];
    const [a, b, c] = subnets;
    assert.ok(a?.SubnetId !== undefined && b?.SubnetId !== undefined && c?.SubnetId !== undefined);
    await ec2.send(new CreateTagsCommand({ Resources: [b.SubnetId], Tags: [{ Key: "team", Value: "blue" }] }));
    await ec2.send(new CreateTagsCommand({ Resources: [c.SubnetId], Tags: [{ Key: "team", Value: "green" }] }));
    const { resolver } = moto.providers(moto.aws());
    const cases = [
      { terms: [{ id: a.SubnetId }], want: [a.SubnetId] },
      { terms: [{ tags: { team: "blue" } }], want: [b.SubnetId] },
      { terms: [{ tags: { team: "*" } }], want: [b.SubnetId, c.SubnetId] },
      { terms: [{ id: a.SubnetId }, { tags: { team: "green" } }], want: [a.SubnetId, c.SubnetId] },
      { terms: [{ tags: { team: "red" } }], want: [] },
    ];
    for (const k of cases) {
      const facts = await resolver.resolve(nodeClass("x", { subnetSelectorTerms: k.terms }));
      assert.deepEqual(facts.subnets.map((s) => s.id).sort(), [...k.want].sort(), JSON.stringify(k.terms));
    }
    const one = await resolver.resolve(nodeClass("x", { subnetSelectorTerms: [{ id: a.SubnetId }] }));
    assert.equal(one.subnets[0]?.zone, a.AvailabilityZone);
    assert.equal(one.subnets[0]?.zoneId, a.AvailabilityZoneId);
  });

  void it("should resolve security groups by id, name and tag", async () => {
    const { ec2 } = clients(moto.aws());
    const group = (
      await ec2.send(new DescribeSecurityGroupsCommand({ Filters: [{ Name: "group-name", Values: ["default"] }] }))
    ).SecurityGroups?.[0];
    assert.ok(group?.GroupId !== undefined);
    await ec2.send(
      new CreateTagsCommand({ Resources: [group.GroupId], Tags: [{ Key: "karpenter.sh/discovery", Value: "kerf" }] }),
    );
    const { resolver } = moto.providers(moto.aws());
    for (const term of [{ id: group.GroupId }, { name: "default" }, { tags: { "karpenter.sh/discovery": "kerf" } }]) {
      const facts = await resolver.resolve(nodeClass("x", { securityGroupSelectorTerms: [term] }));
      assert.deepEqual(facts.securityGroups, [{ id: group.GroupId, name: "default" }], JSON.stringify(term));
    }
  });

  void it("should resolve an al2023 alias through the seeded SSM parameters with per-arch requirements", async () => {
    const amd = await seedAl2023Alias(moto.aws(), "x86_64");
    const arm = await seedAl2023Alias(moto.aws(), "arm64");
    const { resolver } = moto.providers(moto.aws());
    const facts = await resolver.resolve(nodeClass("x"));
    const byId = new Map(facts.amis.map((a) => [a.id, a]));
    assert.deepEqual([...byId.keys()].sort(), [amd, arm].sort());
    assert.deepEqual(byId.get(amd)?.requirements[0], { key: "kubernetes.io/arch", operator: "In", values: ["amd64"] });
    assert.deepEqual(byId.get(arm)?.requirements[0], { key: "kubernetes.io/arch", operator: "In", values: ["arm64"] });
    assert.equal(byId.get(amd)?.name, "amazon-eks-node-al2023-x86_64-standard-1.36-v20250101");
  });

  void it("should resolve AMIs by id, name, tags and ssmParameter", async () => {
    const { ec2, ssm } = clients(moto.aws());
    const id =
      (
        await ec2.send(
          new RegisterImageCommand({ Name: "kerf-custom-image", Architecture: "x86_64", RootDeviceName: "/dev/xvda" }),
        )
      ).ImageId ?? "";
    await ec2.send(new CreateTagsCommand({ Resources: [id], Tags: [{ Key: "kerf/image", Value: "custom" }] }));
    await ssm.send(new PutParameterCommand({ Name: "/kerf-test/custom/image_id", Value: id, Type: "String" }));
    const { resolver } = moto.providers(moto.aws());
    for (const term of [
      { id },
      { name: "kerf-custom-image" },
      { tags: { "kerf/image": "custom" } },
      { ssmParameter: "/kerf-test/custom/image_id" },
    ]) {
      const facts = await resolver.resolve(nodeClass("x", { amiFamily: "AL2023", amiSelectorTerms: [term] }));
      assert.deepEqual(
        facts.amis.map((a) => a.id),
        [id],
        JSON.stringify(term),
      );
    }
  });

  void it("should write a Ready status with subnets, groups and AMIs, and a not-Ready one when nothing matches", async () => {
    await seedAl2023Alias(moto.aws(), "x86_64");
    const { ec2 } = clients(moto.aws());
    const vpc = await ec2.send(new CreateVpcCommand({ CidrBlock: "10.20.0.0/16" }));
    const created = await ec2.send(
      new CreateSubnetCommand({ VpcId: vpc.Vpc?.VpcId, CidrBlock: "10.20.1.0/24", AvailabilityZone: "us-east-1c" }),
    );
    const subnetId = created.Subnet?.SubnetId ?? "";
    const condition = (status: EC2NodeClassStatus, type: string): string | undefined =>
      status.conditions?.find((c) => c.type === type)?.status;
    await seedNodeRole(moto.aws());
    const { resolver, nodeClassCloud } = moto.providers(moto.aws());
    const written: EC2NodeClassStatus[] = [];
    const deps = {
      resolver,
      cloud: nodeClassCloud,
      clock: testClock(new Date(Date.UTC(2000, 0, 1))),
      writeStatus: async (_: string, s: EC2NodeClassStatus) => {
        written.push(s);
      },
    };
    const ready = await reconcileNodeClass(deps, nodeClass("ok", { subnetSelectorTerms: [{ id: subnetId }] }));
    assert.deepEqual(ready.status.subnets, [
      { id: subnetId, zone: "us-east-1c", zoneID: created.Subnet?.AvailabilityZoneId },
    ]);
    assert.equal(condition(ready.status, "Ready"), "True");
    const broken = await reconcileNodeClass(
      deps,
      nodeClass("broken", { subnetSelectorTerms: [{ tags: { nothing: "matches" } }] }),
    );
    assert.equal(broken.status.conditions?.find((c) => c.type === "SubnetsReady")?.reason, "SubnetsNotFound");
    assert.equal(condition(broken.status, "Ready"), "False");
    assert.equal(written.length, 2);
    await reconcileNodeClass(deps, {
      ...nodeClass("ok", { subnetSelectorTerms: [{ id: subnetId }] }),
      status: ready.status,
    });
    assert.equal(written.length, 2, "an unchanged status is not written again");
  });
});

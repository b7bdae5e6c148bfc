/**
 * Seeds the playground's moto with what the example EC2NodeClass selects: default-VPC subnets and the
 * default security group tagged karpenter.sh/discovery=<cluster>, an AL2023 AMI per architecture
 * published as the recommended image under the playground's SSM prefix (as the integration tests do),
 * and the node role `KarpenterNodeRole-<cluster>` its `role:` names (kerf puts it into the managed instance profile).
 */
import {
  CreateTagsCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  EC2Client,
} from "@aws-sdk/client-ec2";
import { CreateRoleCommand, IAMClient } from "@aws-sdk/client-iam";
import { PutParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
import { registerImage } from "../harness/moto-images.ts";
import type { AwsTestConfig } from "../harness/use-environment.ts";

/** What to seed. */
export interface SeedOptions {
  readonly clusterName: string;
  readonly ssmPrefix: string;
  /** Kubernetes minor version ("1.36"): part of the AMI parameter path. */
  readonly kubernetesVersion: string;
  readonly zones: readonly string[];
}

/** What was seeded, for the header the playground prints. */
export interface Seeded {
  readonly subnets: ReadonlyMap<string, string>;
  readonly securityGroups: readonly string[];
  readonly amis: Readonly<Record<string, string>>;
  readonly nodeRole: string;
}

async function tagDiscovery(
  ec2: EC2Client,
  o: SeedOptions,
): Promise<{ subnets: Map<string, string>; securityGroups: string[] }> {
  const subnets = new Map<string, string>();
  for (const s of (
    await ec2.send(new DescribeSubnetsCommand({ Filters: [{ Name: "default-for-az", Values: ["true"] }] }))
  ).Subnets ?? []) {
    if (s.AvailabilityZone !== undefined && s.SubnetId !== undefined && o.zones.includes(s.AvailabilityZone))
      subnets.set(s.AvailabilityZone, s.SubnetId);
  }
  const missing = o.zones.filter((z) => !subnets.has(z));
  if (missing.length > 0) throw new Error(`seeding moto: no default subnet in ${missing.join(", ")}`);
  const groups =
    (await ec2.send(new DescribeSecurityGroupsCommand({ Filters: [{ Name: "group-name", Values: ["default"] }] })))
      .SecurityGroups ?? [];
  const securityGroups = groups.flatMap((g) => (g.GroupId === undefined ? [] : [g.GroupId]));
  await ec2.send(
    new CreateTagsCommand({
      Resources: [...subnets.values(), ...securityGroups],
      Tags: [{ Key: "karpenter.sh/discovery", Value: o.clusterName }],
    }),
  );
  return { subnets, securityGroups };
}

async function publishAmi(ec2: EC2Client, ssm: SSMClient, o: SeedOptions, arch: "x86_64" | "arm64"): Promise<string> {
  const name = `amazon-eks-node-al2023-${arch}-standard-${o.kubernetesVersion}-v20250101`;
  // Carries its Architecture, as a real AMI does (moto's RegisterImage would drop it).
  const id = await registerImage(ec2, name, arch);
  await ssm.send(
    new PutParameterCommand({
      Name:
        `${o.ssmPrefix}/eks/optimized-ami/${o.kubernetesVersion}/amazon-linux-2023/` +
        `${arch}/standard/recommended/image_id`,
      Value: id,
      Type: "String",
      Overwrite: true,
    }),
  );
  return id;
}

const TRUST_EC2 = JSON.stringify({
  Version: "2012-10-17",
  Statement: [{ Effect: "Allow", Principal: { Service: "ec2.amazonaws.com" }, Action: "sts:AssumeRole" }],
});

/** Creates the node role; one left by an earlier run is kept. */
async function createNodeRole(iam: IAMClient, name: string): Promise<string> {
  try {
    await iam.send(new CreateRoleCommand({ RoleName: name, AssumeRolePolicyDocument: TRUST_EC2 }));
  } catch (error) {
    if ((error as Error).name !== "EntityAlreadyExistsException") throw error;
  }
  return name;
}

/** Tags the discovery targets, publishes the AMIs and creates the node role; throws "seeding moto: …". */
export async function seedMoto(aws: AwsTestConfig, o: SeedOptions): Promise<Seeded> {
  const ec2 = new EC2Client({ ...aws });
  const ssm = new SSMClient({ ...aws });
  const iam = new IAMClient({ ...aws });
  try {
    const { subnets, securityGroups } = await tagDiscovery(ec2, o);
    const [x86, arm, nodeRole] = await Promise.all([
      publishAmi(ec2, ssm, o, "x86_64"),
      publishAmi(ec2, ssm, o, "arm64"),
      createNodeRole(iam, `KarpenterNodeRole-${o.clusterName}`),
    ]);
    return { subnets, securityGroups, amis: { x86_64: x86, arm64: arm }, nodeRole };
  } catch (error) {
    if ((error as Error).message.startsWith("seeding moto")) throw error;
    throw new Error(`seeding moto: ${(error as Error).message}`, { cause: error });
  } finally {
    ec2.destroy();
    ssm.destroy();
    iam.destroy();
  }
}

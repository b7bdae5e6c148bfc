/**
 * Shared set-up for the aws-* integration tests: seeded alias AMIs and node role in moto, node class / claim
 * builders, the provider graph.
 */
import { CreateTagsCommand, DescribeSubnetsCommand, EC2Client, RegisterImageCommand } from "@aws-sdk/client-ec2";
import { CreateRoleCommand, IAMClient } from "@aws-sdk/client-iam";
import { PutParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
import { builtinCatalog } from "../../policies/domain/catalog/builtin.ts";
import { fixedCatalog } from "../../operator/ports/catalog-source.ts";
import type { NodeSelectorRequirement } from "../../policies/domain/requirements.ts";
import { createAwsProviders, type AwsProviderGraph } from "../../operator/adapters/aws/factory.ts";
import type { ClusterInfo } from "../../operator/core/launch-template/cluster-info.ts";
import type { EC2NodeClassLike, EC2NodeClassSpec } from "../../operator/core/launch-template/node-class.ts";
import type { NodeClaimLike } from "../../operator/ports/cloud-provider.ts";
import type { AwsTestConfig } from "../harness/use-environment.ts";

export const CLUSTER = "kerf-test";
export const K8S_VERSION = "1.36";
/** moto refuses PutParameter under /aws/…, so the tests publish the "public" parameters here. */
export const SSM_PREFIX = "/kerf-test/aws/service";
/** The IAM role of the fixtures' node class (spec.role); seedNodeRole creates it. */
export const NODE_ROLE = "KarpenterNodeRole-kerf-test";

/** EC2 assumes node roles: the trust policy every node role carries. */
export const NODE_TRUST_POLICY = JSON.stringify({
  Version: "2012-10-17",
  Statement: [{ Effect: "Allow", Principal: { Service: "ec2.amazonaws.com" }, Action: "sts:AssumeRole" }],
});

/** A clock the test moves by hand. */
export interface TestClock {
  now(): Date;
  set(at: Date): void;
  advance(ms: number): void;
}

export function testClock(start = new Date()): TestClock {
  let t = start.getTime();
  return {
    now: () => new Date(t),
    set: (at) => {
      t = at.getTime();
    },
    advance: (ms) => {
      t += ms;
    },
  };
}

export function clients(aws: AwsTestConfig): { ec2: EC2Client; ssm: SSMClient; iam: IAMClient } {
  return { ec2: new EC2Client({ ...aws }), ssm: new SSMClient({ ...aws }), iam: new IAMClient({ ...aws }) };
}

/** Creates a node IAM role in moto (the managed instance profile of a `role` node class needs it to exist). */
export async function seedNodeRole(aws: AwsTestConfig, name = NODE_ROLE): Promise<string> {
  const out = await clients(aws).iam.send(
    new CreateRoleCommand({ RoleName: name, AssumeRolePolicyDocument: NODE_TRUST_POLICY }),
  );
  return out.Role?.Arn ?? "";
}

/** Registers an AMI and publishes it as the al2023 `standard` recommended image for an arch. */
export async function seedAl2023Alias(
  aws: AwsTestConfig,
  arch: "x86_64" | "arm64",
  name = `amazon-eks-node-al2023-${arch}-standard-${K8S_VERSION}-v20250101`,
): Promise<string> {
  const { ec2, ssm } = clients(aws);
  const image = await ec2.send(
    new RegisterImageCommand({
      Name: name,
      Architecture: arch,
      RootDeviceName: "/dev/xvda",
      BlockDeviceMappings: [{ DeviceName: "/dev/xvda", Ebs: { VolumeSize: 20 } }],
    }),
  );
  const id = image.ImageId ?? "";
  await ssm.send(
    new PutParameterCommand({
      Name: `${SSM_PREFIX}/eks/optimized-ami/${K8S_VERSION}/amazon-linux-2023/${arch}/standard/recommended/image_id`,
      Value: id,
      Type: "String",
      Overwrite: true,
    }),
  );
  return id;
}

/** Tags every default subnet and the default security group for discovery, returns the subnets by zone. */
export async function tagDefaultSubnets(aws: AwsTestConfig, zones: readonly string[]): Promise<Map<string, string>> {
  const { ec2 } = clients(aws);
  const subnets = (await ec2.send(new DescribeSubnetsCommand({}))).Subnets ?? [];
  const byZone = new Map<string, string>();
  for (const s of subnets)
    if (s.AvailabilityZone !== undefined && zones.includes(s.AvailabilityZone) && s.SubnetId !== undefined)
      byZone.set(s.AvailabilityZone, s.SubnetId);
  await ec2.send(
    new CreateTagsCommand({
      Resources: [...byZone.values()],
      Tags: [{ Key: "karpenter.sh/discovery", Value: CLUSTER }],
    }),
  );
  return byZone;
}

export function nodeClass(name: string, spec: Partial<EC2NodeClassSpec> = {}): EC2NodeClassLike {
  return {
    metadata: { name, generation: 1 },
    spec: {
      amiSelectorTerms: [{ alias: "al2023@latest" }],
      subnetSelectorTerms: [{ tags: { "karpenter.sh/discovery": CLUSTER } }],
      securityGroupSelectorTerms: [{ name: "default" }],
      role: NODE_ROLE,
      ...spec,
    },
  };
}

export function nodeClaim(
  name: string,
  requirements: NodeSelectorRequirement[],
  nodeClassName = "default",
): NodeClaimLike {
  return {
    metadata: { name, labels: { "karpenter.sh/nodepool": "default" } },
    spec: { nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: nodeClassName }, requirements },
  };
}

/**
 * The provider graph against an endpoint (moto, or the fault proxy in front of it), for the test cluster with
 * `cluster`'s fields (an IPv6 service CIDR, say) over its name, endpoint and CA.
 */
export function providers(
  aws: AwsTestConfig,
  clock: TestClock,
  nodeClasses: ReadonlyMap<string, EC2NodeClassLike>,
  cluster: Partial<ClusterInfo> = {},
): AwsProviderGraph {
  return createAwsProviders(
    {
      cluster: { name: CLUSTER, endpoint: "https://kerf-test.example:6443", caBundle: "Q0E=", ...cluster },
      aws,
      kubernetesVersion: K8S_VERSION,
      ssmPrefix: SSM_PREFIX,
    },
    { catalog: fixedCatalog(builtinCatalog()), clock, nodeClass: async (name) => nodeClasses.get(name) },
  );
}

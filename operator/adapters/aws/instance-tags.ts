/** InstanceTags over EC2 DescribeInstances (by id, never cached: tags change outside kerf) and CreateTags. */
import {
  CreateTagsCommand,
  DescribeInstancesCommand,
  EC2Client,
  type CreateTagsCommandInput,
  type CreateTagsCommandOutput,
  type DescribeInstancesCommandInput,
  type DescribeInstancesCommandOutput,
} from "@aws-sdk/client-ec2";
import type { InstanceTags } from "../../ports/instance-tags.ts";
import { describeAwsError, isNotFound } from "./errors.ts";
import { LIVE_STATES } from "./providers/instance.ts";
import type { AwsClientConfig } from "./sdk.ts";

/** The EC2 calls tagging makes. */
export interface Ec2TagsApi {
  describeInstances(input: DescribeInstancesCommandInput): Promise<DescribeInstancesCommandOutput>;
  createTags(input: CreateTagsCommandInput): Promise<CreateTagsCommandOutput>;
}

/** Ec2TagsApi over its own EC2 client (default retries: CreateTags is idempotent). */
export function awsEc2TagsApi(config: AwsClientConfig): Ec2TagsApi {
  const client = new EC2Client({
    region: config.region,
    ...(config.endpoint === undefined ? {} : { endpoint: config.endpoint }),
    ...(config.credentials === undefined ? {} : { credentials: { ...config.credentials } }),
  });
  return {
    describeInstances: (input) => client.send(new DescribeInstancesCommand(input)),
    createTags: (input) => client.send(new CreateTagsCommand(input)),
  };
}

/** A failed tags call (not a gone instance, which is an answer). */
export class InstanceTagsError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "InstanceTagsError";
  }
}

export class Ec2InstanceTags implements InstanceTags {
  private readonly ec2: Ec2TagsApi;

  constructor(ec2: Ec2TagsApi) {
    this.ec2 = ec2;
  }

  async tagsOf(instanceID: string): Promise<Readonly<Record<string, string>> | undefined> {
    let out: DescribeInstancesCommandOutput;
    try {
      out = await this.ec2.describeInstances({ InstanceIds: [instanceID] });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw new InstanceTagsError(describeAwsError(`describing instance ${instanceID}`, error), { cause: error });
    }
    const instances = (out.Reservations ?? []).flatMap((r) => r.Instances ?? []);
    const instance = instances.find((i) => i.InstanceId === instanceID);
    if (instance === undefined || !LIVE_STATES.includes(instance.State?.Name ?? "")) return undefined;
    const tags = (instance.Tags ?? []).filter((t) => t.Key !== undefined);
    return Object.fromEntries(tags.map((t) => [t.Key ?? "", t.Value ?? ""]));
  }

  async createTags(instanceID: string, tags: Readonly<Record<string, string>>): Promise<boolean> {
    try {
      const list = Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));
      await this.ec2.createTags({ Resources: [instanceID], Tags: list });
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw new InstanceTagsError(describeAwsError(`tagging instance ${instanceID}`, error), { cause: error });
    }
  }
}

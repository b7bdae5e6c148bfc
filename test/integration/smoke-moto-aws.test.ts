import { before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  CreateFleetCommand,
  CreateLaunchTemplateCommand,
  DescribeImagesCommand,
  DescribeInstancesCommand,
  DescribeInstanceTypesCommand,
  DescribeSubnetsCommand,
  EC2Client,
  TerminateInstancesCommand,
} from "@aws-sdk/client-ec2";
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from "@aws-sdk/client-sqs";
import { GetParameterCommand, PutParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";

describe("the moto AWS API server", () => {
  let env: TestEnvironment;

  before(async () => {
    env = await useEnvironment({ moto: true });
  });

  it("describes real instance types through @aws-sdk/client-ec2", async () => {
    const ec2 = new EC2Client(env.aws());
    const out = await ec2.send(new DescribeInstanceTypesCommand({ InstanceTypes: ["m5.large", "c6g.xlarge"] }));
    const byName = new Map(out.InstanceTypes?.map((t) => [t.InstanceType, t]));
    assert.equal(byName.get("m5.large")?.VCpuInfo?.DefaultVCpus, 2);
    assert.equal(byName.get("m5.large")?.MemoryInfo?.SizeInMiB, 8192);
    assert.deepEqual(byName.get("c6g.xlarge")?.ProcessorInfo?.SupportedArchitectures, ["arm64"]);
  });

  it("launches with CreateFleet of type instant and terminates the instance", async () => {
    const ec2 = new EC2Client(env.aws());
    const image = (await ec2.send(new DescribeImagesCommand({}))).Images?.[0]?.ImageId;
    const subnet = (await ec2.send(new DescribeSubnetsCommand({}))).Subnets?.find(
      (s) => s.AvailabilityZone === "us-east-1b",
    )?.SubnetId;
    assert.ok(image !== undefined && subnet !== undefined);
    const lt = await ec2.send(
      new CreateLaunchTemplateCommand({ LaunchTemplateName: "kerf-smoke", LaunchTemplateData: { ImageId: image } }),
    );
    const fleet = await ec2.send(
      new CreateFleetCommand({
        Type: "instant",
        TargetCapacitySpecification: { TotalTargetCapacity: 1, DefaultTargetCapacityType: "on-demand" },
        OnDemandOptions: { AllocationStrategy: "lowest-price" },
        LaunchTemplateConfigs: [
          {
            LaunchTemplateSpecification: { LaunchTemplateId: lt.LaunchTemplate?.LaunchTemplateId, Version: "$Latest" },
            Overrides: [{ InstanceType: "m5.large", SubnetId: subnet }],
          },
        ],
        TagSpecifications: [{ ResourceType: "instance", Tags: [{ Key: "karpenter.sh/nodepool", Value: "smoke" }] }],
      }),
    );
    const id = fleet.Instances?.[0]?.InstanceIds?.[0];
    assert.ok(id !== undefined, "CreateFleet returned an instance id");
    assert.equal(fleet.Instances?.[0]?.InstanceType, "m5.large");
    const described = await ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] }));
    const instance = described.Reservations?.[0]?.Instances?.[0];
    assert.equal(instance?.Placement?.AvailabilityZone, "us-east-1b");
    assert.equal(instance?.State?.Name, "running");
    await ec2.send(new TerminateInstancesCommand({ InstanceIds: [id] }));
    const after = await ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] }));
    assert.equal(after.Reservations?.[0]?.Instances?.[0]?.State?.Name, "terminated");
  });

  it("sends, receives and deletes an SQS message through @aws-sdk/client-sqs", async () => {
    const sqs = new SQSClient(env.aws());
    const queue = await sqs.send(new CreateQueueCommand({ QueueName: "kerf-smoke" }));
    const url = queue.QueueUrl ?? "";
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: url,
        MessageBody: JSON.stringify({ "detail-type": "EC2 Spot Instance Interruption Warning" }),
      }),
    );
    const received = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    assert.equal(received.Messages?.length, 1);
    assert.match(received.Messages?.[0]?.Body ?? "", /Spot Instance Interruption/);
    await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: received.Messages?.[0]?.ReceiptHandle }));
    const again = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 0, VisibilityTimeout: 0 }),
    );
    assert.equal(again.Messages?.length ?? 0, 0);
  });

  it("stores and reads an SSM parameter through @aws-sdk/client-ssm", async () => {
    const ssm = new SSMClient(env.aws());
    await ssm.send(
      new PutParameterCommand({
        Name: "/kerf-test/aws/service/eks/optimized-ami/1.36/amazon-linux-2023/x86_64/standard/recommended/image_id",
        Value: "ami-0123456789abcdef0",
        Type: "String",
      }),
    );
    const got = await ssm.send(
      new GetParameterCommand({
        Name: "/kerf-test/aws/service/eks/optimized-ami/1.36/amazon-linux-2023/x86_64/standard/recommended/image_id",
      }),
    );
    assert.equal(got.Parameter?.Value, "ami-0123456789abcdef0");
  });
});

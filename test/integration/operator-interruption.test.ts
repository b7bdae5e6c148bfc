/**
 * Interruption handling end to end: the operator with INTERRUPTION_QUEUE set polls a real SQS queue
 * in moto; EventBridge-shaped messages sent there drain and replace the interrupted node (real
 * apiserver, scheduler, kubelet simulation, moto EC2), and every message leaves the queue.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CreateQueueCommand, GetQueueAttributesCommand, SendMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { CoreV1Api } from "@kubernetes/client-node";
import type { RunningOperator } from "../../operator/main.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import {
  consistency,
  createInflate,
  createNodePool,
  liveInstances,
  replacementClaim,
  runOperatorOnCluster,
  singleReadyClaim,
  WORKSHOP_FAMILIES,
  type Claim,
  type OperatorOnCluster,
} from "./provisioning-fixtures.ts";

const SPOT = { key: "karpenter.sh/capacity-type", operator: "In", values: ["spot"] };

function ec2Event(detailType: string, detail: Record<string, unknown>): string {
  return JSON.stringify({
    version: "0",
    id: crypto.randomUUID(),
    "detail-type": detailType,
    source: "aws.ec2",
    account: "123456789012",
    time: new Date().toISOString(),
    region: "us-east-1",
    resources: [],
    detail,
  });
}

const instanceOf = (c: Claim): string => /(i-[0-9a-z]+)$/.exec(c.status?.providerID ?? "")?.[1] ?? "";
const label = (c: Claim, key: string): string => c.metadata.labels?.[key] ?? "";

void describe("interruption messages from an SQS queue in moto", () => {
  let env: TestEnvironment;
  let running: OperatorOnCluster;
  let operator: RunningOperator;
  let sqs: SQSClient;
  let queueUrl: string;

  const send = async (body: string): Promise<void> => {
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
  };
  const queued = async (): Promise<number> => {
    const attrs = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
      }),
    );
    return (
      Number(attrs.Attributes?.ApproximateNumberOfMessages ?? 0) +
      Number(attrs.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0)
    );
  };
  const counter = async (name: "interruptionReceived" | "interruptionDeleted", type?: string): Promise<number> =>
    (await operator.metrics[name].get()).values
      .filter((v) => type === undefined || v.labels["message_type"] === type)
      .reduce((n, v) => n + v.value, 0);

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    sqs = new SQSClient(env.aws());
    const name = `kerf-interruption-${Date.now()}`;
    queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl ?? "";
    running = await runOperatorOnCluster(env, "interruption", { INTERRUPTION_QUEUE: name });
    operator = running.operator;
  });
  after(async () => {
    await running.stop();
  });

  void it("should drain and replace a spot node on its interruption warning, avoiding the interrupted offering, and empty the queue", async () => {
    await createNodePool(env, "spot", { requirements: [SPOT, WORKSHOP_FAMILIES] });
    const namespace = await createInflate(env, 3);
    const first = await singleReadyClaim(env, namespace, 3);
    assert.equal(label(first, "karpenter.sh/capacity-type"), "spot");
    const instance = instanceOf(first);
    const firstType = label(first, "node.kubernetes.io/instance-type");
    const offering = `${firstType}/${label(first, "topology.kubernetes.io/zone")}`;

    // Neither garbage nor a rebalance recommendation may disrupt anything.
    await send("this is not an EventBridge event");
    await send(ec2Event("EC2 Instance Rebalance Recommendation", { "instance-id": instance }));
    await eventually(
      "both messages to be handled and deleted",
      async () => (await counter("interruptionDeleted")) >= 2 && (await queued()) === 0,
      30_000,
      200,
    );
    assert.equal(await counter("interruptionReceived", "rebalance_recommendation"), 1);
    const { claims: unchanged } = await consistency(env);
    assert.deepEqual(
      unchanged.map((c) => [c.metadata.name, c.metadata.deletionTimestamp]),
      [[first.metadata.name, undefined]],
    );

    await send(
      ec2Event("EC2 Spot Instance Interruption Warning", { "instance-id": instance, "instance-action": "terminate" }),
    );
    const replacement = await replacementClaim(env, namespace, 3, first);
    assert.ok(!(await liveInstances(env)).some((i) => i.id === instance), "the interrupted instance is terminated");
    assert.notEqual(
      `${label(replacement, "node.kubernetes.io/instance-type")}/${label(replacement, "topology.kubernetes.io/zone")}`,
      offering,
      "the replacement avoids the interrupted spot offering",
    );
    assert.equal(await counter("interruptionReceived", "spot_interrupted"), 1);
    await eventually("the queue to be empty", async () => (await queued()) === 0, 30_000, 200);
    const disrupted = (await operator.metrics.nodeClaimsDisrupted.get()).values.filter(
      (v) => v.labels["reason"] === "spot_interrupted",
    );
    assert.deepEqual(
      disrupted.map((v) => [v.labels["nodepool"], v.labels["capacity_type"], v.value]),
      [["spot", "spot", 1]],
    );
    const events = await env.kubeConfig
      .makeApiClient(CoreV1Api)
      .listNamespacedEvent({ namespace: "default", fieldSelector: `involvedObject.name=${first.metadata.name}` });
    const reasons = new Set(events.items.map((e) => e.reason));
    for (const r of ["SpotRebalanceRecommendation", "SpotInterrupted", "TerminatingOnInterruption"])
      assert.ok(reasons.has(r), `Event ${r} on the NodeClaim (have ${[...reasons].join(", ")})`);
  });

  void it("should delete a message about an instance it does not own without acting on anything", async () => {
    const before = await consistency(env);
    const deleted = await counter("interruptionDeleted");
    await send(
      ec2Event("EC2 Instance State-change Notification", { "instance-id": "i-0123456789abcdef0", state: "terminated" }),
    );
    await eventually(
      "the message to be deleted",
      async () => (await counter("interruptionDeleted")) === deleted + 1 && (await queued()) === 0,
      30_000,
      200,
    );
    const after = await consistency(env);
    assert.deepEqual(
      after.claims.map((c) => [c.metadata.name, c.metadata.deletionTimestamp]),
      before.claims.map((c) => [c.metadata.name, undefined]),
    );
  });
});

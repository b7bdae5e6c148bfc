import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { actionFor, InterruptionParseError, parseInterruptionMessage, type MessageKind } from "./messages.ts";

const ID = "i-0123456789abcdef0";

function event(source: string, detailType: string, detail: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    version: "0",
    id: "7bf73129-1428-4cd3-a780-95db273d1602",
    "detail-type": detailType,
    source,
    account: "123456789012",
    time: "2026-11-21T10:00:00Z",
    region: "us-east-1",
    resources: [`arn:aws:ec2:us-east-1:123456789012:instance/${ID}`],
    detail,
    ...extra,
  });
}

const health = (detail: Record<string, unknown>): string =>
  event("aws.health", "AWS Health Event", {
    eventArn: "arn:aws:health:us-east-1::event/EC2/x",
    eventTypeCode: "AWS_EC2_PERSISTENT_INSTANCE_RETIREMENT_SCHEDULED",
    ...detail,
  });

void describe("parsing interruption messages", () => {
  const cases: readonly { name: string; body: string; kind: MessageKind; ids: readonly string[] }[] = [
    {
      name: "a spot interruption warning",
      body: event("aws.ec2", "EC2 Spot Instance Interruption Warning", {
        "instance-id": ID,
        "instance-action": "terminate",
      }),
      kind: "spot_interrupted",
      ids: [ID],
    },
    {
      name: "a rebalance recommendation",
      body: event("aws.ec2", "EC2 Instance Rebalance Recommendation", { "instance-id": ID }),
      kind: "rebalance_recommendation",
      ids: [ID],
    },
    {
      name: "a capacity reservation interruption warning",
      body: event("aws.ec2", "EC2 Capacity Reservation Instance Interruption Warning", {
        "instance-id": ID,
        "instance-action": "terminate",
        "instance-termination-time": "2026-11-21T10:02:00Z",
      }),
      kind: "capacity_reservation_interrupted",
      ids: [ID],
    },
    {
      name: "a state change to stopping",
      body: event("aws.ec2", "EC2 Instance State-change Notification", { "instance-id": ID, state: "stopping" }),
      kind: "instance_stopped",
      ids: [ID],
    },
    {
      name: "a state change to stopped",
      body: event("aws.ec2", "EC2 Instance State-change Notification", { "instance-id": ID, state: "stopped" }),
      kind: "instance_stopped",
      ids: [ID],
    },
    {
      name: "a state change to shutting-down",
      body: event("aws.ec2", "EC2 Instance State-change Notification", { "instance-id": ID, state: "shutting-down" }),
      kind: "instance_terminated",
      ids: [ID],
    },
    {
      name: "a state change to terminated",
      body: event("aws.ec2", "EC2 Instance State-change Notification", { "instance-id": ID, state: "terminated" }),
      kind: "instance_terminated",
      ids: [ID],
    },
    {
      name: "a state change to running (no action)",
      body: event("aws.ec2", "EC2 Instance State-change Notification", { "instance-id": ID, state: "running" }),
      kind: "no_op",
      ids: [],
    },
    {
      name: "an EC2 scheduled change from AWS Health, with its instances",
      body: health({
        service: "EC2",
        eventTypeCategory: "scheduledChange",
        affectedEntities: [{ entityValue: ID }, { entityValue: "i-0fedcba9876543210" }, { entityValue: "vol-1" }],
      }),
      kind: "scheduled_change",
      ids: [ID, "i-0fedcba9876543210"],
    },
    {
      name: "an AWS Health issue that is not a scheduled change",
      body: health({ service: "EC2", eventTypeCategory: "issue", affectedEntities: [{ entityValue: ID }] }),
      kind: "no_op",
      ids: [],
    },
    {
      name: "an AWS Health scheduled change of another service",
      body: health({ service: "RDS", eventTypeCategory: "scheduledChange", affectedEntities: [] }),
      kind: "no_op",
      ids: [],
    },
    {
      name: "an event of a detail-type kerf does not handle",
      body: event("aws.ec2", "EC2 AMI State Change", { ImageId: "ami-1" }),
      kind: "no_op",
      ids: [],
    },
    {
      name: "an event from another source",
      body: event("aws.autoscaling", "EC2 Instance-terminate Lifecycle Action", {}),
      kind: "no_op",
      ids: [],
    },
  ];
  for (const c of cases) {
    void it(`should read ${c.name}`, () => {
      const m = parseInterruptionMessage(c.body);
      assert.equal(m.kind, c.kind);
      assert.deepEqual(m.instanceIds, c.ids);
      assert.equal(m.eventTimeMs, Date.parse("2026-11-21T10:00:00Z"));
      assert.equal(m.id, "7bf73129-1428-4cd3-a780-95db273d1602");
    });
  }

  const bad: readonly { name: string; body: string; error: RegExp }[] = [
    { name: "a body that is not JSON", body: "{not json", error: /not JSON/ },
    { name: "a JSON array", body: "[1]", error: /not a JSON object/ },
    {
      name: "a spot warning without detail",
      body: event("aws.ec2", "EC2 Spot Instance Interruption Warning", undefined),
      error: /"EC2 Spot Instance Interruption Warning".*detail is missing/,
    },
    {
      name: "a spot warning without an instance id",
      body: event("aws.ec2", "EC2 Spot Instance Interruption Warning", { "instance-action": "terminate" }),
      error: /detail\.instance-id is missing/,
    },
    {
      name: "a state change naming something that is not an instance",
      body: event("aws.ec2", "EC2 Instance State-change Notification", { "instance-id": "vol-123", state: "stopping" }),
      error: /"vol-123" is not an EC2 instance id/,
    },
    {
      name: "an EC2 scheduled change without affected entities",
      body: health({ service: "EC2", eventTypeCategory: "scheduledChange" }),
      error: /affectedEntities is missing/,
    },
  ];
  for (const c of bad) {
    void it(`should reject ${c.name} with a message that says what is wrong`, () => {
      assert.throws(
        () => parseInterruptionMessage(c.body),
        (e: unknown) => e instanceof InterruptionParseError && c.error.test(e.message),
      );
    });
  }

  void it("should leave the event time out when the event has none", () => {
    assert.equal(
      parseInterruptionMessage(
        JSON.stringify({
          source: "aws.ec2",
          "detail-type": "EC2 Instance Rebalance Recommendation",
          detail: { "instance-id": ID },
        }),
      ).eventTimeMs,
      undefined,
    );
  });

  void it("should act on everything but rebalance recommendations and no-ops, as Karpenter does", () => {
    const kinds: MessageKind[] = [
      "spot_interrupted",
      "rebalance_recommendation",
      "scheduled_change",
      "instance_stopped",
      "instance_terminated",
      "capacity_reservation_interrupted",
      "no_op",
    ];
    assert.deepEqual(kinds.map(actionFor), [
      "CordonAndDrain",
      "NoAction",
      "CordonAndDrain",
      "CordonAndDrain",
      "CordonAndDrain",
      "CordonAndDrain",
      "NoAction",
    ]);
  });
});

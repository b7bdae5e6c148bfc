import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { InterruptionMessage, MessageKind } from "./messages.ts";
import { planInterruption, type InterruptedClaim } from "./plan.ts";

const SPOT: InterruptedClaim = {
  name: "default-abc",
  nodeName: "ip-10-0-0-1",
  nodePool: "default",
  capacityType: "spot",
  instanceType: "m5.large",
  zone: "us-east-1a",
  deleting: false,
};
const OD: InterruptedClaim = {
  name: "od-xyz",
  nodeName: undefined,
  nodePool: "od",
  capacityType: "on-demand",
  instanceType: "c5.large",
  zone: "us-east-1b",
  deleting: false,
};
const claims = new Map([
  ["i-0aaa", SPOT],
  ["i-0bbb", OD],
]);

const message = (kind: MessageKind, instanceIds: readonly string[]): InterruptionMessage => ({
  kind,
  instanceIds,
  id: "e1",
  source: "aws.ec2",
  detailType: "x",
  eventTimeMs: 0,
});

void describe("planning what an interruption message does", () => {
  void it("should delete an interrupted spot NodeClaim, mark its offering unavailable and announce both", () => {
    const plan = planInterruption(message("spot_interrupted", ["i-0aaa"]), claims);
    assert.equal(plan.action, "CordonAndDrain");
    assert.deepEqual(plan.deletes, [SPOT]);
    assert.deepEqual(plan.unavailable, [{ capacityType: "spot", instanceType: "m5.large", zone: "us-east-1a" }]);
    assert.deepEqual(
      plan.notices.map((n) => [n.claim.name, n.reason]),
      [
        ["default-abc", "SpotInterrupted"],
        ["default-abc", "TerminatingOnInterruption"],
      ],
    );
  });

  const deleting: readonly { kind: MessageKind; reason: string }[] = [
    { kind: "scheduled_change", reason: "InstanceUnhealthy" },
    { kind: "instance_stopped", reason: "InstanceStopping" },
    { kind: "instance_terminated", reason: "InstanceTerminating" },
    { kind: "capacity_reservation_interrupted", reason: "CapacityReservationInstanceInterrupted" },
  ];
  for (const c of deleting) {
    void it(`should delete the NodeClaim on ${c.kind} without touching the offerings`, () => {
      const plan = planInterruption(message(c.kind, ["i-0bbb"]), claims);
      assert.deepEqual(plan.deletes, [OD]);
      assert.deepEqual(plan.unavailable, []);
      assert.deepEqual(
        plan.notices.map((n) => n.reason),
        [c.reason, "TerminatingOnInterruption"],
      );
    });
  }

  void it("should only announce a rebalance recommendation", () => {
    const plan = planInterruption(message("rebalance_recommendation", ["i-0aaa"]), claims);
    assert.equal(plan.action, "NoAction");
    assert.deepEqual([plan.deletes, plan.unavailable], [[], []]);
    assert.deepEqual(
      plan.notices.map((n) => [n.reason, n.type]),
      [["SpotRebalanceRecommendation", "Normal"]],
    );
  });

  void it("should not mark an on-demand offering unavailable when a spot warning names an on-demand instance", () => {
    assert.deepEqual(planInterruption(message("spot_interrupted", ["i-0bbb"]), claims).unavailable, []);
  });

  void it("should not delete a NodeClaim that is already being deleted, but still announce the interruption", () => {
    const plan = planInterruption(
      message("spot_interrupted", ["i-0aaa"]),
      new Map([["i-0aaa", { ...SPOT, deleting: true }]]),
    );
    assert.deepEqual(plan.deletes, []);
    assert.deepEqual(
      plan.notices.map((n) => n.reason),
      ["SpotInterrupted"],
    );
    assert.equal(plan.unavailable.length, 1);
  });

  void it("should ignore instances no NodeClaim owns and act once per instance named twice", () => {
    assert.deepEqual(planInterruption(message("instance_terminated", ["i-0zzz"]), claims), {
      action: "CordonAndDrain",
      deletes: [],
      unavailable: [],
      notices: [],
    });
    const plan = planInterruption(message("scheduled_change", ["i-0aaa", "i-0aaa", "i-0bbb", "i-0zzz"]), claims);
    assert.deepEqual(
      plan.deletes.map((c) => c.name),
      ["default-abc", "od-xyz"],
    );
  });

  void it("should do nothing for a no-op message", () => {
    assert.deepEqual(planInterruption(message("no_op", []), claims), {
      action: "NoAction",
      deletes: [],
      unavailable: [],
      notices: [],
    });
  });
});

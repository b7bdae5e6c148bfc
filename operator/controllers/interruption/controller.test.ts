/**
 * The message-deletion contract of the interruption controller, which the moto integration test
 * (test/integration/operator-interruption.test.ts) cannot provoke: a message whose handling fails
 * stays on the queue; one that will never parse is deleted.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { NodeClaim } from "../../core/lifecycle/objects.ts";
import type { OperatorEvent } from "../../observability/events.ts";
import { silentLogger } from "../../observability/logger.ts";
import { createMetrics } from "../../observability/metrics.ts";
import type { QueueMessage } from "../../ports/interruption-queue.ts";
import { handleMessage, type InterruptionDeps } from "./controller.ts";

const CLAIM: NodeClaim = {
  metadata: {
    name: "spot-1",
    labels: {
      "karpenter.sh/nodepool": "spot",
      "karpenter.sh/capacity-type": "spot",
      "node.kubernetes.io/instance-type": "m5.large",
    },
  },
  status: { providerID: "aws:///us-east-1a/i-0aaa", nodeName: "node-1" },
};

function setup(o: { deleteFails?: boolean } = {}): {
  deps: InterruptionDeps;
  deletedMessages: string[];
  deletedClaims: string[];
  marked: string[];
  events: OperatorEvent[];
} {
  const deletedMessages: string[] = [];
  const deletedClaims: string[] = [];
  const marked: string[] = [];
  const events: OperatorEvent[] = [];
  const deps: InterruptionDeps = {
    cluster: {
      synced: true,
      nodeClaims: () => [CLAIM],
      node: (name) => ({ metadata: { name } }),
      deleteNodeClaim: async (name) => {
        if (o.deleteFails === true) throw new Error("deleting NodeClaim spot-1: HTTP 500");
        deletedClaims.push(name);
      },
    },
    queue: {
      receive: async () => [],
      delete: async (m) => {
        deletedMessages.push(m.id);
      },
    },
    offerings: { markUnavailable: (ct, it, zone) => marked.push(`${ct}:${it}:${zone}`) },
    events: { publish: (e) => events.push(e) },
    metrics: createMetrics(),
    logger: silentLogger(),
    clock: { now: () => new Date("2026-11-21T10:00:05Z") },
  };
  return { deps, deletedMessages, deletedClaims, marked, events };
}

const message = (body: string): QueueMessage => ({
  id: "m1",
  body,
  receiptHandle: "r1",
  sentAtMs: Date.parse("2026-11-21T10:00:01Z"),
});
const spotWarning = JSON.stringify({
  source: "aws.ec2",
  "detail-type": "EC2 Spot Instance Interruption Warning",
  time: "2026-11-21T10:00:00Z",
  detail: { "instance-id": "i-0aaa" },
});

void describe("handling one interruption message", () => {
  void it("should act, then delete the message, and record how long it waited", async () => {
    const s = setup();
    assert.equal(await handleMessage(s.deps, message(spotWarning)), "acted");
    assert.deepEqual(
      [s.deletedClaims, s.marked, s.deletedMessages],
      [["spot-1"], ["spot:m5.large:us-east-1a"], ["m1"]],
    );
    assert.deepEqual(
      s.events.map((e) => `${e.involved.kind}/${e.reason}`),
      [
        "NodeClaim/SpotInterrupted",
        "Node/SpotInterrupted",
        "NodeClaim/TerminatingOnInterruption",
        "Node/TerminatingOnInterruption",
      ],
    );
    const waited = (await s.deps.metrics.interruptionQueueDuration.get()).values.find((v) =>
      v.metricName?.endsWith("_sum"),
    );
    assert.equal(waited?.value, 5, "from the event's time, 5 s before the clock");
  });

  void it("should leave the message on the queue when acting on it fails, so it comes back", async () => {
    const s = setup({ deleteFails: true });
    await assert.rejects(handleMessage(s.deps, message(spotWarning)), /HTTP 500/);
    assert.deepEqual(s.deletedMessages, []);
  });

  void it("should delete a message that will never parse, without acting", async () => {
    const s = setup();
    assert.equal(await handleMessage(s.deps, message("{")), "unparsable");
    assert.deepEqual([s.deletedMessages, s.deletedClaims, s.marked], [["m1"], [], []]);
    assert.equal((await s.deps.metrics.interruptionReceived.get()).values.length, 0, "not counted as received");
  });
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  awaitingVolumeDetachment,
  disruptionBlocked,
  nodePoolDisruptionBlocked,
  podDeletedAtDeadline,
  terminationGracePeriodExpiring,
  type OperatorEvent,
} from "./events.ts";

const node = { metadata: { name: "ip-10-0-0-1", uid: "n" } };
const claim = { metadata: { name: "default-abcde", uid: "c" } };
const pod = { metadata: { name: "web-1", namespace: "shop", uid: "p" }, spec: { terminationGracePeriodSeconds: 120 } };

void describe("the Events Karpenter's node termination emits", () => {
  const cases: [string, OperatorEvent, Partial<OperatorEvent> & { kind: string }][] = [
    [
      "the NodeClaim's grace period deadline",
      terminationGracePeriodExpiring("NodeClaim", claim, "2030-01-01T00:05:00Z"),
      {
        kind: "NodeClaim",
        type: "Warning",
        reason: "TerminationGracePeriodExpiring",
        message: "All pods will be deleted by 2030-01-01T00:05:00Z",
      },
    ],
    [
      "the Node's grace period deadline",
      terminationGracePeriodExpiring("Node", node, "2030-01-01T00:05:00Z"),
      {
        kind: "Node",
        type: "Warning",
        reason: "TerminationGracePeriodExpiring",
        message: "All pods will be deleted by 2030-01-01T00:05:00Z",
      },
    ],
    [
      "a pod deleted at the deadline",
      podDeletedAtDeadline(pod, 30, Date.parse("2030-01-01T00:05:00Z")),
      {
        kind: "Pod",
        type: "Normal",
        reason: "Disrupted",
        message:
          "Deleting the pod to accommodate the terminationTime 2030-01-01 00:05:00 +0000 UTC of the node. The " +
          "pod was granted 30 seconds of grace-period of its 120 terminationGracePeriodSeconds. " +
          "This bypasses the PDB of the pod and the do-not-disrupt annotation.",
      },
    ],
    [
      "volume attachments left",
      awaitingVolumeDetachment(node, ["csi-1", "csi-2"]),
      {
        kind: "Node",
        type: "Normal",
        reason: "AwaitingVolumeDetachment",
        message: "Awaiting deletion of bound volumeattachments (csi-1, csi-2)",
      },
    ],
    [
      "many volume attachments left",
      awaitingVolumeDetachment(node, ["a", "b", "c", "d", "e", "f", "g"]),
      {
        kind: "Node",
        reason: "AwaitingVolumeDetachment",
        message: "Awaiting deletion of bound volumeattachments (a, b, c, d, e and 2 other(s))",
      },
    ],
  ];
  for (const [what, event, want] of cases) {
    void it(`should say as Karpenter does: ${what}`, () => {
      const { kind, ...fields } = want;
      assert.equal(event.involved.kind, kind);
      for (const [k, v] of Object.entries(fields)) assert.equal(event[k as keyof OperatorEvent], v, k);
    });
  }

  void it("should print sub-second deadlines as Go does, without trailing zeros", () => {
    const event = podDeletedAtDeadline(pod, 0, Date.parse("2030-01-01T00:05:00.500Z"));
    assert.match(event.message, /terminationTime 2030-01-01 00:05:00\.5 \+0000 UTC of the node/);
  });
});

void describe("the DisruptionBlocked Events", () => {
  const pool = { metadata: { name: "default", uid: "np" } };
  const cases: [string, OperatorEvent, { kind: string; message: string }][] = [
    [
      "a NodeClaim's blocker, as a sentence",
      disruptionBlocked("NodeClaim", claim, "node is nominated for a pending pod"),
      { kind: "NodeClaim", message: "Node is nominated for a pending pod" },
    ],
    [
      "a Node's blocker",
      disruptionBlocked("Node", node, 'pod shop/web-1 has "karpenter.sh/do-not-disrupt": "true"'),
      { kind: "Node", message: 'Pod shop/web-1 has "karpenter.sh/do-not-disrupt": "true"' },
    ],
    [
      "a NodePool whose budget is spent",
      nodePoolDisruptionBlocked(pool, "Underutilized"),
      {
        kind: "NodePool",
        message: "No allowed disruptions for disruption reason Underutilized due to blocking budget",
      },
    ],
  ];
  for (const [what, event, want] of cases) {
    void it(`should word ${what} as Karpenter does`, () => {
      assert.equal(event.reason, "DisruptionBlocked");
      assert.equal(event.type, "Normal");
      assert.equal(event.involved.kind, want.kind);
      assert.equal(event.message, want.message);
    });
  }
});

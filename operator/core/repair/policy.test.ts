import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Condition, Node, NodeClaim } from "../lifecycle/objects.ts";
import { REPAIR_POLICIES, repairDecision, unhealthyThreshold, type RepairDecision } from "./policy.ts";

const NOW = Date.parse("2026-11-27T12:00:00Z");
const MIN = 60_000;
const ago = (ms: number): string => new Date(NOW - ms).toISOString();

const node = (name: string, conditions: readonly Condition[], pool: string | null = "default"): Node => ({
  metadata: { name, labels: pool === null ? {} : { "karpenter.sh/nodepool": pool } },
  status: { conditions: [...conditions] },
});
const ready: Condition = { type: "Ready", status: "True", lastTransitionTime: ago(120 * MIN) };
const notReady = (forMs: number, status = "False"): Condition => ({
  type: "Ready",
  status,
  reason: "KubeletNotReady",
  lastTransitionTime: ago(forMs),
});
const claim = (
  pool: string | null = "default",
  extra: Partial<NonNullable<NodeClaim["metadata"]>> = {},
): NodeClaim => ({
  metadata: { name: "nc", labels: pool === null ? {} : { "karpenter.sh/nodepool": pool }, ...extra },
});
const healthy = (n: number, pool: string | null = "default"): Node[] =>
  Array.from({ length: n }, (_, i) => node(`ok-${i}`, [ready], pool));

interface Case {
  readonly name: string;
  readonly node: Node;
  readonly nodeClaim?: NodeClaim | undefined;
  readonly others?: readonly Node[];
  readonly want: RepairDecision | RepairDecision["action"];
}

const due = (type: string, status: string, reason: string, dueAt: number): RepairDecision => ({
  action: "repair",
  condition: { type, status, reason, dueAt },
});

void describe("node repair decision", () => {
  const policyCases: Case[] = REPAIR_POLICIES.map((p) => ({
    name:
      `repair a Node whose ${p.conditionType} has been ${p.conditionStatus} for longer than its ` +
      `${p.tolerationMs / MIN} min toleration`,
    node: node("bad", [
      ...(p.conditionType === "Ready" ? [] : [ready]),
      { type: p.conditionType, status: p.conditionStatus, reason: "Any", lastTransitionTime: ago(p.tolerationMs + 1) },
    ]),
    others: healthy(9),
    want: due(p.conditionType, p.conditionStatus, "Any", NOW - 1),
  }));
  const cases: Case[] = [
    ...policyCases,
    { name: "leave a healthy Node alone", node: node("ok", [ready]), want: "none" },
    {
      name: "wait until Ready False has lasted its 30 min toleration",
      node: node("bad", [notReady(30 * MIN - 1)]),
      want: { action: "wait", requeueAfterMs: 1 },
    },
    {
      name: "repair exactly at the end of the toleration",
      node: node("bad", [notReady(30 * MIN)]),
      others: healthy(4),
      want: due("Ready", "False", "KubeletNotReady", NOW),
    },
    {
      name: "ignore a condition the policies do not name",
      node: node("bad", [ready, { type: "MemoryPressure", status: "True", lastTransitionTime: ago(600 * MIN) }]),
      want: "none",
    },
    {
      name: "ignore a monitoring agent condition that is Unknown (only False is a policy)",
      node: node("bad", [ready, { type: "KernelReady", status: "Unknown", lastTransitionTime: ago(600 * MIN) }]),
      want: "none",
    },
    {
      name: "act on the condition due first when several match",
      node: node("bad", [
        notReady(31 * MIN),
        { type: "AcceleratedHardwareReady", status: "False", reason: "NvidiaXID79", lastTransitionTime: ago(25 * MIN) },
      ]),
      others: healthy(9),
      want: due("AcceleratedHardwareReady", "False", "NvidiaXID79", NOW - 15 * MIN),
    },
    {
      name: "never repair a Node without a NodeClaim (not Karpenter's)",
      node: node("bad", [notReady(600 * MIN)]),
      nodeClaim: undefined,
      want: "none",
    },
    {
      name: "leave a NodeClaim already being deleted",
      node: node("bad", [notReady(600 * MIN)]),
      nodeClaim: claim("default", { deletionTimestamp: ago(MIN) }),
      want: "none",
    },
    // Karpenter's controller does not look at initialization: a Node that never became Ready in 30 min is replaced too.
    {
      name: "repair an uninitialized Node whose Ready has been False past the toleration",
      node: {
        ...node("new", [notReady(31 * MIN)]),
        spec: { taints: [{ key: "karpenter.sh/unregistered", effect: "NoExecute" }] },
      },
      others: healthy(4),
      want: "repair",
    },
    {
      name: "repair the one unhealthy Node of a pool of 1 (threshold rounds up to 1)",
      node: node("bad", [notReady(31 * MIN)]),
      others: [],
      want: "repair",
    },
    {
      name: "repair 1 unhealthy of 3 Nodes (33%, yet the threshold rounds up to 1)",
      node: node("bad", [notReady(31 * MIN)]),
      others: healthy(2),
      want: "repair",
    },
    {
      name: "block 2 unhealthy of 5 Nodes (threshold 1)",
      node: node("bad", [notReady(31 * MIN)]),
      others: [...healthy(3), node("bad2", [notReady(MIN)])],
      want: {
        action: "blocked",
        requeueAfterMs: 5 * MIN,
        nodePool: "default",
        message: "more than 20% nodes are unhealthy in the nodepool",
      },
    },
    {
      name: "repair 2 unhealthy of 10 Nodes (threshold 2)",
      node: node("bad", [notReady(31 * MIN)]),
      others: [...healthy(8), node("bad2", [notReady(MIN)])],
      want: "repair",
    },
    {
      name: "count unhealthy Nodes still within their toleration toward the cap",
      node: node("bad", [notReady(31 * MIN)]),
      others: [...healthy(7), node("b2", [notReady(MIN)]), node("b3", [notReady(MIN, "Unknown")])],
      want: "blocked",
    },
    {
      name: "count only the NodePool's own Nodes",
      node: node("bad", [notReady(31 * MIN)]),
      others: [...healthy(4), node("x1", [notReady(MIN)], "other"), node("x2", [notReady(MIN)], "other")],
      want: "repair",
    },
    {
      name: "count every Node of the cluster for a NodeClaim without a NodePool",
      node: node("bad", [notReady(31 * MIN)], null),
      nodeClaim: claim(null),
      others: [...healthy(3, "a"), node("x1", [notReady(MIN)], "b")],
      want: {
        action: "blocked",
        requeueAfterMs: 5 * MIN,
        nodePool: undefined,
        message: "more than 20% nodes are unhealthy in the cluster",
      },
    },
  ];
  for (const c of cases) {
    void it(`should ${c.name}`, () => {
      const got = repairDecision({
        node: c.node,
        nodeClaim: "nodeClaim" in c ? c.nodeClaim : claim(),
        nodes: [c.node, ...(c.others ?? [])],
        now: NOW,
      });
      if (typeof c.want === "string") assert.equal(got.action, c.want);
      else assert.deepEqual(got, c.want);
    });
  }

  const thresholds: readonly [number, number][] = [
    [1, 1],
    [3, 1],
    [5, 1],
    [6, 2],
    [10, 2],
    [11, 3],
    [100, 20],
    [101, 21],
  ];
  for (const [total, want] of thresholds) {
    void it(`should allow ${want} unhealthy of ${total} Nodes (20%, rounded up)`, () =>
      assert.equal(unhealthyThreshold(total), want));
  }
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { COMMAND_ANNOTATION } from "../disruption/intent.ts";
import { TYPES } from "../disruption/fixtures.ts";
import type { NodeClaim, Pod } from "../lifecycle/objects.ts";
import {
  isStatic,
  nodeLimitOf,
  replicasOf,
  scaleDownOrder,
  staticClaim,
  staticDecision,
  staticLaunches,
  type StaticMember,
  type StaticPool,
} from "./static.ts";

const NOW = Date.parse("2026-11-25T12:00:00Z");
const ago = (hours: number): string => new Date(NOW - hours * 3_600_000).toISOString();

function pool(replicas: number | undefined, limits?: Record<string, string>): StaticPool {
  return {
    metadata: { name: "fixed" },
    spec: {
      ...(replicas === undefined ? {} : { replicas }),
      ...(limits === undefined ? {} : { limits }),
      template: {
        metadata: { labels: { team: "a" } },
        spec: {
          nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
          requirements: [
            { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
            { key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["m5"] },
          ],
        },
      },
    },
  };
}

interface ClaimOptions {
  readonly launched?: boolean;
  readonly deleting?: boolean;
  readonly candidate?: boolean;
  readonly createdHoursAgo?: number;
  readonly expireAfter?: string;
  readonly nodePool?: string;
}

function claim(name: string, o: ClaimOptions = {}): NodeClaim {
  const intent = {
    id: "c1",
    role: "candidate",
    method: "static-drift",
    reason: "Drifted",
    decision: "replace",
    candidates: [name],
    replacements: 1,
  };
  return {
    metadata: {
      name,
      labels: { "karpenter.sh/nodepool": o.nodePool ?? "fixed" },
      creationTimestamp: ago(o.createdHoursAgo ?? 1),
      ...(o.deleting === true ? { deletionTimestamp: ago(0) } : {}),
      ...(o.candidate === true ? { annotations: { [COMMAND_ANNOTATION]: JSON.stringify(intent) } } : {}),
    },
    spec: {
      requirements: [],
      nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
      ...(o.expireAfter === undefined ? {} : { expireAfter: o.expireAfter }),
    },
    status: o.launched === false ? {} : { providerID: `aws:///us-east-1a/i-${name}`, nodeName: name },
  } as NodeClaim;
}

const DAEMON_SET = { apiVersion: "apps/v1", kind: "DaemonSet", name: "ds", uid: "ds", controller: true };

function pod(name: string, o: { daemonSet?: boolean; doNotDisrupt?: string; priority?: number } = {}): Pod {
  return {
    metadata: {
      name,
      namespace: "default",
      uid: name,
      ...(o.daemonSet === true ? { ownerReferences: [DAEMON_SET] } : {}),
      ...(o.doNotDisrupt === undefined ? {} : { annotations: { "karpenter.sh/do-not-disrupt": o.doNotDisrupt } }),
    },
    spec: { containers: [], ...(o.priority === undefined ? {} : { priority: o.priority }) },
    status: { phase: "Running", startTime: ago(1) },
  } as Pod;
}

const members = (claims: readonly NodeClaim[], pods: Record<string, readonly Pod[]> = {}): StaticMember[] =>
  claims.map((c) => ({ claim: c, pods: pods[c.metadata?.name ?? ""] ?? [] }));

void describe("static NodePool fields", () => {
  void it("should read replicas, including 0, and tell static pools from dynamic ones", () => {
    assert.deepEqual([replicasOf(pool(3)), replicasOf(pool(0)), replicasOf(pool(undefined))], [3, 0, undefined]);
    assert.deepEqual([isStatic(pool(0)), isStatic(pool(undefined))], [true, false]);
  });

  void it("should read limits.nodes as a whole number, rounding a quantity up, and no limit as Infinity", () => {
    const limits = [pool(1, { nodes: "4" }), pool(1, { nodes: "1500m" }), pool(1)].map(nodeLimitOf);
    assert.deepEqual(limits, [4, 2, Number.POSITIVE_INFINITY]);
  });
});

void describe("staticDecision: how many NodeClaims a static pool launches or removes", () => {
  const cases: { name: string; pool: StaticPool; claims: NodeClaim[]; want: unknown }[] = [
    {
      name: "should launch every replica of a new pool",
      pool: pool(3),
      claims: [],
      want: { kind: "scale-up", count: 3, current: 0, desired: 3 },
    },
    {
      name: "should launch the missing replicas, counting NodeClaims that have not launched yet",
      pool: pool(3),
      claims: [claim("a"), claim("b", { launched: false })],
      want: { kind: "scale-up", count: 1, current: 2, desired: 3 },
    },
    {
      name: "should do nothing when the pool has its replicas",
      pool: pool(2),
      claims: [claim("a"), claim("b")],
      want: { kind: "steady", current: 2, desired: 2 },
    },
    {
      name: "should ignore NodeClaims of other pools",
      pool: pool(1),
      claims: [claim("x", { nodePool: "other" })],
      want: { kind: "scale-up", count: 1, current: 0, desired: 1 },
    },
    {
      name: "should replace a deleted NodeClaim at once when there is no node limit",
      pool: pool(2),
      claims: [claim("a"), claim("b", { deleting: true })],
      want: { kind: "scale-up", count: 1, current: 1, desired: 2 },
    },
    {
      name: "should wait for a deleting NodeClaim to go when limits.nodes has no room",
      pool: pool(2, { nodes: "2" }),
      claims: [claim("a"), claim("b", { deleting: true })],
      want: { kind: "limit-reached", current: 1, desired: 2, limit: 2 },
    },
    {
      name: "should launch only what limits.nodes leaves",
      pool: pool(5, { nodes: "3" }),
      claims: [claim("a")],
      want: { kind: "scale-up", count: 2, current: 1, desired: 5 },
    },
    {
      name: "should count a node being replaced by drift, whose replacement is in flight, as present",
      pool: pool(2),
      claims: [claim("a"), claim("b", { candidate: true })],
      want: { kind: "steady", current: 1, desired: 2 },
    },
    {
      name: "should launch nothing with replicas 0",
      pool: pool(0),
      claims: [],
      want: { kind: "steady", current: 0, desired: 0 },
    },
  ];
  for (const c of cases) {
    void it(c.name, () => {
      assert.deepEqual(staticDecision({ pool: c.pool, members: members(c.claims), now: NOW }), c.want);
    });
  }

  void it("should make no decision for a dynamic pool", () => {
    assert.equal(staticDecision({ pool: pool(undefined), members: [], now: NOW }), undefined);
  });

  void it("should remove the surplus, not counting a drifted node being replaced nor a deleting one", () => {
    const claims = [
      claim("a"),
      claim("b"),
      claim("c"),
      claim("d", { candidate: true }),
      claim("e", { deleting: true }),
    ];
    const busy = members(claims, { a: [pod("pa")], b: [pod("pb")] });
    const decision = staticDecision({ pool: pool(1), members: busy, now: NOW });
    assert.equal(decision?.kind, "scale-down");
    assert.deepEqual(decision?.kind === "scale-down" ? decision.claims.map((c) => c.metadata?.name) : [], ["c", "a"]);
  });
});

void describe("scaleDownOrder: which NodeClaims a static pool removes first", () => {
  const cases: { name: string; claims: NodeClaim[]; pods: Record<string, Pod[]>; want: string[] }[] = [
    {
      name: "should remove NodeClaims that have not launched before launched ones, even empty ones",
      claims: [claim("empty"), claim("unlaunched", { launched: false })],
      pods: {},
      want: ["unlaunched", "empty"],
    },
    {
      name: "should remove empty nodes, including those with only DaemonSet pods, before nodes with pods",
      claims: [claim("busy"), claim("daemons"), claim("empty")],
      pods: { busy: [pod("w")], daemons: [pod("d", { daemonSet: true })] },
      want: ["daemons", "empty", "busy"],
    },
    {
      name: "should keep a node whose DaemonSet pod has an active do-not-disrupt out of the empty group",
      claims: [claim("guarded"), claim("busy")],
      pods: { guarded: [pod("d", { daemonSet: true, doNotDisrupt: "true" })], busy: [pod("w")] },
      want: ["busy", "guarded"],
    },
    {
      name: "should remove nodes whose pods have an active do-not-disrupt last",
      claims: [claim("guarded"), claim("many")],
      pods: { guarded: [pod("g", { doNotDisrupt: "true" })], many: [pod("1"), pod("2"), pod("3")] },
      want: ["many", "guarded"],
    },
    {
      name: "should treat an expired do-not-disrupt duration as no protection",
      claims: [claim("was-guarded"), claim("many")],
      pods: { "was-guarded": [pod("g", { doNotDisrupt: "30m" })], many: [pod("1"), pod("2")] },
      want: ["was-guarded", "many"],
    },
    {
      name: "should remove the node with the lowest rescheduling cost first",
      claims: [claim("three"), claim("one"), claim("important")],
      pods: { three: [pod("1"), pod("2"), pod("3")], one: [pod("4")], important: [pod("5", { priority: 2 ** 26 })] },
      want: ["one", "important", "three"],
    },
    {
      name: "should weigh the cost by the lifetime left: an old node's pods cost less to move",
      claims: [claim("young", { createdHoursAgo: 1 }), claim("old", { createdHoursAgo: 700 })],
      pods: { young: [pod("1")], old: [pod("2"), pod("3")] },
      want: ["old", "young"],
    },
    {
      name: "should break ties by the newest NodeClaim first",
      claims: [
        claim("older", { createdHoursAgo: 5, expireAfter: "Never" }),
        claim("newer", { createdHoursAgo: 2, expireAfter: "Never" }),
      ],
      pods: {},
      want: ["newer", "older"],
    },
  ];
  for (const c of cases) {
    void it(c.name, () => {
      assert.deepEqual(
        scaleDownOrder(members(c.claims, c.pods), NOW).map((x) => x.metadata?.name),
        c.want,
      );
    });
  }
});

void describe("staticClaim: the NodeClaim a static pool launches", () => {
  void it("should carry the pool's requirements and labels, no instance-type list, no requests", () => {
    const planned = staticClaim(pool(2), TYPES);
    assert.ok(planned !== undefined);
    assert.deepEqual(
      planned.requirements.map((r) => r.key),
      ["karpenter.k8s.aws/instance-family", "karpenter.sh/capacity-type", "karpenter.sh/nodepool", "team"],
    );
    assert.deepEqual([planned.pods, planned.requests, planned.nodePool], [[], {}, "fixed"]);
  });

  void it("should report the cheapest compatible offering as the launch", () => {
    const planned = staticClaim(pool(2), TYPES);
    assert.deepEqual([planned?.launch.instanceType, planned?.launch.capacityType], ["m5.large", "on-demand"]);
  });

  void it("should find nothing when no instance type is compatible", () => {
    const none = staticClaim(
      pool(2),
      TYPES.filter((t) => !t.name.startsWith("m5.")),
    );
    assert.equal(none, undefined);
  });
});

void describe("staticLaunches: the NodeClaims static pools would launch now", () => {
  const ready = (p: StaticPool, status = "True"): StaticPool & { status: Record<string, unknown> } => ({
    ...p,
    status: { conditions: [{ type: "Ready", status }] },
  });
  const types = new Map([["fixed", TYPES]]);

  void it("should plan the missing replicas of a Ready static pool, within limits.nodes", () => {
    assert.equal(staticLaunches([ready(pool(3))], [claim("a")], types, NOW).length, 2);
    assert.equal(staticLaunches([ready(pool(3, { nodes: "2" }))], [claim("a")], types, NOW).length, 1);
  });

  void it("should plan nothing for a NotReady pool, a dynamic pool or a pool at its replicas", () => {
    const none = [ready(pool(2), "False"), ready(pool(undefined)), ready({ ...pool(1) })];
    assert.deepEqual(
      none.map((p) => staticLaunches([p], [claim("a")], types, NOW).length),
      [0, 0, 0],
    );
  });
});

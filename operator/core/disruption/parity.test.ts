/**
 * Divergences S1–S8 of the disruption parity review (shared/spec/disruption-parity-review.md), each
 * as Karpenter decides it (its unit test named where it has one). Every case here failed on kerf
 * before its fix.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Condition, NodeClaim, Pod } from "../lifecycle/objects.ts";
import type { NodePoolObject } from "../provisioning/cluster-view.ts";
import { requirementLabels } from "../provisioning/nodeclaim-template.ts";
import { PodEventTracker } from "../../controllers/disruption/pod-events.ts";
import { consolidatableDecision } from "./consolidatable.ts";
import { input, machine, NOW, pool, view, type Machine, type MachineOptions } from "./fixtures.ts";
import { planDisruption } from "./plan.ts";
import { revalidate } from "./validation.ts";

const names = (p: ReturnType<typeof planDisruption>): string[] =>
  (p.command?.candidates ?? []).map((c) => c.name).sort();
const ago = (ms: number): string => new Date(NOW.getTime() - ms).toISOString();
const OPEN = [{ nodes: "100%" }];
const dnd = (value: string): Record<string, string> => ({ "karpenter.sh/do-not-disrupt": value });

/** `pool` with another consolidateAfter. */
function withConsolidateAfter(p: NodePoolObject, after: string): NodePoolObject {
  const disruption = (p.spec?.["disruption"] ?? {}) as Record<string, unknown>;
  return { ...p, spec: { ...p.spec, disruption: { ...disruption, consolidateAfter: after } } };
}

const cordoned = (m: Machine): Machine => ({
  ...m,
  node: { ...m.node, spec: { ...m.node.spec, unschedulable: true } },
});

function withClaim(m: Machine, patch: (c: NodeClaim) => NodeClaim): Machine {
  return { ...m, claim: patch(m.claim) };
}

function withPods(m: Machine, patch: (p: Pod, i: number) => Pod): Machine {
  return { ...m, pods: m.pods.map(patch) };
}

function withCondition(c: NodeClaim, condition: Condition): NodeClaim {
  const rest = (c.status?.conditions ?? []).filter((x) => x.type !== condition.type);
  return { ...c, status: { ...c.status, conditions: [...rest, condition] } };
}

/** A pod on `node` owned by a DaemonSet, with extra metadata. */
function daemonPod(node: string, o: { annotations?: Record<string, string> } = {}): Pod {
  return {
    metadata: {
      name: `${node}-ds`,
      namespace: "default",
      uid: `${node}-ds`,
      creationTimestamp: ago(3_600_000),
      labels: { app: "agent" },
      annotations: o.annotations ?? {},
      ownerReferences: [{ apiVersion: "apps/v1", kind: "DaemonSet", name: "agent", uid: "ds", controller: true }],
    },
    spec: { nodeName: node, containers: [{ name: "c", resources: { requests: { cpu: "10m", memory: "16Mi" } } }] },
    status: { phase: "Running" },
  } as Pod;
}

type Pdbs = NonNullable<Parameters<typeof view>[2]>["pdbs"];

/** One PDB allowing no disruption of the pods with `labels`. */
/** The pod with Ready=False. */
const unready = (p: Pod): Pod => ({ ...p, status: { ...p.status, conditions: [{ type: "Ready", status: "False" }] } });

const zeroPdb = (labels: Record<string, string>, extra: Record<string, unknown> = {}): Pdbs => [
  {
    metadata: { name: "pdb", namespace: "default" },
    spec: { selector: { matchLabels: labels }, ...extra },
    status: { disruptionsAllowed: 0 },
  },
];

void describe("S1: empty nodes go only through emptiness and its Empty budget", () => {
  void it("keeps an empty node while the Empty budget is 0 (consolidation.go ShouldDisrupt: not underutilized)", () => {
    const p = pool("default", { budgets: [{ nodes: "0", reasons: ["Empty"] }, { nodes: "100%" }] });
    const plan = planDisruption(input(view([machine("empty", { pool: p })], [p])));
    assert.equal(plan.command, undefined, "no Underutilized delete of the empty node");
    assert.equal(plan.eligible.Underutilized, 0);
    assert.ok(plan.blocked.some((b) => b.blocker.kind === "budget" && b.nodeClaim.metadata?.name === "empty"));
    const lifted = pool("default", { budgets: OPEN });
    const released = planDisruption(input(view([machine("empty", { pool: lifted })], [lifted])));
    assert.equal(released.command?.method, "emptiness", "lifting the budget releases it, under the Empty reason");
    assert.equal(released.command?.reason, "Empty");
  });
});

void describe("S2: cordoned nodes stay in the snapshot, closed to moved pods", () => {
  void it("replaces a cordoned drifted node before its pods move (drift.go pre-launches)", () => {
    const m = cordoned(machine("a", { drifted: "NodePoolDrifted", pods: 3, consolidatable: false }));
    const plan = planDisruption(input(view([m])));
    assert.equal(plan.command?.method, "drift");
    assert.equal(plan.command?.decision, "replace");
    const moved = plan.command?.replacements.reduce((s, r) => s + r.pods.length, 0);
    assert.equal(moved, 3, "the replacement holds the three pods");
  });

  void it("consolidates a cordoned underutilized node and moves no pod onto it", () => {
    const p = pool("default", { budgets: OPEN });
    // a is not consolidatable (a destination only); b, cordoned, is the candidate.
    const a = machine("a", { pool: p, pods: 1, memory: "512Mi", consolidatable: false });
    const plan = planDisruption(input(view([a, cordoned(machine("b", { pool: p, pods: 1, memory: "512Mi" }))], [p])));
    assert.equal(plan.command?.decision, "delete");
    assert.deepEqual(names(plan), ["b"], "b's pod fits on a");
    const other = planDisruption(input(view([cordoned(a), machine("b", { pool: p, pods: 1, memory: "512Mi" })], [p])));
    assert.notEqual(other.command?.decision, "delete", "b's pod may not go to the cordoned a");
  });

  void it("does not let one cordoned node stop multi-node consolidation", () => {
    const p = pool("default", { budgets: OPEN });
    const small = ["a", "b", "c", "d"].map((n) => machine(n, { pool: p, type: "m5.xlarge", pods: 1, memory: "2Gi" }));
    const big = cordoned(machine("big", { pool: p, type: "m5.4xlarge", pods: 1, memory: "2Gi" }));
    const plan = planDisruption(input(view([...small, big], [p])));
    assert.equal(plan.command?.method, "multi-node-consolidation");
    assert.deepEqual(names(plan), ["a", "b", "big", "c", "d"]);
  });
});

void describe("S3: no consolidation onto a destination under its consolidateAfter", () => {
  const p = withConsolidateAfter(pool("default", { budgets: OPEN }), "1m");
  const node0 = machine("node0", { pool: p, type: "c5.large", pods: 2, consolidatable: false });
  const busy = (eventAgoMs: number): Machine =>
    withClaim(node0, (c) => ({ ...c, status: { ...c.status, lastPodEventTime: ago(eventAgoMs) } }));
  const quiet = machine("node1", { pool: p, type: "c5.large", pods: 1 });

  void it("keeps node1 while node0 had a pod event 5 s ago (consolidation_test.go:3050)", () => {
    const plan = planDisruption(input(view([busy(5_000), quiet], [p])));
    assert.equal(plan.command, undefined, "c5.large has no cheaper replacement, and node0 takes no pod now");
  });

  void it("deletes node1 once node0's window has passed", () => {
    const plan = planDisruption(input(view([busy(120_000), quiet], [p])));
    assert.equal(plan.command?.decision, "delete");
    assert.deepEqual(names(plan), ["node1"]);
  });

  void it("still replaces a node with a cheaper one beside a busy node (consolidation_test.go:3192)", () => {
    const big = machine("big", { pool: p, type: "m5.4xlarge", pods: 1, memory: "6Gi" });
    const plan = planDisruption(input(view([busy(5_000), big], [p])));
    assert.equal(plan.command?.decision, "replace");
    assert.deepEqual(names(plan), ["big"]);
  });
});

void describe("S4: emptiness re-validation keeps the candidates still valid", () => {
  void it("deletes the other empty nodes when a pod landed on one during the wait (EmptinessValidator)", () => {
    const p = pool("default", { budgets: OPEN });
    const machines = ["a", "b", "c"].map((n) => machine(n, { pool: p }));
    const plan = planDisruption(input(view(machines, [p])));
    assert.deepEqual(names(plan), ["a", "b", "c"]);
    assert.ok(plan.command !== undefined);
    const landed = [machine("a", { pool: p, pods: 1 }), machine("b", { pool: p }), machine("c", { pool: p })];
    const validation = revalidate(input(view(landed, [p])), plan.command);
    assert.equal(validation.ok, true);
    if (validation.ok)
      assert.deepEqual(
        validation.command.candidates.map((c) => c.name),
        ["b", "c"],
      );
    const allBusy = ["a", "b", "c"].map((n) => machine(n, { pool: p, pods: 1 }));
    assert.equal(revalidate(input(view(allBusy, [p])), plan.command).ok, false, "none left: the command is dropped");
  });
});

void describe("S5: pod-level blockers over every pod of the node, as Karpenter reads them", () => {
  const oversized = (o: MachineOptions = {}): Machine => machine("big", { type: "m5.4xlarge", pods: 1, ...o });
  const alwaysAllow = { unhealthyPodEvictionPolicy: "AlwaysAllow" };
  const cases: { why: string; m: Machine; pdbs?: Pdbs; blocked: boolean }[] = [
    {
      why: 'E: a DaemonSet pod with do-not-disrupt "true" holds an empty node',
      blocked: true,
      m: { ...machine("empty"), pods: [daemonPod("empty", { annotations: dnd("true") })] },
    },
    {
      why: "I: a PDB at 0 selecting a DaemonSet pod (DaemonSet pods are evicted)",
      blocked: true,
      pdbs: zeroPdb({ app: "agent" }),
      m: (() => {
        const m = oversized();
        return { ...m, pods: [...m.pods, daemonPod("big")] };
      })(),
    },
    {
      why: "G: a pod tolerating everything is never evicted, so its PDB does not matter",
      blocked: false,
      pdbs: zeroPdb({ app: "big" }),
      m: withPods(oversized(), (p) => ({ ...p, spec: { ...p.spec, tolerations: [{ operator: "Exists" }] } }) as Pod),
    },
    {
      why: "H: AlwaysAllow lets an unready pod go",
      blocked: false,
      pdbs: zeroPdb({ app: "big" }, alwaysAllow),
      m: withPods(oversized(), unready),
    },
    {
      why: "H: AlwaysAllow does not free a ready pod",
      blocked: true,
      pdbs: zeroPdb({ app: "big" }, alwaysAllow),
      m: oversized(),
    },
    {
      why: "a mirror pod is not evicted, so its PDB does not matter",
      blocked: false,
      pdbs: zeroPdb({ app: "big" }),
      m: withPods(
        oversized(),
        (p) =>
          ({
            ...p,
            metadata: { ...p.metadata, ownerReferences: [{ apiVersion: "v1", kind: "Node", name: "big", uid: "n" }] },
          }) as Pod,
      ),
    },
    {
      why: "a terminal pod's do-not-disrupt protects nothing",
      blocked: false,
      m: (() => {
        const m = oversized();
        const done = { ...daemonPod("big", { annotations: dnd("true") }), status: { phase: "Succeeded" } } as Pod;
        return { ...m, pods: [...m.pods, done] };
      })(),
    },
    ...["True", "yes", "invalid-format", "Never", "0s"].map((value) => ({
      why: `F: do-not-disrupt "${value}" is invalid, no block (consolidation_test.go:2916, drift_test.go:599)`,
      blocked: false,
      m: oversized({ podAnnotations: { "karpenter.sh/do-not-disrupt": value } }),
    })),
  ];
  for (const c of cases) {
    void it(c.why, () => {
      const plan = planDisruption(input(view([c.m], undefined, { pdbs: c.pdbs ?? [] })));
      assert.equal(plan.command === undefined, c.blocked);
      const held = plan.unconsolidatable.some((s) => s.blocker.kind === "pdb" || s.blocker.kind === "do-not-disrupt");
      if (c.blocked) assert.ok(held);
    });
  }
});

void describe("S5: an invalid do-not-disrupt value", () => {
  void it("is reported for Karpenter's InvalidDoNotDisruptAnnotation Event, with its reason", () => {
    const cases: [value: string, message: string | undefined][] = [
      ["yes", 'failed to parse "yes" as a duration'],
      ["Never", 'failed to parse "Never" as a duration'],
      ["0s", 'duration "0s" must be positive'],
      ["true", undefined],
      ["30m", undefined],
    ];
    for (const [value, message] of cases) {
      const m = machine("big", { type: "m5.4xlarge", pods: 1, podAnnotations: dnd(value) });
      const reported = planDisruption(input(view([m]))).invalidDoNotDisrupt?.map((i) => [i.pod.name, i.message]);
      assert.deepEqual(reported, message === undefined ? [] : [["big-pod-0", message]], value);
    }
  });
});

void describe("S5: an empty node held by a DaemonSet pod's do-not-disrupt", () => {
  void it("does not hold back consolidation of its pool (it is not about to be emptied)", () => {
    const p = pool("default", { budgets: OPEN });
    const held = machine("held", { pool: p, consolidatable: false });
    const agent = daemonPod("held", { annotations: { "karpenter.sh/do-not-disrupt": "true" } });
    const big = machine("big", { pool: p, type: "m5.4xlarge", pods: 1 });
    const plan = planDisruption(input(view([{ ...held, pods: [agent] }, big], [p])));
    assert.equal(plan.command?.method, "single-node-consolidation");
    assert.deepEqual(names(plan), ["big"], "big's pod may even move onto held, which stays");
  });
});

void describe("S6: NodeClaims carry the custom labels their requirements resolve to", () => {
  void it("labels a NodeClaim of a pool requiring team In [a] team=a (resolveCustomLabelsFromRequirements)", () => {
    const labels = requirementLabels([
      { key: "example.com/team", operator: "In", values: ["a"] },
      { key: "example.com/flag", operator: "Exists" },
      { key: "example.com/tier", operator: "Gt", values: ["3"] },
      { key: "example.com/not", operator: "NotIn", values: ["0", "1"] },
      { key: "example.com/none", operator: "DoesNotExist" },
      { key: "kubernetes.io/arch", operator: "In", values: ["amd64"] },
      { key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["m5"] },
      { key: "kubernetes.io/hostname", operator: "In", values: ["x"] },
    ]);
    const want = { "example.com/team": "a", "example.com/flag": "0", "example.com/tier": "4", "example.com/not": "2" };
    assert.deepEqual(labels, want);
  });
});

void describe("S7: candidate order", () => {
  void it("consolidates the best savings ratio first, with no lifetime factor (consolidation_test.go:4429)", () => {
    // expireAfter 3 s: node0 (older, two pods) is nearly expired; Karpenter no longer scales the cost by lifetime.
    const expiring = (m: Machine, createdAgoMs: number): Machine =>
      withClaim(m, (c) => ({
        ...c,
        metadata: { ...c.metadata, creationTimestamp: ago(createdAgoMs) },
        spec: { ...c.spec, expireAfter: "3s" },
      }));
    const node0 = expiring(machine("node0", { pods: 2 }), 2_900);
    const node1 = expiring(machine("node1", { pods: 1 }), 800);
    const plan = planDisruption(input(view([node0, node1])));
    assert.deepEqual(names(plan), ["node1"], "price / (1 + 1) beats price / (1 + 2)");
  });

  void it("clamps a pod's eviction cost to 10: a critical pod does not hide its node (probe Q)", () => {
    const c5 = machine("c5", { type: "c5.large", pods: 1, memory: "256Mi" });
    const critical = withPods(c5, (p) => ({ ...p, spec: { ...p.spec, priority: 2_000_000_000 } }) as Pod);
    const crowded = machine("m5", { type: "m5.large", pods: 12, memory: "256Mi" });
    const plan = planDisruption(input(view([critical, crowded])));
    assert.deepEqual(names(plan), ["c5"], "0.085 / 11 > 0.096 / 13");
  });

  void it("deletes the most expensive empty node first (emptiness.go sorts by savings ratio)", () => {
    const p = pool("default", { budgets: [{ nodes: "1" }] });
    const machines = [machine("a", { pool: p }), machine("b", { pool: p, type: "m5.4xlarge" })];
    const plan = planDisruption(input(view(machines, [p])));
    assert.equal(plan.command?.method, "emptiness");
    assert.deepEqual(names(plan), ["b"]);
  });

  void it("replaces the earliest drifted node first, not the oldest (drift_test.go:1053)", () => {
    const drifted = (name: string, createdAgoMs: number, driftedAgoMs: number): Machine =>
      withClaim(machine(name, { pods: 1, consolidatable: false, createdAt: ago(createdAgoMs) }), (c) =>
        withCondition(c, {
          type: "Drifted",
          status: "True",
          reason: "NodePoolDrifted",
          lastTransitionTime: ago(driftedAgoMs),
        }),
      );
    const machines = [drifted("old", 48 * 3_600_000, 60_000), drifted("newer", 3 * 3_600_000, 3_600_000)];
    const plan = planDisruption(input(view(machines)));
    assert.equal(plan.command?.method, "drift");
    assert.deepEqual(names(plan), ["newer"]);
  });
});

void describe("S8: DaemonSet pods are no pod events", () => {
  void it("does not restart a node's consolidateAfter clock for a DaemonSet pod (podevents/controller.go)", () => {
    const t = new PodEventTracker();
    const ds = daemonPod("n1");
    const fresh = { ...ds, metadata: { ...ds.metadata, creationTimestamp: NOW.toISOString() } } as Pod;
    assert.equal(t.observe(fresh, "add", NOW.getTime()), undefined, "a new DaemonSet pod binding");
    const failed = { ...fresh, status: { phase: "Failed" } } as Pod;
    assert.equal(t.observe(failed, "update", NOW.getTime()), undefined, "going terminal");
    assert.equal(t.observe(fresh, "delete", NOW.getTime()), undefined, "being deleted");
    assert.equal(t.last("n1"), undefined);
    const rs = [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "r", uid: "r" }];
    const owned = { ...fresh, metadata: { ...fresh.metadata, uid: "rs-pod", ownerReferences: rs } } as Pod;
    assert.equal(t.observe(owned, "add", NOW.getTime()), "n1", "a ReplicaSet pod binding is one");
  });

  void it("measures quiet time from the last pod event when there is one, else from initialization", () => {
    const at = NOW.getTime();
    const claim: NodeClaim = {
      status: {
        lastPodEventTime: ago(60_000),
        conditions: [{ type: "Initialized", status: "True", lastTransitionTime: ago(10_000) }],
      },
    };
    const why = "the last pod event was 60 s ago (Karpenter's timeToCheck)";
    assert.equal(consolidatableDecision(claim, 30_000, at).action, "set", why);
  });
});

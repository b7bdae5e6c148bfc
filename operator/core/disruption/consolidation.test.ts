import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { input, machine, pool, view, NOW, TYPES, type Machine } from "./fixtures.ts";
import { planDisruption } from "./plan.ts";

const SPOT = { key: "karpenter.sh/capacity-type", operator: "In", values: ["spot"] };
const THREE = {
  key: "node.kubernetes.io/instance-type",
  operator: "In",
  values: ["m5.2xlarge", "r5.2xlarge", "r5.xlarge"],
};
const family = (values: string[]): Record<string, unknown> => ({
  key: "karpenter.k8s.aws/instance-family",
  operator: "In",
  values,
});
const capacityOf = (p: ReturnType<typeof planDisruption>): readonly string[] | undefined =>
  p.command?.replacements[0]?.requirements.find((r) => r.key === "karpenter.sh/capacity-type")?.values;

/** The catalog with each spot offering in us-east-1b priced `factor` times its us-east-1a price. */
function zonalSpot(factor: number): InstanceType[] {
  return TYPES.map((t) => ({
    ...t,
    offerings: t.offerings.map((o) =>
      o.capacityType === "spot" && o.zone === "us-east-1b" ? { ...o, pricePerHour: o.pricePerHour * factor } : o,
    ),
  }));
}

void describe("spot-to-spot consolidation (Karpenter's computeSpotToSpotConsolidation)", () => {
  void it("merges several spot nodes into one cheaper spot node without the single-node 15-type minimum", () => {
    // Review S9: three types allowed, so one node would find fewer than 15 cheaper spot types; two are merged anyway.
    const p = pool("default", { requirements: [SPOT, THREE], budgets: [{ nodes: "100%" }] });
    const spot = { pool: p, type: "m5.2xlarge", capacityType: "spot", pods: 1, memory: "15Gi" };
    const machines = ["a", "b"].map((n) => machine(n, spot));
    const plan = planDisruption(input(view(machines, [p]), { spotToSpot: true }));
    assert.equal(plan.command?.method, "multi-node-consolidation");
    assert.equal(plan.command?.decision, "replace");
    assert.equal(plan.command?.replacements[0]?.launch.instanceType, "r5.2xlarge");
    assert.deepEqual(capacityOf(plan), ["spot"]);
  });

  // consolidation_test.go "cannot replace spot with spot if less than minimum InstanceTypes flexibility".
  void it("still needs 15 cheaper spot types to replace one spot node", () => {
    const p = pool("default", { requirements: [SPOT, THREE] });
    const node = machine("a", { pool: p, type: "m5.2xlarge", capacityType: "spot", pods: 1 });
    const plan = planDisruption(input(view([node], [p]), { spotToSpot: true }));
    assert.equal(plan.command, undefined);
    assert.match(plan.unconsolidatable[0]?.blocker.message ?? "", /needs 15 cheaper spot instance types, found 1/);
  });

  void it("replaces one spot node with the 15 cheapest cheaper spot types, its own type elsewhere among them", () => {
    // Review S17c: Karpenter has no "own type among the 15 cheapest" check. The node runs in us-east-1b, where spot is
    // dear; the pool now only allows us-east-1a, where its own type is among the cheaper options.
    const zoneA = { key: "topology.kubernetes.io/zone", operator: "In", values: ["us-east-1a"] };
    const p = pool("default", { requirements: [SPOT, zoneA, family(["c5", "m5", "r5", "c6i", "m6i", "r6i"])] });
    const catalog = zonalSpot(20);
    const node = machine("a", { pool: p, type: "m5.large", capacityType: "spot", zone: "us-east-1b", pods: 1 });
    const instanceTypes = new Map([["default", catalog]]);
    const plan = planDisruption(input(view([node], [p]), { spotToSpot: true, instanceTypes }));
    assert.equal(plan.command?.decision, "replace", plan.unconsolidatable[0]?.blocker.message);
    const options = plan.command?.replacements[0]?.instanceTypes.map((t) => t.name) ?? [];
    assert.equal(options.length, 15);
    assert.ok(options.includes("m5.large"), options.join(","));
  });
});

void describe("a replacement's price (Karpenter's WorstLaunchPrice)", () => {
  // consolidation_test.go "won't replace node if any spot replacement is more expensive".
  void it("won't replace a node if any spot replacement is more expensive", () => {
    // Review S10: every spot price in us-east-1b is 10x; the replacement may land there, so nothing is cheaper.
    const both = { key: "karpenter.sh/capacity-type", operator: "In", values: ["spot", "on-demand"] };
    const p = pool("default", { requirements: [both, family(["c5", "m5", "r5"])] });
    const node = machine("a", { pool: p, type: "m5.xlarge", pods: 1 });
    const uniform = planDisruption(input(view([node], [p])));
    assert.equal(uniform.command?.decision, "replace", "with one price per type the spot c5.large is cheaper");
    const skewed = planDisruption(input(view([node], [p]), { instanceTypes: new Map([["default", zonalSpot(10)]]) }));
    assert.equal(skewed.command, undefined);
  });
});

void describe("destinations that are not initialized (review S12)", () => {
  // consolidation_test.go "should consider initialized nodes before uninitialized nodes".
  void it("moves a candidate's pods to an initialized node before a booting one", () => {
    const p = pool("default", { budgets: [{ nodes: "100%" }] });
    const booting = machine("b", { pool: p, initialized: false, consolidatable: false });
    const ready = machine("c", { pool: p, consolidatable: false, pods: 1 });
    const plan = planDisruption(input(view([booting, ready, machine("a", { pool: p, pods: 2 })], [p])));
    assert.equal(plan.command?.decision, "delete");
    assert.deepEqual(
      plan.command?.candidates.map((c) => c.name),
      ["a"],
    );
  });
});

void describe("terminating StatefulSet pods (review S13)", () => {
  /** A pod of StatefulSet `web`, deleting but not gone (a finalizer holds it). */
  function terminating(m: Machine): Machine {
    const pods = m.pods.map((pod) => ({
      ...pod,
      metadata: {
        ...pod.metadata,
        deletionTimestamp: NOW.toISOString(),
        ownerReferences: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "web", uid: "web", controller: true }],
      },
    }));
    return { ...m, pods };
  }

  // emptiness_test.go "will not consider a node with a terminating StatefulSet pod as empty".
  void it("keeps a node whose only pod is a terminating StatefulSet pod: it is not empty", () => {
    const plan = planDisruption(input(view([terminating(machine("a", { type: "c5.large", pods: 1 }))])));
    assert.equal(plan.command, undefined);
    assert.equal(plan.eligible.Empty, 0);
  });

  void it("moves the pod like any other when another node has room for it", () => {
    const p = pool("default", { budgets: [{ nodes: "100%" }] });
    const other = machine("b", { pool: p, consolidatable: false, pods: 1 });
    const plan = planDisruption(input(view([terminating(machine("a", { pool: p, pods: 1 })), other], [p])));
    assert.equal(plan.command?.method, "single-node-consolidation");
    assert.equal(plan.command?.reason, "Underutilized");
  });
});

void describe("the Balanced consolidation policy (Karpenter's EvaluateBalancedMove, review S14)", () => {
  // Each Balanced pool scores its share of savings against its share of the RescheduleDisruptionCost of all its
  // nodes (1 per node plus each pod's eviction cost): the move passes at a score of at least 1/2.
  const cases = [
    {
      why: "a 5.7% saving for 2 of the pool's 16 disruption units (12.5%) is rejected",
      a: "m5.large",
      bPods: 13,
      bMemory: "512Mi",
      want: undefined,
    },
    {
      why: "a 62% saving for 2 of the pool's 5 disruption units (40%) passes",
      a: "m5.2xlarge",
      bPods: 2,
      bMemory: "1Gi",
      want: "replace",
    },
  ];
  for (const c of cases) {
    void it(c.why, () => {
      const p = pool("default", { policy: "Balanced", budgets: [{ nodes: "100%" }] });
      const b = machine("b", { pool: p, pods: c.bPods, memory: c.bMemory });
      const plan = planDisruption(input(view([machine("a", { pool: p, type: c.a, pods: 1 }), b], [p])));
      assert.equal(plan.command?.decision, c.want);
      if (c.want === undefined) {
        const why = plan.unconsolidatable.find((x) => x.nodeClaim.metadata?.name === "a")?.blocker.message ?? "";
        assert.match(why, /Balanced policy: saves 5\.7% of NodePool default's cost for 12\.5% of its disruption/);
      } else {
        assert.ok(plan.command?.candidates.some((x) => x.name === "a"));
      }
    });
  }
});

void describe("candidates consolidation cannot price (Karpenter's consolidation ShouldDisrupt, review S17d)", () => {
  const p = pool("default", { budgets: [{ nodes: "100%" }] });
  /** `a` with one pod beside `b`, which has room for it. */
  const cluster = (a: Machine): ReturnType<typeof view> =>
    view([a, machine("b", { pool: p, consolidatable: false, pods: 1 })], [p]);
  const withoutZone = (m: Machine): Machine => {
    const { ["topology.kubernetes.io/zone"]: _zone, ...labels } = m.node.metadata?.labels ?? {};
    const claimLabels = { ...m.claim.metadata?.labels };
    delete claimLabels["topology.kubernetes.io/zone"];
    const node = { ...m.node, metadata: { ...m.node.metadata, labels } };
    return { ...m, node, claim: { ...m.claim, metadata: { ...m.claim.metadata, labels: claimLabels } } };
  };
  const cases = [
    {
      why: "instance type is not among its NodePool's",
      a: machine("a", { pool: p, pods: 1 }),
      types: TYPES.filter((t) => t.name !== "m5.large"),
      message: 'Instance Type "m5.large" not found',
    },
    {
      why: "Node has no zone label",
      a: withoutZone(machine("a", { pool: p, pods: 1 })),
      types: TYPES,
      message: 'Node does not have label "topology.kubernetes.io/zone"',
    },
  ];
  for (const c of cases) {
    void it(`leaves a node whose ${c.why}, and says so`, () => {
      const plan = planDisruption(input(cluster(c.a), { instanceTypes: new Map([["default", c.types]]) }));
      assert.equal(plan.command, undefined);
      const said = plan.unconsolidatable.some(
        (s) => s.nodeClaim.metadata?.name === "a" && s.blocker.message === c.message,
      );
      assert.ok(said);
    });
  }
});

void describe("static NodePools (review S17f)", () => {
  void it("leaves the nodes of a NodePool with replicas to StaticDrift: no emptiness, drift or consolidation", () => {
    const p = pool("fixed", { budgets: [{ nodes: "100%" }] });
    const fixed = { ...p, spec: { ...p.spec, replicas: 2 } };
    const drifted = machine("b", { pool: fixed, drifted: "NodePoolDrifted", pods: 1 });
    const machines = [machine("a", { pool: fixed }), drifted];
    const plan = planDisruption(input(view(machines, [fixed])));
    assert.equal(plan.command?.method, "static-drift");
    assert.deepEqual(
      plan.command?.candidates.map((c) => c.name),
      ["b"],
    );
    assert.deepEqual(plan.eligible, { Empty: 0, Drifted: 1, Underutilized: 0, KerfScheduledOff: 0 });
    const kept = [machine("a", { pool: fixed }), machine("c", { pool: fixed, pods: 1 })];
    const undrifted = planDisruption(input(view(kept, [fixed])));
    assert.equal(undrifted.command, undefined);
    assert.deepEqual(undrifted.eligible, { Empty: 0, Drifted: 0, Underutilized: 0, KerfScheduledOff: 0 });
  });
});

void describe("empty nodes (Karpenter's Candidate.IsEmpty, review S17a)", () => {
  const DELETION_COST = "controller.kubernetes.io/pod-deletion-cost";
  const cases = [
    { why: "a pod-deletion-cost of -2^27", annotations: { [DELETION_COST]: "-134217728" }, want: "emptiness" },
    {
      why: "a karpenter.sh/disruption-cost of -2^27",
      annotations: { "karpenter.sh/disruption-cost": "-134217728" },
      want: "emptiness",
    },
    {
      why: "a pod-deletion-cost of -2^26 (still worth moving)",
      annotations: { [DELETION_COST]: "-67108864" },
      want: undefined,
    },
  ];
  for (const c of cases) {
    void it(`${c.want === undefined ? "does not count" : "counts"} a node whose only pod has ${c.why} as empty`, () => {
      const alone = machine("a", { type: "c5.large", pods: 1, podAnnotations: c.annotations });
      const plan = planDisruption(input(view([alone])));
      assert.equal(plan.command?.method, c.want);
      assert.equal(plan.eligible.Empty, c.want === undefined ? 0 : 1);
    });
  }
});

void describe("spot-to-spot truncation with minValues (review S9, consolidation.go SatisfiesMinValues)", () => {
  // consolidation_test.go "should consider the max of default and minimum number of instanceTypeOptions from
  // minValues": the launch keeps as many of the cheapest types as minValues needs, here 16 (14 of family fa,
  // then fb, then fc), not max(15, the minValues number 3).
  const FAMILY = "karpenter.k8s.aws/instance-family";
  void it("keeps the cheapest types up to the number minValues needs when that is more than 15", () => {
    const base = TYPES.find((t) => t.name === "c5.large")!;
    const fake = (i: number, family: string): InstanceType => {
      const name = `${family}.t${i}`;
      const labels = { ...base.labels, "node.kubernetes.io/instance-type": name, [FAMILY]: family };
      const offerings = base.offerings
        .filter((o) => o.capacityType === "spot")
        .map((o) => ({ ...o, pricePerHour: 0.001 * (i + 1) }));
      return { ...base, name, labels, offerings };
    };
    const fakes = [...Array.from({ length: 14 }, (_, i) => fake(i, "fa")), fake(14, "fb"), fake(15, "fc")];
    const catalog = [...fakes, TYPES.find((t) => t.name === "m5.large")!];
    const families = { key: FAMILY, operator: "In", values: ["fa", "fb", "fc", "m5"], minValues: 3 };
    const p = pool("default", { requirements: [SPOT, families] });
    const node = machine("a", { pool: p, type: "m5.large", capacityType: "spot", pods: 1 });
    const instanceTypes = new Map([["default", catalog]]);
    const plan = planDisruption(input(view([node], [p]), { spotToSpot: true, instanceTypes }));
    assert.equal(plan.command?.decision, "replace", plan.unconsolidatable[0]?.blocker.message);
    assert.equal(plan.command?.replacements[0]?.instanceTypes.length, 16);
  });
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { input, machine, pool, view, NOW, type Machine } from "./fixtures.ts";
import { planDisruption, type DisruptionInput } from "./plan.ts";
import { revalidate } from "./validation.ts";
import type { NodeClaim, Pod } from "../lifecycle/objects.ts";

const names = (p: ReturnType<typeof planDisruption>): string[] =>
  (p.command?.candidates ?? []).map((c) => c.name).sort();

void describe("a disruption pass", () => {
  void it("deletes empty consolidatable nodes, as many as the Empty budget allows", () => {
    const cases = [
      { budgets: undefined, want: 1, why: "default 10% of 2 nodes rounds up to 1" },
      { budgets: [{ nodes: "100%" }], want: 2, why: "100%" },
      { budgets: [{ nodes: "5" }], want: 2, why: "a count above the node count" },
      {
        budgets: [{ nodes: "1", reasons: ["Drifted"] }],
        want: 2,
        why: "a budget for another reason does not limit emptiness",
      },
    ];
    for (const c of cases) {
      const p = pool("default", c.budgets === undefined ? {} : { budgets: c.budgets });
      const plan = planDisruption(input(view([machine("a", { pool: p }), machine("b", { pool: p })], [p])));
      assert.equal(plan.command?.method, "emptiness", c.why);
      assert.equal(plan.command?.candidates.length, c.want, c.why);
      assert.equal(plan.command?.decision, "delete");
    }
  });

  void it("disrupts nothing while a budget allows 0 and says which budget blocks", () => {
    const p = pool("default", { budgets: [{ nodes: "0" }] });
    const plan = planDisruption(input(view([machine("a", { pool: p }), machine("b", { pool: p, pods: 1 })], [p])));
    assert.equal(plan.command, undefined);
    assert.ok(plan.blocked.some((b) => b.blocker.kind === "budget" && b.nodeClaim.metadata?.name === "a"));
    assert.equal(plan.budgets.find((b) => b.reason === "Empty")?.allowed, 0);
  });

  void it("counts nodes already disrupting against the budget", () => {
    const p = pool("default", { budgets: [{ nodes: "1" }] });
    const deleting = machine("gone", { pool: p });
    const d = {
      ...deleting,
      claim: { ...deleting.claim, metadata: { ...deleting.claim.metadata, deletionTimestamp: NOW.toISOString() } },
    };
    const plan = planDisruption(input(view([d, machine("a", { pool: p })], [p])));
    assert.equal(plan.command, undefined, "one node is deleting, the budget of 1 is spent");
    const inFlight = planDisruption(
      input(view([machine("x", { pool: p }), machine("a", { pool: p })], [p]), { inFlight: new Set(["x"]) }),
    );
    assert.equal(inFlight.command, undefined, "a node in an executing command counts too");
  });

  void it("leaves nodes that are not consolidatable, not initialized, nominated or annotated do-not-disrupt", () => {
    const cases = [
      { m: machine("a", { consolidatable: false }), blocker: undefined },
      { m: machine("a", { initialized: false }), blocker: "not-initialized" },
      { m: machine("a", { nodeAnnotations: { "karpenter.sh/do-not-disrupt": "true" } }), blocker: "do-not-disrupt" },
    ];
    for (const c of cases) {
      const plan = planDisruption(input(view([c.m])));
      assert.equal(plan.command, undefined);
      assert.equal(plan.blocked.find((b) => b.nodeClaim.metadata?.name === "a")?.blocker.kind, c.blocker);
    }
    const nominated = planDisruption(input(view([machine("a")]), { nominated: new Set(["a"]) }));
    assert.equal(nominated.command, undefined);
    assert.equal(nominated.blocked[0]?.blocker.kind, "nominated");
  });

  void it("deletes an underutilized node whose pods fit on another", () => {
    const plan = planDisruption(input(view([machine("a", { pods: 1 }), machine("b", { pods: 1 })])));
    assert.equal(plan.command?.decision, "delete");
    assert.equal(plan.command?.reason, "Underutilized");
    assert.equal(plan.command?.candidates.length, 1);
    assert.ok((plan.command?.savingsPerHour ?? 0) > 0.09);
  });

  void it("leaves the room pending pods will take, and waits for a node that is not initialized", () => {
    const waiting = Array.from(
      { length: 6 },
      (_, i) =>
        ({
          metadata: {
            name: `waiting-${i}`,
            namespace: "default",
            uid: `waiting-${i}`,
            creationTimestamp: NOW.toISOString(),
          },
          spec: { containers: [{ name: "c", resources: { requests: { memory: "1Gi", cpu: "100m" } } }] },
          status: { phase: "Pending" },
        }) as Pod,
    );
    const p = pool("default", { budgets: [{ nodes: "100%" }] });
    const cases = [
      {
        why: "b has room: a's pods move there",
        b: machine("b", { pool: p, consolidatable: false, pods: 1 }),
        pending: [],
        nominated: [],
        want: "delete",
      },
      {
        why: "b just launched for six pending pods",
        b: machine("b", { pool: p, consolidatable: false }),
        pending: waiting,
        nominated: ["b"],
        want: "replace",
      },
      {
        why: "the pods of a node being deleted wait for b's room too",
        b: machine("b", { pool: p, consolidatable: false }),
        pending: [],
        nominated: ["b"],
        deleting: true,
        want: "replace",
      },
      // Karpenter's "won't delete node if it would require pods to schedule on an uninitialized node"
      // (consolidation_test.go): the move waits for b, no replacement is launched (review S12).
      {
        why: "b is not initialized yet",
        b: machine("b", { pool: p, initialized: false, consolidatable: false }),
        pending: [],
        nominated: [],
        want: undefined,
      },
    ];
    for (const c of cases) {
      const going = machine("going", { pool: p, pods: 6, type: "m5.xlarge" });
      const gone = {
        ...going,
        claim: { ...going.claim, metadata: { ...going.claim.metadata, deletionTimestamp: NOW.toISOString() } },
      };
      const machines = [machine("a", { pool: p, pods: 2 }), c.b, ...(c.deleting === true ? [gone] : [])];
      const plan = planDisruption(
        input(view(machines, [p], { pods: c.pending }), { pending: c.pending, nominated: new Set(c.nominated) }),
      );
      assert.equal(plan.command?.decision, c.want, c.why);
      if (c.want === undefined) {
        const why = plan.unconsolidatable.find((x) => x.nodeClaim.metadata?.name === "a")?.blocker.message ?? "";
        assert.match(why, /would schedule against uninitialized node b/, c.why);
        continue;
      }
      assert.deepEqual(names(plan), ["a"], c.why);
      if (c.want === "replace") assert.equal(plan.command?.replacements[0]?.launch.instanceType, "c5.large", c.why);
    }
  });

  void it("waits to consolidate while an empty node of the pool waits out consolidateAfter, and says why", () => {
    // After a scale-down the emptied node's clock can run out last; moving a's pods now would fill it again.
    const open = pool("default", { budgets: [{ nodes: "100%" }] });
    const noEmpty = pool("default", { budgets: [{ nodes: "0", reasons: ["Empty"] }, { nodes: "100%" }] });
    const cases = [
      { why: "b empty, not consolidatable yet: a waits", p: open, bReady: false, method: undefined, names: [] },
      { why: "b consolidatable: emptiness removes it", p: open, bReady: true, method: "emptiness", names: ["b"] },
      {
        why: "the Empty budget is 0: nothing would remove b, so a is consolidated",
        p: noEmpty,
        bReady: false,
        method: "single-node-consolidation",
        names: ["a"],
      },
    ];
    for (const c of cases) {
      const machines = [machine("a", { pool: c.p, pods: 2 }), machine("b", { pool: c.p, consolidatable: c.bReady })];
      const plan = planDisruption(input(view(machines, [c.p])));
      assert.equal(plan.command?.method, c.method, c.why);
      assert.deepEqual(names(plan), c.names, c.why);
      if (c.method === undefined) {
        const why = plan.unconsolidatable.find((x) => x.nodeClaim.metadata?.name === "a")?.blocker.message ?? "";
        assert.match(why, /node b of the NodePool is empty/, c.why);
      }
    }
  });

  void it("moves no pod onto a node of a command being executed, and finds room for that node's pods first", () => {
    const p = pool("default", { budgets: [{ nodes: "100%" }] });
    const machines = [machine("a", { pool: p, pods: 2 }), machine("b", { pool: p, pods: 3 })];
    assert.deepEqual(names(planDisruption(input(view(machines, [p])))), ["a"], "alone, a's two pods move to b");
    const plan = planDisruption(input(view(machines, [p]), { inFlight: new Set(["b"]) }));
    assert.equal(
      plan.command,
      undefined,
      "b is going: its three pods take a's room, and a with five is no cheaper to replace",
    );
  });

  void it("removes an empty node after kerf.dev/consolidate-empty-after while underutilized nodes wait for consolidateAfter", () => {
    /** An empty node whose last pod left `minutes` ago, not Consolidatable (consolidateAfter has not passed). */
    const idle = (minutes: number): Machine => {
      const m = machine("idle", { consolidatable: false });
      const left = new Date(NOW.getTime() - minutes * 60_000).toISOString();
      return { ...m, claim: { ...m.claim, status: { ...m.claim.status, lastPodEventTime: left } } as NodeClaim };
    };
    const cases = [
      {
        why: "no annotation: consolidateAfter (not passed) governs",
        annotation: undefined,
        minutes: 10,
        want: undefined,
      },
      { why: "5m passed after the last pod left", annotation: "5m", minutes: 10, want: "emptiness" },
      { why: "5m not passed yet", annotation: "5m", minutes: 2, want: undefined },
      { why: "an unusable value is ignored", annotation: "5 minutes", minutes: 10, want: undefined },
      {
        why: "consolidateAfter: Never still lets empty nodes go",
        annotation: "0s",
        minutes: 0,
        want: "emptiness",
        never: true,
      },
    ];
    for (const c of cases) {
      const p = pool("default", {
        budgets: [{ nodes: "100%" }],
        ...(c.annotation === undefined ? {} : { annotations: { "kerf.dev/consolidate-empty-after": c.annotation } }),
      });
      const withPolicy =
        c.never === true ? { ...p, spec: { ...p.spec, disruption: { consolidateAfter: "Never" } } } : p;
      const busy = machine("busy", { type: "m5.4xlarge", pods: 1, consolidatable: false });
      const plan = planDisruption(input(view([idle(c.minutes), busy], [withPolicy])));
      assert.equal(plan.command?.method, c.want, c.why);
      if (c.want !== undefined) assert.deepEqual(names(plan), ["idle"], `${c.why}: the underutilized node waits`);
      assert.equal(plan.eligible.Empty, c.want === undefined ? 0 : 1, c.why);
    }
  });

  void it("replaces an oversized node with one strictly cheaper node", () => {
    const plan = planDisruption(input(view([machine("big", { type: "m5.4xlarge", pods: 2 })])));
    assert.equal(plan.command?.decision, "replace");
    assert.equal(plan.command?.method, "single-node-consolidation");
    const launch = plan.command?.replacements[0]?.launch;
    assert.ok(
      launch !== undefined && launch.pricePerHour < 0.768,
      `${launch?.instanceType} costs less than m5.4xlarge`,
    );
  });

  void it("merges several half-empty nodes with multi-node consolidation", () => {
    const p = pool("default", { budgets: [{ nodes: "100%" }] });
    const machines = ["a", "b", "c", "d"].map((n) =>
      machine(n, { pool: p, type: "m5.xlarge", pods: 1, memory: "2Gi" }),
    );
    const plan = planDisruption(input(view(machines, [p])));
    assert.equal(plan.command?.method, "multi-node-consolidation");
    assert.equal(plan.command?.candidates.length, 4, "all four fit on one cheaper node");
    assert.equal(plan.command?.decision, "replace");
    const limited = planDisruption(
      input(
        view(machines.map((m) => machine(m.claim.metadata?.name ?? "", { type: "m5.xlarge", pods: 1, memory: "2Gi" }))),
      ),
    );
    assert.equal(
      limited.command?.candidates.length,
      1,
      "the default budget (10% of 4 rounds up to 1) leaves one candidate: single-node",
    );
  });

  void it("never replaces several nodes with one of their own instance type (a delete does it without churn)", () => {
    const p = pool("default", { budgets: [{ nodes: "100%" }] });
    const plan = planDisruption(
      input(
        view(
          [machine("a", { pool: p, type: "c5.large", pods: 1 }), machine("b", { pool: p, type: "c5.large", pods: 1 })],
          [p],
        ),
      ),
    );
    assert.equal(plan.command?.method, "single-node-consolidation");
    assert.equal(plan.command?.decision, "delete");
  });

  void it("never consolidates underutilized nodes of a WhenEmpty pool", () => {
    const p = pool("default", { policy: "WhenEmpty" });
    const plan = planDisruption(input(view([machine("big", { pool: p, type: "m5.4xlarge", pods: 1 })], [p])));
    assert.equal(plan.command, undefined);
    assert.equal(plan.eligible.Underutilized, 0);
  });

  void it("keeps nodes whose pods are protected by do-not-disrupt or a PodDisruptionBudget", () => {
    const cases = [
      {
        m: machine("big", { type: "m5.4xlarge", pods: 1, podAnnotations: { "karpenter.sh/do-not-disrupt": "true" } }),
        pdbs: [],
        kind: "do-not-disrupt",
      },
      {
        m: machine("big", { type: "m5.4xlarge", pods: 1, podAnnotations: { "karpenter.sh/do-not-disrupt": "2h" } }),
        pdbs: [],
        kind: "do-not-disrupt",
      },
      {
        m: machine("big", { type: "m5.4xlarge", pods: 1 }),
        kind: "pdb",
        pdbs: [
          {
            metadata: { name: "p", namespace: "default" },
            spec: { selector: { matchLabels: { app: "big" } } },
            status: { disruptionsAllowed: 0 },
          },
        ],
      },
      {
        m: machine("big", { type: "m5.4xlarge", pods: 1 }),
        kind: "pdb",
        pdbs: ["p1", "p2"].map((n) => ({
          metadata: { name: n, namespace: "default" },
          spec: { selector: {} },
          status: { disruptionsAllowed: 5 },
        })),
      },
    ];
    for (const c of cases) {
      const plan = planDisruption(input(view([c.m], undefined, { pdbs: c.pdbs })));
      assert.equal(plan.command, undefined, c.kind);
      assert.equal(plan.unconsolidatable[0]?.blocker.kind, c.kind);
    }
    // Karpenter's IsDoNotDisruptActive: a duration counts from status.startTime; a pod not started is protected.
    const started = (annotation: string, created: number, start: number | undefined): Machine => {
      const podAnnotations = { "karpenter.sh/do-not-disrupt": annotation };
      const m = machine("big", { type: "m5.4xlarge", pods: 1, podAnnotations });
      const at = (hours: number): string => new Date(NOW.getTime() - hours * 3_600_000).toISOString();
      const pods = m.pods.map(
        (p) =>
          ({
            ...p,
            metadata: { ...p.metadata, creationTimestamp: at(created) },
            status: { ...p.status, ...(start === undefined ? {} : { startTime: at(start) }) },
          }) as Pod,
      );
      return { ...m, pods };
    };
    const durations = [
      { why: "30m, started an hour ago: expired", m: started("30m", 1, 1), want: "replace" },
      { why: "2h, created 3 h ago but started 30 min ago: in force", m: started("2h", 3, 0.5), want: undefined },
      {
        why: "1h, created an hour ago, not started (no startTime): in force",
        m: started("1h", 1, undefined),
        want: undefined,
      },
    ];
    for (const c of durations) assert.equal(planDisruption(input(view([c.m]))).command?.decision, c.want, c.why);
  });

  void it("replaces drifted nodes one per command, empty first, under the Drifted budget", () => {
    const older = machine("old", {
      drifted: "NodePoolDrifted",
      pods: 2,
      createdAt: "2026-11-01T00:00:00Z",
      consolidatable: false,
    });
    const empty = machine("empty", { drifted: "NodePoolDrifted", consolidatable: false });
    const plan = planDisruption(input(view([older, empty])));
    assert.equal(plan.command?.method, "drift");
    assert.deepEqual(names(plan), ["empty"]);
    const busy = planDisruption(input(view([older])));
    assert.deepEqual(names(busy), ["old"]);
    assert.equal(busy.command?.decision, "replace");
    assert.equal(
      busy.command?.replacements.reduce((s, r) => s + r.pods.length, 0),
      2,
    );
    const p = pool("default", { budgets: [{ nodes: "0", reasons: ["Drifted"] }] });
    assert.equal(
      planDisruption(
        input(view([machine("old", { pool: p, drifted: "AMIDrift", consolidatable: false, pods: 1 })], [p])),
      ).command,
      undefined,
    );
  });

  void it("plans drift's replacements with the operator's scheduling options, as provisioning would launch", () => {
    const drifted = machine("old", {
      drifted: "NodePoolDrifted",
      pods: 6,
      memory: "1Gi",
      consolidatable: false,
      type: "m5.4xlarge",
    });
    const replacements = (o: Partial<DisruptionInput>): number =>
      planDisruption(input(view([drifted]), o)).command?.replacements.length ?? 0;
    assert.equal(replacements({}), 1, "the default guard lets one NodeClaim hold all six pods");
    assert.equal(
      replacements({ scheduling: { maxPriceRatio: 1 } }),
      2,
      "--max-price-ratio 1 stops growth where another NodeClaim is as cheap",
    );
  });

  void it("chooses consolidation's replacement with the operator's scheduling options, as provisioning would launch", () => {
    const big = machine("big", { pods: 2, type: "m5.4xlarge", zone: "us-east-1a" });
    const prefer = {
      nodeAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          {
            weight: 1,
            preference: {
              matchExpressions: [{ key: "topology.kubernetes.io/zone", operator: "In", values: ["us-east-1b"] }],
            },
          },
        ],
      },
    };
    const m = { ...big, pods: big.pods.map((p) => ({ ...p, spec: { ...p.spec, affinity: prefer } }) as Pod) };
    const zones = (o: Partial<DisruptionInput>): string[] =>
      (planDisruption(input(view([m]), o)).command?.replacements[0]?.requirements ?? [])
        .filter((r) => r.key === "topology.kubernetes.io/zone")
        .flatMap((r) => r.values ?? []);
    assert.deepEqual(zones({}), ["us-east-1b"], "Respect: the pods' preferred zone");
    assert.deepEqual(
      zones({ scheduling: { preferencePolicy: "Ignore" } }),
      [],
      "PREFERENCE_POLICY=Ignore: any zone, as provisioning",
    );
  });

  void it("lets drift through pod-level blockers only when the NodeClaim has a terminationGracePeriod", () => {
    const protectedPods = {
      pods: 1,
      podAnnotations: { "karpenter.sh/do-not-disrupt": "true" },
      drifted: "NodePoolDrifted",
      consolidatable: false,
    };
    assert.equal(planDisruption(input(view([machine("a", protectedPods)]))).command, undefined);
    assert.equal(
      planDisruption(input(view([machine("a", { ...protectedPods, terminationGracePeriod: "1h" })]))).command?.method,
      "drift",
    );
  });

  void it("tries the methods in v1.14's order: emptiness before drift before consolidation", () => {
    const plan = planDisruption(
      input(
        view([
          machine("empty"),
          machine("drifted", { drifted: "NodePoolDrifted", pods: 1 }),
          machine("big", { type: "m5.4xlarge", pods: 1 }),
        ]),
      ),
    );
    assert.equal(plan.command?.method, "emptiness");
    const noEmpty = planDisruption(
      input(
        view([
          machine("drifted", { drifted: "NodePoolDrifted", pods: 1 }),
          machine("big", { type: "m5.4xlarge", pods: 1 }),
        ]),
      ),
    );
    assert.equal(noEmpty.command?.method, "drift");
  });

  void it("only deletes spot nodes unless SpotToSpotConsolidation is on, then pins the replacement to spot", () => {
    const spotPool = pool("default", {
      requirements: [{ key: "karpenter.sh/capacity-type", operator: "In", values: ["spot", "on-demand"] }],
    });
    const spot = machine("big", { pool: spotPool, type: "m5.8xlarge", capacityType: "spot", pods: 1 });
    const off = planDisruption(input(view([spot], [spotPool])));
    assert.equal(off.command, undefined);
    assert.match(off.unconsolidatable[0]?.blocker.message ?? "", /SpotToSpotConsolidation/);
    const on = planDisruption(input(view([spot], [spotPool]), { spotToSpot: true }));
    assert.equal(on.command?.decision, "replace");
    const capacity = on.command?.replacements[0]?.requirements.find((r) => r.key === "karpenter.sh/capacity-type");
    assert.deepEqual(capacity?.values, ["spot"]);
    assert.ok((on.command?.replacements[0]?.instanceTypes.length ?? 0) >= 15);
    const onDemand = machine("big", { pool: spotPool, type: "m5.8xlarge", capacityType: "on-demand", pods: 1 });
    const pinned = planDisruption(input(view([onDemand], [spotPool])));
    assert.deepEqual(
      pinned.command?.replacements[0]?.requirements.find((r) => r.key === "karpenter.sh/capacity-type")?.values,
      ["spot"],
      "an on-demand node replaced by a pool that allows spot is pinned to spot",
    );
  });

  void it("lets a NodePool's kerf.dev/spot-to-spot-consolidation override the feature gate for its nodes", () => {
    const cases = [
      {
        why: "gate off, no annotation",
        gate: false,
        annotation: undefined,
        want: "replace-off",
        message: /feature gate is on \(or NodePool default has/,
      },
      { why: "gate off, the pool opts in", gate: false, annotation: "true", want: "replace" },
      {
        why: "gate on, the pool opts out",
        gate: true,
        annotation: "false",
        want: "replace-off",
        message: /NodePool default has kerf.dev\/spot-to-spot-consolidation: "false"/,
      },
      { why: "gate on, no annotation", gate: true, annotation: undefined, want: "replace" },
      {
        why: "an unusable value is ignored (the gate decides)",
        gate: false,
        annotation: "yes",
        want: "replace-off",
        message: /feature gate/,
      },
    ];
    for (const c of cases) {
      const annotations =
        c.annotation === undefined ? {} : { annotations: { "kerf.dev/spot-to-spot-consolidation": c.annotation } };
      const spotPool = pool("default", {
        requirements: [{ key: "karpenter.sh/capacity-type", operator: "In", values: ["spot", "on-demand"] }],
        ...annotations,
      });
      const spot = machine("big", { pool: spotPool, type: "m5.8xlarge", capacityType: "spot", pods: 1 });
      const plan = planDisruption(input(view([spot], [spotPool]), { spotToSpot: c.gate }));
      if (c.want === "replace") {
        assert.equal(plan.command?.decision, "replace", c.why);
        assert.deepEqual(
          plan.command?.replacements[0]?.requirements.find((r) => r.key === "karpenter.sh/capacity-type")?.values,
          ["spot"],
          c.why,
        );
      } else {
        assert.equal(plan.command, undefined, c.why);
        assert.match(plan.unconsolidatable[0]?.blocker.message ?? "", c.message ?? /./, c.why);
      }
    }
  });

  void it("bounds single-node evaluations per pass and resumes after the last one", () => {
    // Nodes that cannot be consolidated (each pod fills its node), so every evaluation fails.
    const machines = ["a", "b", "c"].map((n) => machine(n, { type: "m5.large", pods: 1, memory: "6Gi" }));
    const first = planDisruption(input(view(machines), { maxSingleNodeEvaluations: 1 }));
    assert.equal(first.command, undefined);
    assert.ok(first.resumeAfter !== undefined);
    const second = planDisruption(
      input(view(machines), { maxSingleNodeEvaluations: 1, resumeAfter: first.resumeAfter }),
    );
    assert.notEqual(second.resumeAfter, first.resumeAfter, "the next pass starts after where the last one stopped");
  });

  void it("counts eligible nodes per reason", () => {
    const plan = planDisruption(
      input(view([machine("e"), machine("d", { drifted: "AMIDrift", pods: 1 }), machine("u", { pods: 1 })])),
    );
    // Karpenter's consolidation ShouldDisrupt: an empty node is emptiness's alone (Empty budget), never Underutilized.
    const why = "an empty node is not an underutilized one";
    assert.deepEqual(plan.eligible, { Empty: 1, Drifted: 1, Underutilized: 2, KerfScheduledOff: 0 }, why);
  });
});

void describe("command validation", () => {
  void it("holds while nothing changed and fails when a pod arrived or the budget closed", () => {
    const machines = [machine("a"), machine("b", { pods: 1 })];
    const plan = planDisruption(input(view(machines)));
    assert.ok(plan.command !== undefined);
    assert.equal(revalidate(input(view(machines)), plan.command).ok, true);
    const busy = [machine("a", { pods: 1 }), machine("b", { pods: 1 })];
    const changed = revalidate(input(view(busy)), plan.command);
    assert.equal(changed.ok, false);
    const p = pool("default", { budgets: [{ nodes: "0" }] });
    const closed = revalidate(
      input(view([machine("a", { pool: p }), machine("b", { pool: p, pods: 1 })], [p])),
      plan.command,
    );
    assert.equal(closed.ok, false);
    if (!closed.ok) assert.match(closed.reason, /budget/);
  });
});

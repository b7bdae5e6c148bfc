import { describe, it } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { run } from "./main.ts";
import type { WhatIf } from "./simulate-disruption.ts";
import { capture } from "./captured-io.ts";
import { documents, m5NodePool, node, pod, simulate, simulatePlan, writeTempFile } from "./simulate-fixtures.ts";

const root = path.resolve(import.meta.dirname, "../..");

describe("kerf simulate", () => {
  it("plans one m5.large for the EKS workshop scenario, as JSON", async () => {
    const plan = await simulatePlan(["-f", path.join(root, "manifests/examples/scenarios/eks-workshop-inflate.yaml")]);
    assert.deepEqual(
      plan.nodeClaims.map((n) => [n.nodePool, n.instanceType, n.capacityType, n.pods.length]),
      [["default", "m5.large", "on-demand", 5]],
    );
    assert.deepEqual(plan.unschedulable, []);
    assert.equal(plan.totalPricePerHour, 0.096);
    assert.equal(plan.disruption, undefined, "no Node: no disruption what-if");
  });
  it("explains unschedulable pods in text", async () => {
    const out = await simulate(["-f", path.join(root, "manifests/examples/scenarios/gpu-and-spread.yaml")]);
    assert.match(out, /ml\/trainer: no instance type in NodePool gpu has 8 nvidia.com\/gpu with arch arm64/);
    assert.match(out, /Total: \d+ node\(s\), \$\d+\.\d{4}\/h/);
  });
  it("points at file and line of a bad object and exits 2", async () => {
    const file = writeTempFile(
      "kind: Pod\nmetadata: {name: ok}\nspec: {}\n---\n" +
        "kind: Pod\nmetadata: {name: x}\nspec:\n  containers: [{resources: {requests: {cpu: lots}}}]\n",
      "bad.yaml",
    );
    const c = capture();
    assert.equal(await run(["simulate", "-f", file], c.io), 2);
    assert.match(c.err(), /bad\.yaml:5:1: reading Pod x: parsing quantity "lots"/);
  });
  it("passes --max-price-ratio to the packing, and rejects a ratio below 1 with exit 2", async () => {
    const workshop = path.join(root, "manifests/examples/scenarios/eks-workshop-inflate.yaml");
    // At ratio 1 no NodeClaim may grow past what its pods are worth: the five 1Gi pods no longer share the m5.large.
    assert.ok((await simulatePlan(["-f", workshop, "--max-price-ratio", "1"])).nodeClaims.length > 1);
    for (const ratio of ["0.5", "x", ""]) {
      const bad = capture();
      assert.equal(await run(["simulate", "-f", workshop, "--max-price-ratio", ratio], bad.io), 2, ratio);
      assert.match(bad.err(), /--max-price-ratio: ".*" is not a number ≥ 1/);
    }
  });
  it("requires -f and a known format", async () => {
    const c = capture();
    assert.equal(await run(["simulate"], c.io), 2);
    assert.equal(await run(["simulate", "-f", "x.yaml", "--format", "xml"], c.io), 2);
  });
});

const whatIfFile = path.join(root, "manifests/examples/scenarios/consolidation-what-if.yaml");
const WEDNESDAY_NOON = "2026-11-25T12:00:00Z";

async function whatIfJson(args: readonly string[]): Promise<WhatIf> {
  const plan = await simulatePlan(args);
  assert.ok(plan.disruption !== undefined);
  return plan.disruption;
}

/** A scenario of one NodePool (with `budgets`) and Nodes given as [name, instance type, pods' memory]. */
function scenarioFile(budgets: string, nodes: readonly [string, string, readonly string[]][], extra = ""): string {
  return writeTempFile(
    documents(
      m5NodePool("default", { disruption: `budgets: ${budgets}` }),
      ...nodes.flatMap(([name, type, pods]) => [
        node(name, "default", type),
        ...pods.map((memory, i) => pod(`${name}-${i}`, memory, { nodeName: name, app: name })),
      ]),
      ...(extra === "" ? [] : [extra]),
    ),
  );
}

describe("kerf simulate: the disruption what-if", () => {
  it("prints the plan pass after pass with savings, budgets and what keeps the rest, as text", async () => {
    const out = await simulate(["-f", whatIfFile, "--at", WEDNESDAY_NOON]);
    assert.match(
      out,
      new RegExp(
        "Pass 1: emptiness \\(Empty\\): delete empty-1 \\(general, " +
          "m5\\.xlarge on-demand in us-east-1a, \\$0\\.1920\\/h, 0 pod\\(s\\)\\), empty-2 ",
      ),
    );
    assert.match(out, /Pass 2: drift \(Drifted\): delete drifted /);
    assert.match(
      out,
      new RegExp(
        "Pass 3: single-node-consolidation \\(Underutilized\\): replace big \\(general, " +
          "m5\\.4xlarge on-demand in us-east-1a, \\$0\\.7680\\/h, 3 pod\\(s\\)\\)\\n" +
          " {4}with c5\\.xlarge on-demand in us-east-1a \\(general, \\$0\\.1700\\/h\\) as whatif-3-1",
      ),
    );
    assert.match(out, /saves \$0\.5980\/h; running total \$1\.0560\/h/);
    assert.match(
      out,
      new RegExp(
        'payments Underutilized: 0 of 2 node\\(s\\) — budget 0 \\(nodes "0", ' +
          'schedule "0 8 \\* \\* mon-fri" for 10h in UTC\\) allows 0',
      ),
    );
    assert.match(
      out,
      new RegExp(
        "payments-1: blocked \\(budget\\): " +
          "the NodePool's disruption budget for Underutilized allows no more disruptions now",
      ),
    );
    assert.match(out, /batch: kept \(do-not-disrupt\): pod batch\/report has "karpenter\.sh\/do-not-disrupt": "true"/);
    assert.match(out, /Disruption total: 4 node\(s\) removed, 1 launched, saving \$1\.0560\/h\n$/);
  });

  it("gives the same plan as JSON, and lets the frozen pool go outside its budget window", async () => {
    const w = await whatIfJson(["-f", whatIfFile, "--at", WEDNESDAY_NOON]);
    assert.deepEqual(
      w.steps.map((s) => [s.method, s.decision, s.candidates.map((c) => c.node)]),
      [
        ["emptiness", "delete", ["empty-1", "empty-2"]],
        ["drift", "delete", ["drifted"]],
        ["single-node-consolidation", "replace", ["big"]],
      ],
    );
    assert.deepEqual(
      w.steps[2]?.replacements.map((r) => [r.instanceType, r.capacityType, r.zone, r.pricePerHour]),
      [["c5.xlarge", "on-demand", "us-east-1a", 0.17]],
    );
    assert.deepEqual([w.nodes, w.nodesRemoved, w.nodesLaunched, w.totalSavingsPerHour], [8, 4, 1, 1.056]);
    assert.deepEqual(
      w.budgets.filter((b) => b.nodePool === "payments").map((b) => b.allowed),
      [0, 0, 0],
    );
    assert.deepEqual(
      w.blocked.map((b) => [b.node, b.kind]),
      [
        ["payments-1", "budget"],
        ["payments-2", "budget"],
      ],
    );
    assert.deepEqual(
      w.unconsolidatable.map((b) => [b.node, b.kind]),
      [
        ["batch", "do-not-disrupt"],
        ["whatif-3-1", "unconsolidatable"],
        ["busy", "unconsolidatable"],
      ],
    );
    const saturday = await whatIfJson(["-f", whatIfFile, "--at", "2026-11-28T12:00:00Z"]);
    assert.deepEqual(
      saturday.budgets.filter((b) => b.nodePool === "payments").map((b) => b.allowed),
      [1, 1, 1],
    );
    assert.ok(
      saturday.steps.some((s) => s.candidates.some((c) => c.nodePool === "payments")),
      "the weekend lets one payments node go at a time",
    );
  });

  it("disrupts nothing under a budget of 0 and names the budget", async () => {
    const file = scenarioFile(`[{nodes: "0"}]`, [
      ["idle", "m5.large", []],
      ["half", "m5.xlarge", ["1Gi"]],
    ]);
    const out = await simulate(["-f", file]);
    assert.match(out, /No disruption now\.\n {2}Then: nothing more to do\./);
    assert.match(out, /default Empty: 0 of 2 node\(s\) — budget 0 \(nodes "0"\) allows 0/);
    assert.match(
      out,
      /idle: blocked \(budget\): the NodePool's disruption budget for Empty allows no more disruptions now/,
    );
    const w = await whatIfJson(["-f", file]);
    assert.deepEqual(w.steps, []);
    assert.deepEqual(
      w.blocked.map((b) => [b.node, b.kind]),
      [
        ["idle", "budget"],
        ["half", "budget"],
      ],
    );
  });

  it("reads PodDisruptionBudgets from the scenario and computes what they allow when they have no status", async () => {
    const cases = [
      { pdb: "minAvailable: 2", blocked: true },
      { pdb: "maxUnavailable: 1", blocked: false },
      { pdb: 'minAvailable: "50%"', blocked: false },
    ];
    for (const k of cases) {
      const pdb =
        `kind: PodDisruptionBudget\nmetadata: {name: guard, namespace: default}\n` +
        `spec: {${k.pdb}, selector: {matchLabels: {app: big}}}`;
      const file = scenarioFile(`[{nodes: "100%"}]`, [["big", "m5.4xlarge", ["1Gi", "1Gi"]]], pdb);
      const w = await whatIfJson(["-f", file]);
      assert.equal(
        w.unconsolidatable.some(
          (b) => b.kind === "pdb" && /PodDisruptionBudget default\/guard allows no disruption/.test(b.message),
        ),
        k.blocked,
        k.pdb,
      );
      assert.equal(w.steps.length > 0, !k.blocked, k.pdb);
    }
  });

  it("stops at the pass limit and leaves nominated nodes alone", async () => {
    const nodes: [string, string, string[]][] = [
      ["a", "m5.large", []],
      ["b", "m5.large", []],
      ["c", "m5.xlarge", ["1Gi"]],
      ["d", "m5.xlarge", ["1Gi"]],
    ];
    const once = await whatIfJson(["-f", scenarioFile(`[{nodes: "1"}]`, nodes), "--passes", "1"]);
    assert.equal(once.steps.length, 1);
    assert.equal(once.stopped, "stopped after 1 passes (--passes)");
    const pending =
      "kind: Pod\nmetadata: {name: new, namespace: default}\n" +
      "spec: {nodeSelector: {kubernetes.io/hostname: a}, containers: [{name: c}]}";
    const nominated = await whatIfJson(["-f", scenarioFile(`[{nodes: "100%"}]`, nodes, pending)]);
    assert.ok(
      !nominated.steps.some((s) => s.candidates.some((c) => c.node === "a")),
      "the pending pod goes to a, so a stays",
    );
    assert.ok(nominated.blocked.some((b) => b.node === "a" && b.kind === "nominated"));
  });

  it("rejects a bad --at or --passes with exit 2", async () => {
    for (const args of [
      ["--at", "tomorrow"],
      ["--passes", "-1"],
      ["--passes", "x"],
    ]) {
      const c = capture();
      assert.equal(await run(["simulate", "-f", whatIfFile, ...args], c.io), 2, args.join(" "));
      assert.match(c.err(), new RegExp(args[0]!));
    }
    assert.equal((await simulatePlan(["-f", whatIfFile, "--passes", "0"])).disruption, undefined);
  });
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { machine, NOW, pool, TYPES, type Machine } from "../disruption/fixtures.ts";
import type { NodePoolObject } from "../provisioning/cluster-view.ts";
import { buildView, renderView, type TopInput } from "./view.ts";

const types = new Map(TYPES.map((t) => [t.name, t]));
const priceOf = (type: string, zone = "us-east-1a", capacity = "on-demand"): number =>
  types.get(type)?.offerings.find((o) => o.zone === zone && o.capacityType === capacity)?.pricePerHour ?? Number.NaN;

function snapshot(machines: readonly Machine[], pools: readonly NodePoolObject[] = [pool("default")]): TopInput {
  return {
    now: NOW.getTime(),
    nodePools: pools,
    nodeClaims: machines.map((m) => m.claim),
    nodes: machines.map((m) => m.node),
    pods: machines.flatMap((m) => m.pods),
    pdbs: [],
    types,
  };
}

void describe("kerf top's view", () => {
  void it("sums each node's pod requests against its allocatable and prices it from the catalog", () => {
    const view = buildView(snapshot([machine("a", { pods: 3, memory: "1Gi" }), machine("b", { type: "c5.xlarge" })]));
    const a = view.nodes.find((n) => n.name === "a");
    assert.equal(a?.cpu.requested, 300);
    assert.equal(a?.memory.requested, 3 * 2 ** 30);
    assert.equal(a?.cpu.allocatable, types.get("m5.large")?.allocatable["cpu"]);
    assert.equal(a?.pods, 3);
    assert.equal(a?.pricePerHour, priceOf("m5.large"));
    assert.equal(view.pricePerHour, priceOf("m5.large") + priceOf("c5.xlarge"));
    assert.deepEqual(
      view.pools.map((p) => [p.name, p.nodes]),
      [["default", 2]],
    );
  });

  void it("says why a node is not disrupted: the budget, a do-not-disrupt node, a wait for consolidateAfter", () => {
    const noBudget = pool("frozen", { budgets: [{ nodes: "0" }] });
    const view = buildView(
      snapshot(
        [
          machine("frozen-1", { pool: noBudget, pods: 1 }),
          machine("pinned", { pods: 1, nodeAnnotations: { "karpenter.sh/do-not-disrupt": "true" } }),
          machine("young", { pods: 1, consolidatable: false }),
          machine("idle"),
        ],
        [pool("default"), noBudget],
      ),
    );
    const state = (name: string): string | undefined => view.nodes.find((n) => n.name === name)?.state;
    assert.equal(state("frozen-1"), "underutilized: budget allows 0 now");
    assert.match(state("pinned") ?? "", /^blocked: .*do-not-disrupt/);
    assert.equal(state("young"), "not consolidatable yet (consolidateAfter)");
    assert.equal(state("idle"), "empty: to be removed");
    assert.deepEqual(view.pools.find((p) => p.name === "frozen")?.budgets, [
      "Empty 0/1",
      "Drifted 0/1",
      "Underutilized 0/1",
    ]);
  });

  void it("says a static NodePool's nodes are kept, and a drifted one is to be replaced", () => {
    const p = pool("fixed", { budgets: [{ nodes: "100%" }] });
    const fixed = { ...p, spec: { ...p.spec, replicas: 2 } };
    const machines = [machine("idle", { pool: fixed }), machine("old", { pool: fixed, drifted: "NodePoolDrifted" })];
    const view = buildView(snapshot(machines, [fixed]));
    const state = (name: string): string | undefined => view.nodes.find((n) => n.name === name)?.state;
    assert.equal(state("idle"), "static: kept (spec.replicas)");
    assert.equal(state("old"), "drifted (NodePoolDrifted): to be replaced");
  });

  void it("lists NodeClaims that have no node yet and nodes kerf does not manage", () => {
    const launching = machine("new");
    const unmanaged = machine("system").node;
    const input = snapshot([machine("a")]);
    const view = buildView({
      ...input,
      nodeClaims: [
        ...input.nodeClaims,
        { ...launching.claim, status: { conditions: [{ type: "Launched", status: "True" }] } },
      ],
      nodes: [...input.nodes, { ...unmanaged, spec: { providerID: "aws:///us-east-1a/i-other" } }],
    });
    assert.deepEqual(
      view.claims.map((c) => [c.name, c.state]),
      [["new", "Launched"]],
    );
    assert.equal(view.nodes.find((n) => n.name === "system")?.state, "not managed by kerf (no NodeClaim)");
  });

  void it("renders a frame with the totals, the pools' budgets and a row per node", () => {
    const view = buildView(snapshot([machine("a", { pods: 2 })]));
    const frame = renderView(view, "2026-11-25T12:00:00Z");
    const lines = frame.split("\n");
    assert.match(
      lines[0] ?? "",
      new RegExp(`^kerf top  2026-11-25T12:00:00Z  1 nodes  \\$${priceOf("m5.large").toFixed(4)}/h`),
    );
    assert.ok(
      lines.some((l) => /^default\s+1\s+\$[\d.]+\/h\s+Empty 1\/1/.test(l)),
      frame,
    );
    const row = lines.find((l) => l.startsWith("a "));
    assert.ok(row !== undefined, frame);
    assert.match(row, /m5\.large\s+on-demand\s+us-east-1a\s+\[#*\.+\]\s+\d+% 200m\/\d+m?/);
    assert.ok(
      lines.every((l) => l.length <= 200),
      "no runaway line",
    );
  });
});

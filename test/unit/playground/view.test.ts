import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { V1Node, V1Pod } from "@kubernetes/client-node";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { catalogPrices, render, summarize, type RawClaim } from "../../playground/view.ts";

const claim = (
  name: string,
  offering: [type: string, capacity: string],
  conditions: string[],
  extra: Partial<RawClaim["metadata"]> = {},
): RawClaim => ({
  metadata: {
    name,
    labels: {
      "node.kubernetes.io/instance-type": offering[0],
      "karpenter.sh/capacity-type": offering[1],
      "topology.kubernetes.io/zone": "us-east-1a",
    },
    ...extra,
  },
  status: {
    nodeName: conditions.includes("Registered") ? `node-${name}` : "",
    conditions: conditions.map((type) => ({ type, status: "True" })),
  },
});
const node = (ready: boolean): V1Node => ({
  status: { conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
});
const pod = (phase: string, deleting = false): V1Pod => ({
  metadata: deleting ? { deletionTimestamp: new Date() } : {},
  status: { phase },
});

void describe("playground live view", () => {
  const prices = catalogPrices(builtinCatalog());

  void it("prices NodeClaims from the catalog, on-demand and spot", () => {
    const m5 = builtinCatalog().instanceTypes.find((t) => t.name === "m5.large");
    assert.equal(prices("m5.large", "on-demand"), m5?.onDemandPricePerHour);
    assert.equal(prices("m5.large", "spot"), m5?.spotPricePerHour);
    assert.equal(prices("no.such", "on-demand"), undefined);
  });

  void it("summarises phases, nodes, pods and the hourly cost of live NodeClaims", () => {
    const state = summarize(
      [
        claim("b", ["m5.large", "on-demand"], ["Launched", "Registered", "Initialized"]),
        claim("a", ["c5.large", "spot"], ["Launched"]),
        claim("c", ["m5.large", "on-demand"], ["Launched"], { deletionTimestamp: "2026-01-01T00:00:00Z" }),
        { metadata: { name: "d" } },
      ],
      [node(true), node(false)],
      [pod("Running"), pod("Running"), pod("Pending"), pod("Running", true)],
      prices,
    );
    assert.deepEqual(
      state.claims.map((c) => [c.name, c.phase]),
      [
        ["a", "Launched"],
        ["b", "Initialized"],
        ["c", "Terminating"],
        ["d", "Pending"],
      ],
    );
    assert.equal(state.nodes, 2);
    assert.equal(state.readyNodes, 1);
    assert.deepEqual([state.running, state.pending, state.terminating], [2, 1, 1]);
    const expected = (prices("m5.large", "on-demand") ?? 0) + (prices("c5.large", "spot") ?? 0);
    assert.ok(Math.abs(state.costPerHour - expected) < 1e-9);
  });

  void it("renders a summary line and aligned NodeClaim rows, colour only when asked", () => {
    const state = summarize(
      [
        claim("default-abc", ["m5.large", "on-demand"], ["Launched", "Registered", "Initialized"]),
        claim("default-z", ["c5.xlarge", "spot"], ["Launched"]),
      ],
      [node(true)],
      [pod("Running"), pod("Pending")],
      prices,
    );
    const plain = render(state, { color: false });
    assert.match(
      plain[0] ?? "",
      /^pods 1 running, 1 pending \| nodes 1 \(1 ready\) \| nodeclaims 2 \| \$\d+\.\d{4}\/h$/,
    );
    assert.equal(plain[1], "  default-abc  m5.large   on-demand  us-east-1a  Initialized  node node-default-abc");
    assert.equal(plain[2], "  default-z    c5.xlarge  spot       us-east-1a  Launched");
    assert.ok(plain.every((l) => !l.includes("\u001b[")));
    assert.ok(render(state, { color: true }).some((l) => l.includes("\u001b[32mInitialized")));
  });

  void it("shows each NodeClaim's disruption state: disrupting beats drifted beats consolidatable", () => {
    const withReason = (name: string, conditions: { type: string; reason?: string }[]): RawClaim => ({
      metadata: {
        name,
        labels: {
          "node.kubernetes.io/instance-type": "m5.large",
          "karpenter.sh/capacity-type": "on-demand",
          "topology.kubernetes.io/zone": "us-east-1a",
        },
      },
      status: {
        nodeName: `node-${name}`,
        conditions: [{ type: "Initialized", status: "True" }, ...conditions.map((c) => ({ ...c, status: "True" }))],
      },
    });
    const state = summarize(
      [
        withReason("a", [{ type: "Consolidatable" }]),
        withReason("b", [{ type: "Consolidatable" }, { type: "Drifted", reason: "AMIDrift" }]),
        withReason("c", [
          { type: "Drifted", reason: "AMIDrift" },
          { type: "DisruptionReason", reason: "Drifted" },
        ]),
        withReason("d", []),
      ],
      [],
      [],
      prices,
    );
    assert.deepEqual(
      state.claims.map((c) => c.disruption),
      ["consolidatable", "drifted: AMIDrift", "disrupting: Drifted", ""],
    );
    assert.match(render(state, { color: false })[1] ?? "", /Initialized\s+node node-a  consolidatable$/);
  });
});

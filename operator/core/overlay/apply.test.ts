import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import {
  adjustedPrice,
  applyOverlays,
  evaluateOverlays,
  isPriceOverlaid,
  orderByWeight,
  type NodeOverlayObject,
  type OverlayPool,
} from "./apply.ts";

function type(name: string, family: string, prices: Record<string, number>): InstanceType {
  return {
    name,
    labels: {
      "node.kubernetes.io/instance-type": name,
      "karpenter.k8s.aws/instance-family": family,
      "kubernetes.io/arch": "amd64",
    },
    capacity: { cpu: 2000, memory: 8e9, pods: 29 },
    allocatable: { cpu: 1930, memory: 7e9, pods: 29 },
    offerings: Object.entries(prices).map(([key, price]) => {
      const [capacityType, zone] = key.split("/") as ["on-demand" | "spot", string];
      return { capacityType, zone, pricePerHour: price, available: true };
    }),
  };
}

const M5 = type("m5.large", "m5", {
  "on-demand/us-east-1a": 0.096,
  "spot/us-east-1a": 0.04,
  "on-demand/us-east-1b": 0.096,
});
const C5 = type("c5.large", "c5", { "on-demand/us-east-1a": 0.085 });
const POOL: OverlayPool = { name: "default", labels: { team: "a" }, types: [M5, C5] };

function overlay(name: string, spec: Record<string, unknown>): NodeOverlayObject {
  return { metadata: { name }, spec: { requirements: [], ...spec } };
}

const prices = (types: readonly InstanceType[], name: string): number[] =>
  types.find((t) => t.name === name)?.offerings.map((o) => o.pricePerHour) ?? [];
const applied = (overlays: NodeOverlayObject[], pools: OverlayPool[] = [POOL]): readonly InstanceType[] =>
  applyOverlays(evaluateOverlays(overlays, pools), "default", POOL.types);

describe("adjustedPrice follows Karpenter's AdjustedPrice", () => {
  const cases: [string, number, string, number][] = [
    ["an absolute price replaces the price", 0.096, "0.01", 0.01],
    ["an absolute increase adds", 0.096, "+0.1", 0.096 + 0.1],
    ["an absolute decrease subtracts", 0.096, "-0.05", 0.096 + -0.05],
    ["a percentage increase scales by 1 + p/100", 0.096, "+10%", 0.096 * (1 + 10 / 100)],
    ["a percentage decrease scales by 1 - p/100", 0.096, "-10%", 0.096 * (1 + -10 / 100)],
    ["-100% makes the offering free", 0.096, "-100%", 0],
    ["a decrease below zero floors at zero", 0.096, "-1", 0],
    ["a decimal without a leading digit reads", 1, "+.5", 1.5],
    ["an empty change keeps the price", 0.5, "", 0.5],
  ];
  for (const [name, price, change, want] of cases) it(name, () => assert.equal(adjustedPrice(price, change), want));
});

describe("orderByWeight follows Karpenter's OrderByWeight", () => {
  it("orders by weight descending, then equal weights by name descending, no weight as 0", () => {
    const order = orderByWeight([
      overlay("a", { weight: 5 }),
      overlay("z", {}),
      overlay("b", { weight: 5 }),
      overlay("c", { weight: 10 }),
    ]);
    assert.deepEqual(
      order.map((o) => o.metadata?.name),
      ["c", "b", "a", "z"],
    );
  });
});

describe("applyOverlays", () => {
  const cases: { name: string; overlays: NodeOverlayObject[]; m5: number[]; c5: number[] }[] = [
    {
      name: "a price override selected by instance type changes every offering of that type only",
      overlays: [
        overlay("cheap", {
          requirements: [{ key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.large"] }],
          price: "0.01",
        }),
      ],
      m5: [0.01, 0.01, 0.01],
      c5: [0.085],
    },
    {
      name: "a capacity-type requirement selects the offerings of that capacity type only",
      overlays: [
        overlay("spot", {
          requirements: [{ key: "karpenter.sh/capacity-type", operator: "In", values: ["spot"] }],
          priceAdjustment: "+100%",
        }),
      ],
      m5: [0.096, 0.08, 0.096],
      c5: [0.085],
    },
    {
      name: "a zone requirement selects the offerings in that zone only",
      overlays: [
        overlay("zone", {
          requirements: [{ key: "topology.kubernetes.io/zone", operator: "In", values: ["us-east-1b"] }],
          priceAdjustment: "-0.05",
        }),
      ],
      m5: [0.096, 0.04, 0.096 + -0.05],
      c5: [0.085],
    },
    {
      name: "the higher weight's price wins over a lower weight's on the same offering",
      overlays: [overlay("low", { weight: 1, price: "9" }), overlay("high", { weight: 2, price: "1" })],
      m5: [1, 1, 1],
      c5: [1],
    },
    {
      name: "a NodePool template label the pool does not have deselects the pool",
      overlays: [overlay("other-team", { requirements: [{ key: "team", operator: "In", values: ["b"] }], price: "5" })],
      m5: [0.096, 0.04, 0.096],
      c5: [0.085],
    },
    {
      name: "a NodePool template label the pool has selects it",
      overlays: [overlay("team", { requirements: [{ key: "team", operator: "In", values: ["a"] }], price: "5" })],
      m5: [5, 5, 5],
      c5: [5],
    },
    {
      name: "a label no type nor pool defines selects nothing (Karpenter's undefined-key rule)",
      overlays: [
        overlay("unknown", { requirements: [{ key: "example.com/gpu", operator: "In", values: ["x"] }], price: "5" }),
      ],
      m5: [0.096, 0.04, 0.096],
      c5: [0.085],
    },
    {
      name: "the karpenter.sh/nodepool label selects by pool name",
      overlays: [
        overlay("pool", {
          requirements: [{ key: "karpenter.sh/nodepool", operator: "In", values: ["default"] }],
          priceAdjustment: "+0.1",
        }),
      ],
      m5: [0.096 + 0.1, 0.04 + 0.1, 0.096 + 0.1],
      c5: [0.085 + 0.1],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const out = applied(c.overlays);
      assert.deepEqual(prices(out, "m5.large"), c.m5);
      assert.deepEqual(prices(out, "c5.large"), c.c5);
    });
  }

  it("adds extended-resource capacity to capacity and allocatable and marks the type", () => {
    const out = applied([
      overlay("device", {
        requirements: [{ key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["m5"] }],
        capacity: { "example.com/device": "2" },
      }),
    ]);
    const m5 = out.find((t) => t.name === "m5.large");
    assert.equal(m5?.capacity["example.com/device"], 2);
    assert.equal(m5?.allocatable["example.com/device"], 2);
    assert.equal(m5?.capacity["cpu"], 2000);
    assert.equal(m5?.capacityOverlaid, true);
    assert.equal(out.find((t) => t.name === "c5.large")?.capacity["example.com/device"], undefined);
  });

  it("keeps the higher weight's value of a resource and adds a lower weight's other resources", () => {
    const out = applied([
      overlay("low", { weight: 1, capacity: { "example.com/a": "9", "example.com/b": "3" } }),
      overlay("high", { weight: 2, capacity: { "example.com/a": "1" } }),
    ]);
    const m5 = out.find((t) => t.name === "m5.large");
    assert.deepEqual([m5?.capacity["example.com/a"], m5?.capacity["example.com/b"]], [1, 3]);
  });

  it("marks price-overlaid types and leaves untouched types as they were", () => {
    const out = applied([
      overlay("cheap", {
        requirements: [{ key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.large"] }],
        price: "0.01",
      }),
    ]);
    assert.equal(isPriceOverlaid(out[0] as InstanceType), true);
    assert.equal(out[1], C5);
  });

  it("returns the types unchanged for a pool no overlay touches", () => {
    const evaluation = evaluateOverlays(
      [overlay("team", { requirements: [{ key: "team", operator: "In", values: ["a"] }], price: "5" })],
      [POOL, { ...POOL, name: "other", labels: {} }],
    );
    assert.equal(applyOverlays(evaluation, "other", POOL.types), POOL.types);
  });
});

describe("evaluateOverlays reports what Karpenter's ValidationSucceeded condition says", () => {
  const its = (values: string[]): Record<string, unknown>[] => [
    { key: "node.kubernetes.io/instance-type", operator: "In", values },
  ];
  const cases: { name: string; overlays: NodeOverlayObject[]; verdicts: Record<string, string> }[] = [
    {
      name: "two equal-weight price overlays on the same offering: the later name wins, the earlier conflicts",
      overlays: [
        overlay("a", { weight: 10, requirements: its(["m5.large"]), price: "1" }),
        overlay("b", { weight: 10, requirements: its(["m5.large"]), price: "2" }),
      ],
      verdicts: { b: "True", a: "False/Conflict" },
    },
    {
      name: "equal-weight price overlays on different types do not conflict",
      overlays: [
        overlay("a", { weight: 10, requirements: its(["m5.large"]), price: "1" }),
        overlay("b", { weight: 10, requirements: its(["c5.large"]), price: "2" }),
      ],
      verdicts: { b: "True", a: "True" },
    },
    {
      name: "different weights on the same offering do not conflict",
      overlays: [overlay("a", { weight: 1, price: "1" }), overlay("b", { weight: 2, price: "2" })],
      verdicts: { b: "True", a: "True" },
    },
    {
      name: "equal-weight capacity overlays on the same resource conflict",
      overlays: [
        overlay("a", { capacity: { "example.com/d": "1" } }),
        overlay("b", { capacity: { "example.com/d": "2" } }),
      ],
      verdicts: { b: "True", a: "False/Conflict" },
    },
    {
      name: "equal-weight capacity overlays on different resources do not conflict",
      overlays: [
        overlay("a", { capacity: { "example.com/d": "1" } }),
        overlay("b", { capacity: { "example.com/e": "2" } }),
      ],
      verdicts: { b: "True", a: "True" },
    },
    {
      name: "an equal-weight price overlay and capacity overlay on the same type do not conflict",
      overlays: [overlay("a", { price: "1" }), overlay("b", { capacity: { "example.com/d": "2" } })],
      verdicts: { b: "True", a: "True" },
    },
    {
      name: "a restricted capacity resource fails runtime validation",
      overlays: [overlay("cpu", { capacity: { cpu: "4" } })],
      verdicts: { cpu: "False/RuntimeValidation" },
    },
    {
      name: "an overlay that selects nothing succeeds",
      overlays: [overlay("none", { requirements: its(["x9.huge"]), price: "1" })],
      verdicts: { none: "True" },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = Object.fromEntries(
        evaluateOverlays(c.overlays, [POOL]).verdicts.map((v) => [
          v.name,
          v.status === "True" ? "True" : `False/${v.reason}`,
        ]),
      );
      assert.deepEqual(got, c.verdicts);
    });
  }

  it("uses Karpenter's conflict message and applies a conflicting overlay nowhere", () => {
    const evaluation = evaluateOverlays(
      [
        overlay("a", { requirements: its(["m5.large"]), price: "1" }),
        overlay("b", { requirements: its(["m5.large", "c5.large"]), price: "2" }),
      ],
      [POOL],
    );
    assert.deepEqual(
      evaluation.verdicts.find((v) => v.name === "a"),
      { name: "a", status: "False", reason: "Conflict", message: "conflict with another overlay" },
    );
    assert.deepEqual(prices(applyOverlays(evaluation, "default", POOL.types), "m5.large"), [2, 2, 2]);
  });

  it("names the restricted resource as Karpenter does", () => {
    const [v] = evaluateOverlays([overlay("pods", { capacity: { pods: "4" } })], [POOL]).verdicts;
    assert.deepEqual(v, {
      name: "pods",
      status: "False",
      reason: "RuntimeValidation",
      message: "invalid capacity: pods in resource, restricted",
    });
  });

  it("a conflict in one pool keeps the overlay out of every pool", () => {
    const other: OverlayPool = { name: "other", labels: {}, types: [M5] };
    const evaluation = evaluateOverlays(
      [
        overlay("z", {
          requirements: [{ key: "karpenter.sh/nodepool", operator: "In", values: ["other"] }],
          price: "1",
        }),
        overlay("a", { price: "2" }),
      ],
      [POOL, other],
    );
    assert.equal(evaluation.verdicts.find((v) => v.name === "a")?.status, "False");
    assert.deepEqual(prices(applyOverlays(evaluation, "default", POOL.types), "c5.large"), [0.085]);
  });
});

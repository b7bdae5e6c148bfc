import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { coveringOptimum } from "../../../test/perf/scheduling/covering-lp.ts";
import { antiAffinityNodes, coveringProblem, type CoveringProblem } from "./lower-bound.ts";
import { simulate } from "./simulate.ts";
import type { NodePoolView, SimPod } from "./types.ts";

const GI = 2 ** 30;

interface TypeSpec {
  vcpu: number;
  gib: number;
  pods: number;
  price: number;
}
interface PodSpec {
  cpu: number;
  mib: number;
  anti: boolean;
}

function instanceType(s: TypeSpec, i: number): InstanceType {
  const resources = { cpu: s.vcpu * 1000, memory: s.gib * GI, pods: s.pods };
  return {
    name: `t${i}`,
    labels: { "node.kubernetes.io/instance-type": `t${i}`, "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux" },
    capacity: resources,
    allocatable: resources,
    offerings: [{ zone: "zone-a", capacityType: "on-demand", pricePerHour: s.price, available: true }],
  };
}

function pod(s: PodSpec, i: number): SimPod {
  const term = {
    selector: { matchLabels: { app: "anti" } },
    namespaces: ["default"],
    topologyKey: "kubernetes.io/hostname",
  };
  return {
    uid: `p${i}`,
    name: `p${i}`,
    namespace: "default",
    labels: s.anti ? { app: "anti" } : {},
    requests: { cpu: s.cpu, memory: s.mib * 2 ** 20, pods: 1 },
    nodeSelector: {},
    requiredTerms: [],
    preferredTerms: [],
    tolerations: [],
    spread: [],
    affinity: [],
    antiAffinity: s.anti ? [term] : [],
    preferredAffinity: [],
    preferredAntiAffinity: [],
    hostPorts: [],
    creationOrder: i,
  };
}

function pool(types: readonly InstanceType[]): NodePoolView {
  return {
    name: "default",
    weight: 0,
    labels: {},
    taints: [],
    startupTaints: [],
    requirements: [],
    instanceTypes: types,
  };
}

/** Solves a small square system by Gaussian elimination; undefined when singular. */
function solve(a: number[][], b: number[]): number[] | undefined {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let col = 0; col < n; col++) {
    const pivot = m
      .slice(col)
      .reduce((best, row, i) => (Math.abs(row[col]!) > Math.abs(m[best]![col]!) ? col + i : best), col);
    if (Math.abs(m[pivot]![col]!) < 1e-12) return undefined;
    [m[col], m[pivot]] = [m[pivot]!, m[col]!];
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = m[r]![col]! / m[col]![col]!;
      for (let c = col; c <= n; c++) m[r]![c]! -= f * m[col]![c]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

/**
 * The LP optimum by brute force over the dual's vertices: max b·y s.t. a_j·y ≤ price_j, y ≥ 0 has
 * 4 variables, so every vertex is 4 tight constraints among the columns and the 4 bounds y_r ≥ 0.
 * By strong duality its best vertex is the covering LP's optimum (the dual is bounded: a column
 * covers every row, so no direction grows b·y).
 */
function bruteForce(problem: CoveringProblem): number {
  const { demand } = problem;
  const b = [demand.vcpu, demand.memoryGiB, demand.pods, demand.nodes];
  const rows = [
    ...problem.columns.map((c) => ({ a: [c.vcpu, c.memoryGiB, c.pods, 1], rhs: c.pricePerHour })),
    ...[0, 1, 2, 3].map((r) => ({ a: [0, 1, 2, 3].map((k) => (k === r ? -1 : 0)), rhs: 0 })),
  ];
  let best = -Infinity;
  const pick = (start: number, chosen: number[]): void => {
    if (chosen.length === 4) {
      const y = solve(
        chosen.map((i) => rows[i]!.a),
        chosen.map((i) => rows[i]!.rhs),
      );
      const feasible = y !== undefined && rows.every((r) => r.a.reduce((s, v, k) => s + v * y[k]!, 0) <= r.rhs + 1e-9);
      if (feasible)
        best = Math.max(
          best,
          y.reduce((s, v, k) => s + v * b[k]!, 0),
        );
      return;
    }
    for (let i = start; i < rows.length; i++) pick(i + 1, [...chosen, i]);
  };
  pick(0, []);
  return best;
}

const typeSpec = fc.record({
  vcpu: fc.integer({ min: 1, max: 16 }),
  gib: fc.integer({ min: 1, max: 64 }),
  pods: fc.integer({ min: 4, max: 110 }),
  price: fc.double({ min: 0.01, max: 5, noNaN: true }),
});
const podSpec = fc.record({
  cpu: fc.constantFrom(100, 250, 500, 1000, 1500),
  mib: fc.constantFrom(100, 256, 512, 1024, 2048, 4096),
  anti: fc.boolean(),
});

describe("the covering LP lower bound", () => {
  it("counts one node per pod of the largest self-selecting hostname anti-affinity group", () => {
    const list = [
      pod({ cpu: 100, mib: 100, anti: true }, 0),
      pod({ cpu: 100, mib: 100, anti: true }, 1),
      pod({ cpu: 100, mib: 100, anti: false }, 2),
    ];
    assert.equal(antiAffinityNodes(list), 2);
  });

  it("is exact: HiGHS's optimum equals brute-force vertex enumeration on small problems", () => {
    fc.assert(
      fc.property(
        fc.array(typeSpec, { minLength: 1, maxLength: 5 }),
        fc.array(podSpec, { minLength: 1, maxLength: 30 }),
        (types, pods) => {
          const problem = coveringProblem([pool(types.map(instanceType))], pods.map(pod));
          const lp = coveringOptimum(problem);
          const exact = bruteForce(problem);
          assert.ok(Math.abs(lp - exact) <= 1e-6 * Math.max(1, exact), `HiGHS ${lp}, vertices ${exact}`);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("is one type's price per unit of the binding resource when one type is cheapest for everything", () => {
    // 10 pods of 1 core / 1 GiB on a 4-core, 8 GiB, $2 type: CPU binds, 2.5 nodes' worth = $5.
    const problem = coveringProblem(
      [pool([instanceType({ vcpu: 4, gib: 8, pods: 110, price: 2 }, 0)])],
      Array.from({ length: 10 }, (_, i) => pod({ cpu: 1000, mib: 1024, anti: false }, i)),
    );
    assert.ok(Math.abs(coveringOptimum(problem) - 5) < 1e-9);
  });

  it("never exceeds the price of the plan simulate() makes for the same pods (random inputs)", () => {
    fc.assert(
      fc.property(
        fc.array(typeSpec, { minLength: 1, maxLength: 6 }),
        fc.array(podSpec, { minLength: 1, maxLength: 60 }),
        (types, pods) => {
          const list = pods.map(pod);
          const snapshot = {
            nodes: [],
            nodePools: [pool([...types, { vcpu: 16, gib: 64, pods: 110, price: 9 }].map(instanceType))],
            daemonSets: [],
          };
          const result = simulate(snapshot, list);
          assert.deepEqual(result.podErrors, []);
          const price = result.newClaims.reduce((s, c) => s + c.launch.pricePerHour, 0);
          const bound = coveringOptimum(coveringProblem(snapshot.nodePools, list));
          assert.ok(bound <= price + 1e-9, `bound ${bound} > plan ${price}`);
        },
      ),
      { numRuns: 150 },
    );
  });
});

/**
 * The lower bound a plan's price is judged against: the optimum of the fractional covering LP
 *
 *   minimise   Σ_j price_j · x_j            over the instance types j the pods may use, each at its
 *                                           cheapest available offering under its NodePool's requirements
 *   subject to Σ_j alloc_j[r] · x_j ≥ Σ_pods request[r]   for r = cpu, memory, pods
 *              Σ_j x_j ≥ N                  N = the largest group of pods with a required hostname
 *                                           anti-affinity against each other (one node per pod)
 *              x ≥ 0.
 *
 * Every plan is an integer point of this polyhedron (each node's allocatable holds its pods, and
 * anti-affine pods each need a node), so the optimum is at most any plan's price. Allocatable is net
 * of DaemonSet overhead, as the solver sees it.
 *
 * Here the problem is data and CPLEX LP text; callers solve it with HiGHS (npm `highs`, a
 * devDependency: only the benchmark and tests need the number). Why a library rather than enumerating
 * vertices by hand: with 4 rows an optimal basis has at most 4 columns, but the real catalog has
 * 1,345 columns, so vertex enumeration means C(1345, 4) ≈ 1.4·10^11 bases, and anything smarter
 * (simplex, Seidel's algorithm on the 4-variable dual) is exactly what HiGHS, a maintained and
 * widely used solver, already does. The tests check HiGHS's optimum against brute-force vertex
 * enumeration on problems small enough for it.
 */
import { PoolTypes } from "./pool-types.ts";
import { ResourceSpace } from "./resource-space.ts";
import { selectorKey, selectorMatches } from "./selector.ts";
import type { DaemonSetView, NodePoolView, SimPod } from "./types.ts";

const GI = 2 ** 30;

export interface CoveringColumn {
  readonly name: string;
  readonly pricePerHour: number;
  readonly vcpu: number;
  readonly memoryGiB: number;
  readonly pods: number;
}

export interface CoveringProblem {
  readonly columns: readonly CoveringColumn[];
  readonly demand: { readonly vcpu: number; readonly memoryGiB: number; readonly pods: number; readonly nodes: number };
}

/** The largest set of pods sharing one required hostname anti-affinity term that selects them all. */
export function antiAffinityNodes(pods: readonly SimPod[]): number {
  const groups = new Map<string, number>();
  for (const p of pods) {
    for (const t of p.antiAffinity) {
      if (t.topologyKey !== "kubernetes.io/hostname" || !selectorMatches(t.selector, p.labels)) continue;
      if (!t.namespaces.includes(p.namespace)) continue; // SimPod terms carry resolved namespaces
      const key = `${selectorKey(t.selector)}|${[...t.namespaces].sort().join(",")}`;
      groups.set(key, (groups.get(key) ?? 0) + 1);
    }
  }
  return Math.max(0, ...groups.values());
}

/** The covering LP of `pods` over the pools' instance types (cheapest price per type over pools). */
export function coveringProblem(
  pools: readonly NodePoolView[],
  pods: readonly SimPod[],
  daemonSets: readonly DaemonSetView[] = [],
): CoveringProblem {
  const space = new ResourceSpace();
  space.register([{ cpu: 0, memory: 0, pods: 0 }]);
  const [cpu, memory, podSlot] = [space.slot("cpu"), space.slot("memory"), space.slot("pods")];
  const columns = new Map<string, CoveringColumn>();
  for (const view of pools) {
    const pool = new PoolTypes(view, space, daemonSets);
    pool.types.forEach((t, i) => {
      const at = i * pool.width;
      const column = {
        name: t.name,
        pricePerHour: pool.prices[i]!,
        vcpu: pool.alloc[at + cpu]! / 1000,
        memoryGiB: pool.alloc[at + memory]! / GI,
        pods: pool.alloc[at + podSlot]!,
      };
      const known = columns.get(t.name);
      if (column.pods > 0 && (known === undefined || column.pricePerHour < known.pricePerHour))
        columns.set(t.name, column);
    });
  }
  const sum = (key: string, scale: number): number => pods.reduce((s, p) => s + (p.requests[key] ?? 0) / scale, 0);
  return {
    columns: [...columns.values()],
    demand: {
      vcpu: sum("cpu", 1000),
      memoryGiB: sum("memory", GI),
      pods: sum("pods", 1),
      nodes: antiAffinityNodes(pods),
    },
  };
}

/** The problem in CPLEX LP format (one term per line; columns x0, x1, … in `columns` order). */
export function toLpFormat(problem: CoveringProblem): string {
  const { columns, demand } = problem;
  const row = (name: string, coef: (c: CoveringColumn) => number, rhs: number): string[] => [
    ` ${name}:`,
    ...columns.map((c, j) => `  + ${coef(c)} x${j}`),
    `  >= ${rhs}`,
  ];
  return [
    "Minimize",
    " price:",
    ...columns.map((c, j) => `  + ${c.pricePerHour} x${j}`),
    "Subject To",
    ...row("vcpu", (c) => c.vcpu, demand.vcpu),
    ...row("memory", (c) => c.memoryGiB, demand.memoryGiB),
    ...row("pods", (c) => c.pods, demand.pods),
    ...row("nodes", () => 1, demand.nodes),
    "End",
    "",
  ].join("\n");
}

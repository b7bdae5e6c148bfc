import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { toInstanceTypes } from "../../../policies/domain/catalog/catalog.ts";
import { cheapestOffering, isExotic, type InstanceType } from "../../../policies/domain/instance-types.ts";
import { Requirements } from "../../../policies/domain/requirements.ts";
import { NODE_SLACK } from "./sizing.ts";
import { simulate } from "./simulate.ts";
import type { NodePoolView, SimPod, SimulationResult, Snapshot } from "./types.ts";

const GI = 2 ** 30;
const catalog = toInstanceTypes(builtinCatalog());
const spotCapable = (t: InstanceType): boolean => t.offerings.some((o) => o.available && o.capacityType === "spot");
const spotTypes = catalog.filter((t) => !isExotic(t) && spotCapable(t));
const byName = new Map(catalog.map((t) => [t.name, t]));

type Requests = Record<string, number>;

function pods(n: number, requests: Requests, labels: Record<string, string> = { app: "inflate" }): SimPod[] {
  return Array.from({ length: n }, (_, i) => ({
    uid: `p-${i}`,
    name: `inflate-${i}`,
    namespace: "default",
    labels,
    requests: { ...requests, pods: 1 },
    nodeSelector: {},
    requiredTerms: [],
    preferredTerms: [],
    tolerations: [],
    spread: [],
    affinity: [],
    antiAffinity: [],
    preferredAffinity: [],
    preferredAntiAffinity: [],
    hostPorts: [],
    creationOrder: i,
  }));
}

function pool(names: readonly string[] | undefined, overrides: Partial<NodePoolView> = {}): NodePoolView {
  const requirements =
    names === undefined
      ? [{ key: "karpenter.k8s.aws/instance-category", operator: "In", values: ["c", "m", "r"] }]
      : [{ key: "node.kubernetes.io/instance-type", operator: "In", values: [...names] }];
  const base = { name: "default", weight: 0, labels: {}, taints: [], startupTaints: [], requirements };
  return { ...base, instanceTypes: catalog, ...overrides };
}

const INFLATE = { cpu: 1000, memory: 1.5 * GI };
const HOSTNAME = "kubernetes.io/hostname";
const price = (r: SimulationResult): number => r.newClaims.reduce((s, c) => s + c.launch.pricePerHour, 0);

/** How many pods of `requests` one node of `type` holds (allocatable, max pods), and its cheapest price. */
function perNode(type: InstanceType, requests: Requests): { k: number; price: number } {
  let k = type.allocatable["pods"] ?? 0;
  for (const [r, v] of Object.entries(requests)) if (v > 0) k = Math.min(k, Math.floor((type.allocatable[r] ?? 0) / v));
  return { k, price: cheapestOffering(type, new Requirements())?.pricePerHour ?? Infinity };
}

/**
 * Brute force over whole nodes for `n` identical pods: the cheapest multiset of nodes of `types` that
 * holds them, with at most `budget` nodes (the fewest that could, n ÷ the most one type holds, plus
 * kerf's slack: max(1, ⌊fewest × NODE_SLACK⌋)); and Karpenter's plan (fill one NodeClaim up to the
 * most any option holds, then launch the cheapest option holding what it got).
 */
interface WholeNodes {
  readonly best: number;
  readonly budget: number;
  readonly karpenter: number;
}

function wholeNodes(types: readonly InstanceType[], requests: Requests, n: number): WholeNodes {
  const options = types.map((t) => perNode(t, requests)).filter((o) => o.k > 0);
  const most = Math.max(...options.map((o) => o.k));
  const fewest = Math.ceil(n / most);
  const budget = fewest + Math.max(1, Math.floor(NODE_SLACK * fewest));
  let previous = new Float64Array(n + 1).fill(Infinity);
  previous[0] = 0;
  let best = Infinity;
  for (let nodes = 1; nodes <= budget; nodes++) {
    const current = new Float64Array(n + 1).fill(Infinity);
    current[0] = 0;
    for (let m = 1; m <= n; m++) {
      for (const o of options) current[m] = Math.min(current[m]!, o.price + previous[Math.max(0, m - o.k)]!);
    }
    best = Math.min(best, current[n]!);
    previous = current;
  }
  let karpenter = 0;
  for (let left = n; left > 0; left -= Math.min(left, most)) {
    const take = Math.min(left, most);
    karpenter += Math.min(...options.filter((o) => o.k >= take).map((o) => o.price));
  }
  return { best, budget, karpenter };
}

const SMALL_SET = [
  "c6g.large",
  "c6gd.2xlarge",
  "c6g.4xlarge",
  "c6g.16xlarge",
  "m6i.4xlarge",
  "m6i.24xlarge",
  "r6g.xlarge",
  "r6g.4xlarge",
  "r7g.12xlarge",
  "r8g.16xlarge",
  "m8gd.48xlarge",
];
const snapshot = (p: NodePoolView): Snapshot => ({ nodes: [], nodePools: [p], daemonSets: [] });
const dollars = (v: number): string => `$${v.toFixed(4)}/h`;

describe("sizing NodeClaims for the pods still queued", () => {
  const shapes: [string, Record<string, number>][] = [
    ["inflate (1 CPU, 1.5Gi)", { cpu: 1000, memory: 1.5 * GI }],
    ["memory-heavy (250m, 8Gi)", { cpu: 250, memory: 8 * GI }],
    ["large (8 CPU, 32Gi)", { cpu: 8000, memory: 32 * GI }],
    ["tiny (100m, 128Mi)", { cpu: 100, memory: 128 * 2 ** 20 }],
  ];
  for (const [shape, requests] of shapes) {
    for (const n of [1, 3, 20, 100, 300]) {
      it(`plans ${n} ${shape} pods at the best whole-node price in the node budget, never above Karpenter's`, () => {
        const types = SMALL_SET.map((name) => byName.get(name)!);
        const result = simulate(snapshot(pool(SMALL_SET)), pods(n, requests));
        assert.deepEqual(result.podErrors, []);
        const { best, budget, karpenter } = wholeNodes(types, requests, n);
        assert.ok(result.newClaims.length <= budget, `${result.newClaims.length} NodeClaims, budget ${budget}`);
        assert.ok(price(result) <= best * 1.02 + 1e-9, `kerf ${dollars(price(result))}, best ${dollars(best)}`);
        assert.ok(price(result) <= karpenter + 1e-9, `kerf ${dollars(price(result))}, Karpenter ${dollars(karpenter)}`);
      });
    }
  }

  it(
    "never plans identical pods dearer than Karpenter's fill-the-largest plan and stays near the best within " +
      "the budget (random shapes and type sets)",
    () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 300 }),
          fc.integer({ min: 1, max: 80 }),
          fc.integer({ min: 1, max: 320 }),
          fc.uniqueArray(fc.integer({ min: 0, max: spotTypes.length - 1 }), { minLength: 3, maxLength: 8 }),
          (n, deciCpu, deciGi, picks) => {
            const types = picks.map((i) => spotTypes[i]!);
            const requests = { cpu: deciCpu * 100, memory: deciGi * 0.1 * GI };
            if (!types.some((t) => perNode(t, requests).k > 0)) return;
            const result = simulate(snapshot(pool(types.map((t) => t.name))), pods(n, requests));
            assert.deepEqual(result.podErrors, []);
            const { best, karpenter } = wholeNodes(types, requests, n);
            const kerf = dollars(price(result));
            assert.ok(price(result) <= karpenter * (1 + 1e-9), `kerf ${kerf} above Karpenter's ${dollars(karpenter)}`);
            assert.ok(price(result) <= best * 1.5, `kerf ${kerf}, best within the budget ${dollars(best)}`);
          },
        ),
        { numRuns: 150, seed: 19 },
      );
    },
  );

  it("plans a hundred inflate pods on the real catalog as two NodeClaims, not one per pod", () => {
    const result = simulate(snapshot(pool(undefined)), pods(100, INFLATE));
    assert.deepEqual(result.podErrors, []);
    assert.equal(result.newClaims.length, 2);
    // One pod per c6g.large spot node cost $2.12/h; Karpenter's one m8id.32xlarge spot, $1.19/h.
    assert.ok(price(result) < 0.75, `$${price(result)}/h`);
  });

  it("never sizes a NodeClaim to a bare-metal type while an ordinary one does (the launch would not buy it)", () => {
    const result = simulate(snapshot(pool(undefined)), pods(300, INFLATE));
    const exotic = result.newClaims.filter((c) => isExotic(byName.get(c.launch.instanceType)!));
    assert.deepEqual(
      exotic.map((c) => c.launch.instanceType),
      [],
    );
  });

  it("keeps one pod per node for a hostname anti-affinity and sizes the rest around it", () => {
    const anti = [{ selector: { matchLabels: { app: "db" } }, namespaces: ["default"], topologyKey: HOSTNAME }];
    const db = pods(3, INFLATE, { app: "db" }).map((p) => ({ ...p, uid: `db-${p.uid}`, antiAffinity: anti }));
    const result = simulate(snapshot(pool(undefined)), [...db, ...pods(60, INFLATE)]);
    assert.deepEqual(result.podErrors, []);
    for (const claim of result.newClaims) assert.ok(claim.pods.filter((p) => p.labels["app"] === "db").length <= 1);
    assert.equal(result.newClaims.length, 3);
  });
});

/** The largest capacity of `key` among a planned NodeClaim's options: what it reserves against limits. */
const largest = (c: SimulationResult["newClaims"][number], key: string): number =>
  Math.max(...c.instanceTypes.map((t) => t.capacity[key] ?? 0));
const reserved = (r: SimulationResult, key: string): number => r.newClaims.reduce((s, c) => s + largest(c, key), 0);

describe("NodePool limits with a burst of pending pods", () => {
  const limits = { cpu: 1000_000, memory: 1000 * GI };
  for (const n of [100, 300]) {
    it(`places all ${n} inflate pods in one batch under limits of 1000 CPU and 1000Gi`, () => {
      const result = simulate(snapshot(pool(undefined, { limits })), pods(n, INFLATE));
      assert.deepEqual(
        result.podErrors.map((e) => e.reason),
        [],
      );
      // What the NodeClaims reserve (the largest capacity among their options) stays within the limits.
      assert.ok(reserved(result, "cpu") <= limits.cpu, `cpu reserved ${reserved(result, "cpu")}`);
      assert.ok(reserved(result, "memory") <= limits.memory, `memory reserved ${reserved(result, "memory") / GI}Gi`);
    });
  }

  it("never reserves more for a NodeClaim than Karpenter would for the same first pod (its largest option)", () => {
    const result = simulate(snapshot(pool(undefined, { limits })), pods(300, INFLATE));
    const cmr = catalog.filter((t) => ["c", "m", "r"].includes(t.labels["karpenter.k8s.aws/instance-category"] ?? ""));
    const within = (t: InstanceType): boolean =>
      (t.capacity["cpu"] ?? 0) <= limits.cpu && (t.capacity["memory"] ?? 0) <= limits.memory;
    const allowed = cmr.filter(within);
    const karpenter = Math.max(...allowed.map((t) => t.capacity["memory"] ?? 0));
    for (const claim of result.newClaims) assert.ok(largest(claim, "memory") <= karpenter);
  });

  it("still stops at the limits: a pool with room for 60 pods places 60 and says why not the rest", () => {
    const small = { cpu: 64_000, memory: 1000 * GI };
    const result = simulate(snapshot(pool(undefined, { limits: small })), pods(100, INFLATE));
    const placed = result.newClaims.reduce((s, c) => s + c.pods.length, 0);
    assert.ok(placed >= 55 && placed <= 64, `${placed} placed`);
    assert.ok(
      result.podErrors.every((e) => e.reason.includes("would exceed its limits")),
      result.podErrors[0]?.reason,
    );
    assert.ok(reserved(result, "cpu") <= small.cpu, `cpu reserved ${reserved(result, "cpu")}`);
  });
});

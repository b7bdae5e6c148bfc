import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { benchNodePool, diversePods, fakeInstanceTypes } from "../../../test/perf/scheduling/generator.ts";
import { simulate } from "./simulate.ts";
import type { NodePoolView, SimPod, SimulationResult, Snapshot } from "./types.ts";

const GI = 2 ** 30;
const ZONES = ["zone-a", "zone-b"];

/**
 * Karpenter's fake catalog in small: type k has k vCPU, 2k GiB and 8k + 8 pods at a price linear in
 * size, in two zones. One shape only, so NodeClaims holding CPU-heavy and memory-heavy pods end full
 * in one resource: the imbalance the pass trades away.
 */
function catalog(): InstanceType[] {
  return Array.from({ length: 8 }, (_, i) => {
    const vcpu = i + 1;
    const name = `t-${vcpu}`;
    const resources = { cpu: vcpu * 1000, memory: 2 * vcpu * GI, pods: 8 * vcpu + 8 };
    const price = 0.05 * vcpu;
    return {
      name,
      capacity: resources,
      allocatable: resources,
      labels: {
        "node.kubernetes.io/instance-type": name,
        size: vcpu > 4 ? "large" : "small",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/os": "linux",
      },
      offerings: ZONES.flatMap((zone) =>
        (["spot", "on-demand"] as const).map((capacityType) => ({
          zone,
          capacityType,
          pricePerHour: price,
          available: true,
        })),
      ),
    };
  });
}

const pool = (types: readonly InstanceType[]): NodePoolView => ({
  name: "default",
  weight: 0,
  labels: {},
  taints: [],
  startupTaints: [],
  requirements: [],
  instanceTypes: types,
});

const podSpec = fc.record({
  // Mostly CPU-heavy or memory-heavy shapes: NodeClaims of one shape end full in one resource.
  shape: fc.constantFrom([1500, 100], [100, 4096], [1000, 256], [250, 2048], [3000, 512], [500, 1024]),
  app: fc.constantFrom("a", "b", "b", "c"),
  kind: fc.constantFrom(
    "plain",
    "plain",
    "plain",
    "plain",
    "anti",
    "zone-spread",
    "host-spread",
    "selector",
    "port",
    "with-a",
    "with-a",
  ),
});

function pod(spec: { shape: readonly number[]; app: string; kind: string }, i: number): SimPod {
  const [cpu, mib] = spec.shape as [number, number];
  const selector = { matchLabels: { app: spec.app } };
  const spread = (topologyKey: string) => [
    { maxSkew: 1, topologyKey, whenUnsatisfiable: "DoNotSchedule" as const, selector },
  ];
  return {
    uid: `p-${i}`,
    name: `p-${i}`,
    namespace: "default",
    labels: { app: spec.app },
    requests: { cpu, memory: mib * 2 ** 20, pods: 1 },
    nodeSelector: spec.kind === "selector" ? { size: "large" } : {},
    requiredTerms: [],
    preferredTerms: [],
    tolerations: [],
    spread:
      spec.kind === "zone-spread"
        ? spread("topology.kubernetes.io/zone")
        : spec.kind === "host-spread"
          ? spread("kubernetes.io/hostname")
          : [],
    // with-a: required to share a node with a pod of app a (which it seeds itself when it is one).
    affinity:
      spec.kind === "with-a"
        ? [{ selector: { matchLabels: { app: "a" } }, namespaces: ["default"], topologyKey: "kubernetes.io/hostname" }]
        : [],
    antiAffinity:
      spec.kind === "anti" ? [{ selector, namespaces: ["default"], topologyKey: "kubernetes.io/hostname" }] : [],
    preferredAffinity: [],
    preferredAntiAffinity: [],
    hostPorts: spec.kind === "port" ? [{ hostIP: "0.0.0.0", port: 8080, protocol: "TCP" }] : [],
    creationOrder: i,
  };
}

const price = (r: SimulationResult): number => r.newClaims.reduce((s, c) => s + c.launch.pricePerHour, 0);
const zoneOf = (reqs: SimulationResult["newClaims"][number]["requirements"]): string =>
  reqs.find((q) => q.key === "topology.kubernetes.io/zone" && q.operator === "In" && q.values?.length === 1)
    ?.values?.[0] ?? "?";

/** Asserts the constraints the generated pods carry on a finished plan (the pass's contract). */
function assertValid(result: SimulationResult, types: readonly InstanceType[]): void {
  const byName = new Map(types.map((t) => [t.name, t]));
  for (const claim of result.newClaims) {
    const type = byName.get(claim.launch.instanceType)!;
    for (const [k, v] of Object.entries(claim.requests))
      assert.ok(v <= (type.allocatable[k] ?? 0), `${type.name} holds ${k} ${v}`);
    const apps = claim.pods.map((p) => p.labels["app"]);
    for (const p of claim.pods) {
      if (p.antiAffinity.length > 0)
        assert.equal(apps.filter((a) => a === p.labels["app"]).length, 1, `anti-affinity of ${p.name}`);
      for (const [k, v] of Object.entries(p.nodeSelector))
        assert.equal(type.labels[k], v, `node selector of ${p.name}`);
      if (p.affinity.some((t) => t.topologyKey === "kubernetes.io/hostname"))
        assert.ok(apps.includes("a"), `pod affinity of ${p.name}`);
    }
    assert.ok(claim.pods.filter((p) => p.hostPorts.length > 0).length <= 1, "one pod per host port");
  }
}

/** Per app, how many pods each zone holds (zone spreads count exactly these). */
function zoneCounts(result: SimulationResult): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of result.newClaims)
    for (const p of c.pods) {
      const key = `${JSON.stringify(p.labels)}@${zoneOf(c.requirements)}`;
      out[key] = (out[key] ?? 0) + 1;
    }
  return out;
}

const shape = (r: SimulationResult): string[] =>
  r.newClaims.map((c) => `${c.launch.instanceType}:${c.pods.map((p) => p.uid).join(",")}`);

describe("the improvement pass", () => {
  it("never raises the price, keeps every constraint and zone count, and is deterministic (random pods)", () => {
    const types = catalog();
    let changed = 0;
    fc.assert(
      fc.property(fc.array(podSpec, { minLength: 1, maxLength: 120 }), (specs) => {
        const pods = specs.map(pod);
        const snapshot: Snapshot = { nodes: [], nodePools: [pool(types)], daemonSets: [] };
        const greedy = simulate(snapshot, pods, { improve: false });
        const improved = simulate(snapshot, pods);
        if (shape(improved).join(";") !== shape(greedy).join(";")) changed++;
        assert.ok(price(improved) <= price(greedy) + 1e-9, `improved ${price(improved)} > greedy ${price(greedy)}`);
        assert.deepEqual(
          improved.podErrors.map((e) => e.pod.uid).sort(),
          greedy.podErrors.map((e) => e.pod.uid).sort(),
        );
        const placed = improved.newClaims.flatMap((c) => c.pods.map((p) => p.uid));
        assert.equal(new Set(placed).size, placed.length);
        assert.equal(placed.length + improved.podErrors.length, pods.length);
        assertValid(improved, types);
        assert.deepEqual(zoneCounts(improved), zoneCounts(greedy));
        assert.deepEqual(shape(simulate(snapshot, pods)), shape(improved));
      }),
      { numRuns: 300 },
    );
    // Not vacuous: the pass changes a few plans of these (pods heavy in one resource). Since NodeClaims are
    // sized for the work left (sizing.ts) the greedy plan has fewer, fuller NodeClaims and less to trade.
    assert.ok(changed >= 3, `the pass changed only ${changed} of 300 plans`);
  });

  it("balances NodeClaims on Karpenter's diverse benchmark: 1,000 pods cost at least 5 % less than the greedy plan", () => {
    // Greedy: $260.3/h, 1.235 × the covering bound; the pass trades CPU-heavy for
    // memory-heavy pods between NodeClaims.
    const types = fakeInstanceTypes(400);
    const snapshot: Snapshot = { nodes: [], nodePools: [benchNodePool(types)], daemonSets: [] };
    const pods = diversePods(1000);
    const [greedy, improved] = [simulate(snapshot, pods, { improve: false }), simulate(snapshot, pods)];
    assert.ok(price(improved) < 0.95 * price(greedy), `${price(improved)} vs ${price(greedy)}`);
    assert.deepEqual(improved.podErrors, []);
    assertValid(improved, types);
    assert.deepEqual(zoneCounts(improved), zoneCounts(greedy));
  });
});

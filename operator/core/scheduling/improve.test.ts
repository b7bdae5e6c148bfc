import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { benchNodePool, diversePods, fakeInstanceTypes } from "../../../test/perf/scheduling/generator.ts";
import { simulate } from "./simulate.ts";
import type { NodePoolView, SimPod, SimulationResult, Snapshot } from "./types.ts";

const GI = 2 ** 30;
const ZONES = ["zone-a", "zone-b"];

/** Two families (CPU-heavy 1:2, memory-heavy 1:8) in sizes 1–16 vCPU, priced per vCPU and GiB, in two zones. */
function catalog(): InstanceType[] {
  return [1, 2, 4, 8, 16].flatMap((vcpu) => [["c", 2], ["r", 8]].map(([family, ratio]) => {
    const name = `${family}-${vcpu}`;
    const gib = vcpu * (ratio as number);
    const resources = { cpu: vcpu * 1000, memory: gib * GI, pods: 8 * vcpu + 8 };
    const price = 0.04 * vcpu + 0.005 * gib;
    return {
      name, capacity: resources, allocatable: resources,
      labels: { "node.kubernetes.io/instance-type": name, family: family as string, "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux" },
      offerings: ZONES.flatMap((zone) => (["spot", "on-demand"] as const).map((capacityType) => ({ zone, capacityType, pricePerHour: price, available: true }))),
    };
  }));
}

const pool = (types: readonly InstanceType[]): NodePoolView => ({ name: "default", weight: 0, labels: {}, taints: [], startupTaints: [], requirements: [], instanceTypes: types });

const podSpec = fc.record({
  cpu: fc.constantFrom(100, 250, 500, 1000, 1500, 3000),
  mib: fc.constantFrom(100, 512, 1024, 4096, 8192),
  app: fc.constantFrom("a", "b", "c"),
  kind: fc.constantFrom("plain", "plain", "anti", "zone-spread", "host-spread", "selector", "port"),
});

function pod(spec: { cpu: number; mib: number; app: string; kind: string }, i: number): SimPod {
  const selector = { matchLabels: { app: spec.app } };
  const spread = (topologyKey: string) => [{ maxSkew: 1, topologyKey, whenUnsatisfiable: "DoNotSchedule" as const, selector }];
  return {
    uid: `p-${i}`, name: `p-${i}`, namespace: "default", labels: { app: spec.app }, requests: { cpu: spec.cpu, memory: spec.mib * 2 ** 20, pods: 1 },
    nodeSelector: spec.kind === "selector" ? { family: "r" } : {}, requiredTerms: [], preferredTerms: [], tolerations: [],
    spread: spec.kind === "zone-spread" ? spread("topology.kubernetes.io/zone") : spec.kind === "host-spread" ? spread("kubernetes.io/hostname") : [],
    affinity: [], antiAffinity: spec.kind === "anti" ? [{ selector, namespaces: ["default"], topologyKey: "kubernetes.io/hostname" }] : [],
    preferredAffinity: [], preferredAntiAffinity: [], hostPorts: spec.kind === "port" ? [{ hostIP: "0.0.0.0", port: 8080, protocol: "TCP" }] : [],
    creationOrder: i,
  };
}

const price = (r: SimulationResult): number => r.newClaims.reduce((s, c) => s + c.launch.pricePerHour, 0);
const zoneOf = (reqs: SimulationResult["newClaims"][number]["requirements"]): string => reqs.find((q) => q.key === "topology.kubernetes.io/zone" && q.operator === "In" && q.values?.length === 1)?.values?.[0] ?? "?";

/** Asserts the constraints the generated pods carry on a finished plan (the pass's contract). */
function assertValid(result: SimulationResult, types: readonly InstanceType[]): void {
  const byName = new Map(types.map((t) => [t.name, t]));
  for (const claim of result.newClaims) {
    const type = byName.get(claim.launch.instanceType)!;
    for (const [k, v] of Object.entries(claim.requests)) assert.ok(v <= (type.allocatable[k] ?? 0), `${type.name} holds ${k} ${v}`);
    const apps = claim.pods.map((p) => p.labels["app"]);
    for (const p of claim.pods) {
      if (p.antiAffinity.length > 0) assert.equal(apps.filter((a) => a === p.labels["app"]).length, 1, `anti-affinity of ${p.name}`);
      for (const [k, v] of Object.entries(p.nodeSelector)) assert.equal(type.labels[k], v, `node selector of ${p.name}`);
    }
    assert.ok(claim.pods.filter((p) => p.hostPorts.length > 0).length <= 1, "one pod per host port");
  }
}

/** Per app, how many pods each zone holds (zone spreads count exactly these). */
function zoneCounts(result: SimulationResult): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of result.newClaims) for (const p of c.pods) {
    const key = `${JSON.stringify(p.labels)}@${zoneOf(c.requirements)}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

const shape = (r: SimulationResult): string[] => r.newClaims.map((c) => `${c.launch.instanceType}:${c.pods.map((p) => p.uid).join(",")}`);

describe("the improvement pass", () => {
  it("never raises the price, keeps every constraint and zone count, and is deterministic (random pods)", () => {
    const types = catalog();
    fc.assert(fc.property(fc.array(podSpec, { minLength: 1, maxLength: 80 }), (specs) => {
      const pods = specs.map(pod);
      const snapshot: Snapshot = { nodes: [], nodePools: [pool(types)], daemonSets: [] };
      const greedy = simulate(snapshot, pods, { improve: false });
      const improved = simulate(snapshot, pods);
      assert.ok(price(improved) <= price(greedy) + 1e-9, `improved ${price(improved)} > greedy ${price(greedy)}`);
      assert.deepEqual(improved.podErrors.map((e) => e.pod.uid).sort(), greedy.podErrors.map((e) => e.pod.uid).sort());
      const placed = improved.newClaims.flatMap((c) => c.pods.map((p) => p.uid));
      assert.equal(new Set(placed).size, placed.length);
      assert.equal(placed.length + improved.podErrors.length, pods.length);
      assertValid(improved, types);
      assert.deepEqual(zoneCounts(improved), zoneCounts(greedy));
      assert.deepEqual(shape(simulate(snapshot, pods)), shape(improved));
    }), { numRuns: 200 });
  });

  it("balances NodeClaims on Karpenter's diverse benchmark: 1,000 pods cost at least 5 % less than the greedy plan", () => {
    // Greedy: $260.3/h, 1.235 × the covering bound; the pass trades CPU-heavy for memory-heavy pods between NodeClaims.
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

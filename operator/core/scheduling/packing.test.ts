import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { InstanceType, Offering } from "../../../policies/domain/instance-types.ts";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { toInstanceTypes } from "../../../policies/domain/catalog/catalog.ts";
import { diversePods, fakeInstanceTypes } from "../../../test/perf/scheduling/generator.ts";
import { simulate } from "./simulate.ts";
import type { NodePoolView, SimPod, SimulateOptions } from "./types.ts";

const GI = 2 ** 30;

/** A test instance type: `vcpu` cores, `gib` GiB and 110 pods allocatable, offered as `kinds` in one zone. */
function type(
  name: string,
  [vcpu, gib]: [number, number],
  price: number,
  kinds: Offering["capacityType"][] = ["spot", "on-demand"],
): InstanceType {
  const resources = { cpu: vcpu * 1000, memory: gib * GI, pods: 110 };
  return {
    name,
    labels: { "node.kubernetes.io/instance-type": name, "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux" },
    capacity: resources,
    allocatable: resources,
    offerings: kinds.map((capacityType) => ({ zone: "zone-a", capacityType, pricePerHour: price, available: true })),
  };
}

function pool(instanceTypes: readonly InstanceType[], overrides: Partial<NodePoolView> = {}): NodePoolView {
  return {
    name: "default",
    weight: 0,
    labels: {},
    taints: [],
    startupTaints: [],
    requirements: [],
    instanceTypes,
    ...overrides,
  };
}

function pods(n: number, cpu: number, memory = 64 * 2 ** 20): SimPod[] {
  return Array.from({ length: n }, (_, i) => ({
    uid: `p-${i}`,
    name: `p-${i}`,
    namespace: "default",
    labels: {},
    requests: { cpu, memory, pods: 1 },
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

function plan(
  types: readonly InstanceType[],
  podList: readonly SimPod[],
  options: SimulateOptions = {},
  overrides: Partial<NodePoolView> = {},
): string[] {
  const result = simulate({ nodes: [], nodePools: [pool(types, overrides)], daemonSets: [] }, podList, options);
  assert.deepEqual(
    result.podErrors.map((e) => e.reason),
    [],
  );
  return result.newClaims.map((c) => `${c.launch.instanceType}:${c.pods.length}`);
}

describe("cost-aware packing", () => {
  it("stops growing a NodeClaim where another NodeClaim is cheaper", () => {
    // First fit grew one NodeClaim to `big` ($10/h) for the third pod; two `small` cost $2/h.
    const types = [type("small", [2, 8], 1), type("big", [4, 16], 10)];
    assert.deepEqual(plan(types, pods(4, 1000)), ["small:2", "small:2"]);
  });

  it("still grows a NodeClaim when growing is the cheaper way", () => {
    // `big` costs less per core than `small`: one NodeClaim growing to it beats two smalls.
    const types = [type("small", [2, 8], 1), type("big", [4, 16], 1.5)];
    assert.deepEqual(plan(types, pods(4, 1000)), ["big:4"]);
  });

  it("keeps growing one NodeClaim on a price list linear in size (equal ratios up to rounding)", () => {
    // Karpenter's fake catalog: type i costs 0.31475·(i+1); price-per-value ratios tie and differ by rounding only.
    assert.deepEqual(plan(fakeInstanceTypes(400), pods(40, 1000, 512 * 2 ** 20)), ["fake-it-39:40"]);
  });

  it("fills the room a NodeClaim already pays for before growing another", () => {
    // Two 1.5-core pods with the same hostPort open two `small` NodeClaims with 0.5 core left each.
    // First fit grew the first to `big` for the second 0.5-core pod ($2.90/h); the room on the other costs nothing.
    const types = [type("small", [2, 8], 1), type("big", [4, 16], 1.9)];
    const port = pods(2, 1500).map((p) => ({ ...p, hostPorts: [{ hostIP: "", port: 8080, protocol: "TCP" }] }));
    const small = pods(2, 500).map((p) => ({
      ...p,
      uid: `q-${p.uid}`,
      name: `q-${p.name}`,
      creationOrder: 10 + (p.creationOrder ?? 0),
    }));
    assert.deepEqual(plan(types, [...port, ...small]), ["small:2", "small:2"]);
  });

  it("refuses growth past maxPriceRatio times what the pods are worth", () => {
    // Ten 0.1-core pods fill `small` (1 core, $1); the eleventh makes `big` ($1.90, 2 cores) cheaper than a second
    // `small`, but `big` is 1.8x what 1.1 cores are worth at the pool's best price per core ($0.95):
    // maxPriceRatio 1.5 refuses it.
    const types = [type("small", [1, 8], 1), type("big", [2, 16], 1.9)];
    assert.deepEqual(plan(types, pods(11, 100)), ["big:11"]);
    assert.deepEqual(plan(types, pods(11, 100), { maxPriceRatio: 1.5 }), ["small:10", "small:1"]);
  });

  it("never widens a NodeClaim past the largest spot-capable size when the pool allows spot", () => {
    // `od` is on-demand only and cheap per core, so growth would be allowed by price; the claim stops at `spot`.
    const types = [type("spot", [1, 8], 1), type("od", [2, 16], 1.5, ["on-demand"])];
    assert.deepEqual(plan(types, pods(2, 1000)), ["spot:1", "spot:1"]);
    const onDemand = [{ key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] }];
    assert.deepEqual(plan(types, pods(2, 1000), {}, { requirements: onDemand }), ["od:2"]);
  });

  it("grows the one NodeClaim consolidation may launch whatever it costs", () => {
    const types = [type("small", [2, 8], 1), type("big", [4, 16], 10)];
    assert.deepEqual(plan(types, pods(4, 1000), { maxNewClaims: 1 }), ["big:4"]);
  });

  it("finds the room a NodeClaim pays for past the first blocks of NodeClaims", () => {
    // 40 anti-affine pods open 40 NodeClaims (blocks of 32 in the solver's scan); only the last, holding
    // 1 of its 2 cores, has room for the 0.9-core pod without a price rise.
    const anti = [
      { selector: { matchLabels: { app: "web" } }, namespaces: ["default"], topologyKey: "kubernetes.io/hostname" },
    ];
    const web = pods(40, 1500).map((p, i) => ({
      ...p,
      labels: { app: "web" },
      antiAffinity: anti,
      requests: { ...p.requests, cpu: i === 39 ? 1000 : 1500 },
    }));
    const last = { ...pods(1, 900)[0]!, uid: "late", name: "late" };
    const result = simulate(
      { nodes: [], nodePools: [pool([type("small", [2, 8], 1), type("big", [4, 16], 2.1)])], daemonSets: [] },
      [...web, last],
    );
    assert.deepEqual(result.podErrors, []);
    assert.equal(result.newClaims.length, 40);
    const home = result.newClaims.find((c) => c.pods.some((p) => p.uid === "late"));
    assert.deepEqual(home?.pods.map((p) => p.requests["cpu"]).sort(), [1000, 900]);
    assert.equal(home?.launch.instanceType, "small");
  });

  it("never leaves a burst of thousands of small pods on only on-demand high-memory types of the real catalog", () => {
    // First fit bought a u7i-12tb.224xlarge ($125.58/h, on-demand only) for 697 of these pods.
    const result = simulate(
      { nodes: [], nodePools: [pool(toInstanceTypes(builtinCatalog()))], daemonSets: [] },
      diversePods(5000),
    );
    assert.equal(result.podErrors.length, 0);
    const spotless = result.newClaims.filter(
      (c) => !c.instanceTypes.some((t) => t.offerings.some((o) => o.available && o.capacityType === "spot")),
    );
    assert.deepEqual(
      spotless.map((c) => `${c.launch.instanceType} (${c.pods.length} pods)`),
      [],
    );
    const priciest = Math.max(...result.newClaims.map((c) => c.launch.pricePerHour));
    assert.ok(priciest < 5, `the most expensive NodeClaim costs $${priciest}/h`);
  });
});

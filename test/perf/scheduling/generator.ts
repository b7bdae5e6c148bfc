/**
 * Karpenter's scheduling benchmark workload, re-created (karpenter-behaviour.md §11.1): 400 fake
 * instance types, one unlimited NodePool, diverse pods in five equal classes, and the
 * preferences variant. Draws come from one seeded PRNG (seed 42); Go's sequence cannot be
 * reproduced, only the distributions.
 */
import type { InstanceType, Offering } from "../../../policies/domain/instance-types.ts";
import type { NodePoolView, SimPod, SpreadConstraint } from "../../../operator/core/scheduling/types.ts";

const GI = 2 ** 30;
const MI = 2 ** 20;

/** mulberry32: small, fast, seedable. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `fake.InstanceTypes(400)`: type i has i+1 vCPU, 2(i+1) GiB, 10(i+1) pods, five equally priced offerings. */
export function fakeInstanceTypes(count = 400): InstanceType[] {
  return Array.from({ length: count }, (_, i) => {
    const cpu = i + 1;
    const memory = 2 * cpu * GI;
    const price = 0.1 * cpu + 0.1 * (memory / 1e9);
    const offer = (zone: string, capacityType: "spot" | "on-demand"): Offering => ({
      zone,
      capacityType,
      pricePerHour: price,
      available: true,
    });
    const large = cpu > 4 && memory > 8 * GI;
    const labels: Record<string, string> = {
      "node.kubernetes.io/instance-type": `fake-it-${i}`,
      "kubernetes.io/arch": "amd64",
      "kubernetes.io/os": "linux",
      size: large ? "large" : "small",
      integer: String(cpu),
      ...(large ? { special: "optional" } : {}),
    };
    const resources = { cpu: cpu * 1000, memory, pods: 10 * cpu };
    return {
      name: `fake-it-${i}`,
      labels,
      capacity: resources,
      allocatable: resources,
      offerings: [
        offer("test-zone-1", "spot"),
        offer("test-zone-2", "spot"),
        offer("test-zone-1", "on-demand"),
        offer("test-zone-2", "on-demand"),
        offer("test-zone-3", "on-demand"),
      ],
    };
  });
}

/** The benchmark NodePool: no requirements, limits that never bind. */
export function benchNodePool(instanceTypes: readonly InstanceType[]): NodePoolView {
  return {
    name: "default",
    weight: 0,
    labels: {},
    taints: [],
    startupTaints: [],
    requirements: [],
    limits: { cpu: 10_000_000 * 1000, memory: 10_000_000 * GI },
    instanceTypes,
  };
}

const CPUS = [100, 250, 500, 1000, 1500];
const MEMS = [100, 256, 512, 1024, 2048, 4096].map((m) => m * MI);
const VALUES = ["a", "b", "c", "d", "e", "f", "g"];

function pick<T>(rand: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rand() * xs.length)]!;
}

function basePod(uid: number, labels: Record<string, string>, requests: { cpu: number; memory: number }): SimPod {
  return {
    uid: `pod-${uid}`,
    name: `pod-${uid}`,
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
    creationOrder: uid,
  };
}

type PodClass = "generic" | "zonal-spread" | "hostname-spread" | "zonal-affinity" | "hostname-anti-affinity";

function spread(key: string, value: string): SpreadConstraint[] {
  return [
    {
      maxSkew: 1,
      topologyKey: key,
      whenUnsatisfiable: "DoNotSchedule",
      selector: { matchLabels: { "my-label": value } },
    },
  ];
}

function makePod(kind: PodClass, uid: number, rand: () => number): SimPod {
  const requests = { cpu: pick(rand, CPUS), memory: pick(rand, MEMS) };
  const v = pick(rand, VALUES);
  switch (kind) {
    case "generic":
      return basePod(uid, { "my-label": v }, requests);
    case "zonal-spread":
      return {
        ...basePod(uid, { "my-label": v }, requests),
        spread: spread("topology.kubernetes.io/zone", pick(rand, VALUES)),
      };
    case "hostname-spread":
      return {
        ...basePod(uid, { "my-label": v }, requests),
        spread: spread("kubernetes.io/hostname", pick(rand, VALUES)),
      };
    case "zonal-affinity":
      return {
        ...basePod(uid, { "my-affininity": v }, requests),
        affinity: [
          {
            selector: { matchLabels: { "my-affininity": v } },
            namespaces: ["default"],
            topologyKey: "topology.kubernetes.io/zone",
          },
        ],
      };
    case "hostname-anti-affinity":
      return {
        ...basePod(uid, { app: "nginx" }, requests),
        antiAffinity: [
          {
            selector: { matchLabels: { app: "nginx" } },
            namespaces: ["default"],
            topologyKey: "kubernetes.io/hostname",
          },
        ],
      };
  }
}

/** `n` identical pods of one Deployment (label `app`), e.g. the EKS workshop's inflate: 1 CPU, 1.5Gi. */
export function homogeneousPods(n: number, requests: { cpu: number; memory: number }, app = "inflate"): SimPod[] {
  return Array.from({ length: n }, (_, i) => basePod(i, { app }, requests));
}

/** `makeDiversePods(n)`: five equal classes of floor(n/5), the remainder generic. */
export function diversePods(n: number, seed = 42): SimPod[] {
  const rand = prng(seed);
  const part = Math.floor(n / 5);
  const classes: PodClass[] = [
    "generic",
    "zonal-spread",
    "hostname-spread",
    "zonal-affinity",
    "hostname-anti-affinity",
  ];
  const pods: SimPod[] = [];
  for (const kind of classes) for (let i = 0; i < part; i++) pods.push(makePod(kind, pods.length, rand));
  while (pods.length < n) pods.push(makePod("generic", pods.length, rand));
  return pods;
}

/** The preferences workload: identical pods preferring zone 1 and (unsatisfiably) zone + hostname anti-affinity. */
export function preferencePods(n = 4000, seed = 42, zone = "test-zone-1"): SimPod[] {
  const rand = prng(seed);
  const requests = { cpu: pick(rand, CPUS), memory: pick(rand, MEMS) };
  const term = (topologyKey: string) => ({
    selector: { matchLabels: { app: "nginx" } },
    namespaces: ["default"],
    topologyKey,
  });
  return Array.from({ length: n }, (_, i) => ({
    ...basePod(i, { app: "nginx" }, requests),
    preferredTerms: [
      { weight: 1, requirements: [{ key: "topology.kubernetes.io/zone", operator: "In", values: [zone] }] },
    ],
    preferredAntiAffinity: [
      { weight: 10, term: term("topology.kubernetes.io/zone") },
      { weight: 1, term: term("kubernetes.io/hostname") },
    ],
  }));
}

/**
 * The table-driven harness of kerf's port of Karpenter's scheduling tests (issue 22 item 10). A case is
 * data: a scenario of Kubernetes documents (NodePools, EC2NodeClass, Nodes, Pods, Deployments,
 * DaemonSets, ...) read by the builder `kerf simulate` uses (scenario.ts buildScenario) on the bundled
 * catalog, and the outcome Karpenter's test expects, stated as plain fields (pods scheduled or not,
 * node count, zones, labels, instance types). Each case cites the Karpenter `It` it comes from; the
 * translation is kerf's own (Karpenter's fake instance types and test-zone-1..3 become real catalog
 * types and us-east-1a..c, so expectations name real types where Karpenter's name fake ones).
 *
 * Conventions: the default NodePool is Karpenter's test NodePool (any capacity type) narrowed to three
 * zones and a few families, so every case runs on a small, fixed part of the catalog and stays fast.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { toInstanceTypes } from "../../../policies/domain/catalog/catalog.ts";
import { parseResourceList } from "../../../policies/domain/quantity.ts";
import type { NodeSelectorRequirement } from "../../../policies/domain/requirements.ts";
import { parseSchedulerConfig } from "../../../operator/core/scheduling/default-spread.ts";
import { buildScenario } from "../../../operator/core/scheduling/scenario.ts";
import { simulate } from "../../../operator/core/scheduling/simulate.ts";
import type { SimPod, SimulateOptions, SimulationResult } from "../../../operator/core/scheduling/types.ts";

export type Doc = Record<string, unknown>;
export type Labels = Record<string, string>;

export const ZONE = "topology.kubernetes.io/zone";
export const HOSTNAME = "kubernetes.io/hostname";
export const CAPACITY_TYPE = "karpenter.sh/capacity-type";
export const ARCH = "kubernetes.io/arch";
export const OS = "kubernetes.io/os";
export const INSTANCE_TYPE = "node.kubernetes.io/instance-type";
export const FAMILY = "karpenter.k8s.aws/instance-family";
export const CPU_LABEL = "karpenter.k8s.aws/instance-cpu";
/** Karpenter's test-zone-1, -2, -3. */
export const ZONES = ["us-east-1a", "us-east-1b", "us-east-1c"] as const;
/** The families the default NodePool offers: amd64 (c5, m5, r5) and arm64 (c6g, m6g). */
export const FAMILIES = ["c5", "m5", "r5", "c6g", "m6g"];

/** The Karpenter test file a case comes from (under sigs.k8s.io/karpenter@v1.15.0 pkg/controllers/provisioning/). */
export type KarpenterFile =
  | "scheduling/suite_test.go"
  | "scheduling/topology_test.go"
  | "scheduling/instance_selection_test.go"
  | "suite_test.go";

export interface Source {
  readonly file: KarpenterFile;
  /** The `It` title, verbatim. */
  readonly it: string;
}

/** Where a pod should end up, by pod name (a Deployment's pods are `<name>-<i>`; a bare name means all of them). */
export interface Expectation {
  /** Pods that must be scheduled (on a new or an existing node); "all" for every pending pod. */
  readonly scheduled?: readonly string[] | "all";
  /** Pods that must not be scheduled; "all" for every pending pod. */
  readonly unschedulable?: readonly string[] | "all";
  /** How many NodeClaims are planned. */
  readonly newNodes?: number;
  /** How many pods go to existing nodes. */
  readonly onExisting?: number;
  /** Pod name → node name: the existing node the pod goes to. */
  readonly onNode?: Readonly<Record<string, string>>;
  /** Groups of pods that share one node (each group its own node). */
  readonly together?: readonly (readonly string[])[];
  /** Pods that each get a node of their own (pairwise apart). */
  readonly apart?: readonly string[];
  /** Pod name → labels the node it lands on carries (value null: the label is absent). */
  readonly nodeLabels?: Readonly<Record<string, Readonly<Record<string, string | null>>>>;
  /** Pod name → label values the node it lands on must not carry. */
  readonly nodeLabelsNot?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Pod name → the instance type the planned NodeClaim launches (its cheapest option). */
  readonly launches?: Readonly<Record<string, string>>;
  /** Every planned NodeClaim's instance-type options all carry these labels. */
  readonly everyOption?: Labels;
  /** Instance types that must (or must not) be among the first planned NodeClaim's options. */
  readonly optionsInclude?: readonly string[];
  readonly optionsExclude?: readonly string[];
  /**
   * Pods per domain of `key`, largest first (Karpenter's ExpectSkew): the pending pods scheduled and the pods
   * already bound to existing nodes, of namespace default, those `select` matches (every pod without it).
   */
  readonly skew?: { readonly key: string; readonly counts: readonly number[]; readonly select?: Labels };
  /** No domain of `key` holds more than `max` of the pods `skew` would count. */
  readonly maxPerDomain?: { readonly key: string; readonly max: number; readonly select?: Labels };
  /** The planned NodeClaims' summed requests of a resource, by pod name: its NodeClaim's requests. */
  readonly claimRequests?: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /**
   * The first NodeClaim launches at the lowest price any catalog type of `families` (default FAMILIES) carrying
   * `labels` offers in `zones` (default ZONES) for `capacityTypes` (default spot and on-demand): computed from the
   * catalog here, independently of the solver.
   */
  readonly cheapestLaunch?: {
    readonly families?: readonly string[];
    readonly labels?: Labels;
    readonly zones?: readonly string[];
    readonly capacityTypes?: readonly string[];
  };
  /** Every option of the first NodeClaim has at least this allocatable (millicores and bytes, as quantities parse). */
  readonly optionsHold?: Readonly<Record<string, string>>;
  /** The first NodeClaim's options span at least this many values of a label (minValues). */
  readonly optionValues?: Readonly<Record<string, number>>;
  /**
   * The first NodeClaim's requirement on each key: In exactly these values (sorted), or "some" for an In with at
   * least one value.
   */
  readonly requirements?: Readonly<Record<string, readonly string[] | "some">>;
  /** A pod's unschedulable reason must match this. */
  readonly reason?: Readonly<Record<string, RegExp>>;
}

export interface ParityCase {
  /** The behaviour, as a sentence. */
  readonly name: string;
  readonly from: Source | readonly Source[];
  readonly scenario: readonly Doc[];
  readonly expect: Expectation;
  readonly options?: SimulateOptions;
  /** The kube-scheduler configuration (`--scheduler-config`) the scenario runs under (default spread constraints). */
  readonly schedulerConfig?: Doc;
  /** Set when kerf's expected outcome deliberately differs from Karpenter's: why (the parity doc shows it). */
  readonly deliberate?: string;
}

// ---------------------------------------------------------------------------------------------------------
// Scenario documents

export interface PoolSpec {
  readonly requirements?: readonly NodeSelectorRequirement[];
  /** Replaces the default requirements entirely (zones and families included). */
  readonly onlyRequirements?: readonly NodeSelectorRequirement[];
  readonly labels?: Labels;
  readonly taints?: readonly Doc[];
  readonly startupTaints?: readonly Doc[];
  readonly limits?: Readonly<Record<string, string | number>>;
  readonly weight?: number;
  readonly nodeClass?: string;
  /** spec.replicas: a static NodePool. */
  readonly replicas?: number;
}

export const req = (key: string, operator: string, ...values: string[]): NodeSelectorRequirement => ({
  key,
  operator,
  values,
});
export const minValues = (r: NodeSelectorRequirement, n: number): NodeSelectorRequirement => ({ ...r, minValues: n });

/** Karpenter's test NodePool: every capacity type; here also three zones and the FAMILIES, plus `spec`. */
export function nodePool(name = "default", spec: PoolSpec = {}): Doc {
  const requirements = spec.onlyRequirements ?? [
    req(CAPACITY_TYPE, "In", "spot", "on-demand"),
    req(ZONE, "In", ...ZONES),
    req(FAMILY, "In", ...FAMILIES),
    ...(spec.requirements ?? []),
  ];
  return {
    apiVersion: "karpenter.sh/v1",
    kind: "NodePool",
    metadata: { name },
    spec: {
      ...(spec.weight === undefined ? {} : { weight: spec.weight }),
      ...(spec.limits === undefined ? {} : { limits: spec.limits }),
      ...(spec.replicas === undefined ? {} : { replicas: spec.replicas }),
      template: {
        metadata: { labels: spec.labels ?? {} },
        spec: {
          nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: spec.nodeClass ?? "default" },
          requirements,
          taints: spec.taints ?? [],
          startupTaints: spec.startupTaints ?? [],
        },
      },
    },
  };
}

export function nodeClass(name = "default", spec: Doc = {}): Doc {
  return { apiVersion: "karpenter.k8s.aws/v1", kind: "EC2NodeClass", metadata: { name }, spec };
}

export interface PodOptions {
  readonly labels?: Labels;
  readonly namespace?: string;
  /** CPU request (default "100m", Karpenter's test pods ask for next to nothing); null: no container requests. */
  readonly cpu?: string | null;
  readonly memory?: string;
  /** Other requests of the (single) container. */
  readonly requests?: Readonly<Record<string, string>>;
  readonly limits?: Readonly<Record<string, string>>;
  readonly nodeSelector?: Labels;
  /** Required node affinity: one term per array. */
  readonly required?: readonly (readonly NodeSelectorRequirement[])[];
  /** Preferred node affinity: [weight, requirements]. */
  readonly preferred?: readonly (readonly [number, readonly NodeSelectorRequirement[]])[];
  readonly tolerations?: readonly Doc[];
  readonly spread?: readonly Doc[];
  readonly podAffinity?: readonly Doc[];
  readonly podAntiAffinity?: readonly Doc[];
  readonly preferredPodAffinity?: readonly Doc[];
  readonly preferredPodAntiAffinity?: readonly Doc[];
  readonly hostPorts?: readonly number[];
  /** Bound to this node (a running pod), else pending. */
  readonly nodeName?: string;
  /** Anything else of the pod spec (init containers, overhead, ...), merged last. */
  readonly spec?: Doc;
  /** More metadata (deletionTimestamp, ownerReferences, ...) and a status (phase). */
  readonly metadata?: Doc;
  readonly status?: Doc;
}

function podSpec(o: PodOptions): Doc {
  const requests: Record<string, string> = { ...(o.requests ?? {}) };
  if (o.cpu !== null) requests["cpu"] ??= o.cpu ?? "100m";
  if (o.memory !== undefined) requests["memory"] = o.memory;
  const container: Doc = {
    name: "app",
    image: "app",
    resources: { ...(Object.keys(requests).length > 0 ? { requests } : {}), ...(o.limits ? { limits: o.limits } : {}) },
    ...(o.hostPorts ? { ports: o.hostPorts.map((p) => ({ containerPort: p, hostPort: p })) } : {}),
  };
  const affinity: Doc = {};
  if (o.required !== undefined || o.preferred !== undefined) {
    affinity["nodeAffinity"] = {
      ...(o.required
        ? {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: o.required.map((t) => ({ matchExpressions: t })),
            },
          }
        : {}),
      ...(o.preferred
        ? {
            preferredDuringSchedulingIgnoredDuringExecution: o.preferred.map(([weight, t]) => ({
              weight,
              preference: { matchExpressions: t },
            })),
          }
        : {}),
    };
  }
  if (o.podAffinity !== undefined || o.preferredPodAffinity !== undefined) {
    affinity["podAffinity"] = {
      ...(o.podAffinity ? { requiredDuringSchedulingIgnoredDuringExecution: o.podAffinity } : {}),
      ...(o.preferredPodAffinity ? { preferredDuringSchedulingIgnoredDuringExecution: o.preferredPodAffinity } : {}),
    };
  }
  if (o.podAntiAffinity !== undefined || o.preferredPodAntiAffinity !== undefined) {
    affinity["podAntiAffinity"] = {
      ...(o.podAntiAffinity ? { requiredDuringSchedulingIgnoredDuringExecution: o.podAntiAffinity } : {}),
      ...(o.preferredPodAntiAffinity
        ? { preferredDuringSchedulingIgnoredDuringExecution: o.preferredPodAntiAffinity }
        : {}),
    };
  }
  return {
    containers: [container],
    ...(o.nodeSelector ? { nodeSelector: o.nodeSelector } : {}),
    ...(Object.keys(affinity).length > 0 ? { affinity } : {}),
    ...(o.tolerations ? { tolerations: o.tolerations } : {}),
    ...(o.spread ? { topologySpreadConstraints: o.spread } : {}),
    ...(o.nodeName ? { nodeName: o.nodeName } : {}),
    ...(o.spec ?? {}),
  };
}

export function pod(name: string, o: PodOptions = {}): Doc {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: o.namespace ?? "default", labels: o.labels ?? {}, ...(o.metadata ?? {}) },
    spec: podSpec(o),
    ...(o.status === undefined ? {} : { status: o.status }),
  };
}

/** `replicas` identical pending pods named `<name>-<i>`. */
export function deployment(name: string, replicas: number, o: PodOptions = {}): Doc {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: o.namespace ?? "default" },
    spec: { replicas, template: { metadata: { labels: o.labels ?? {} }, spec: podSpec(o) } },
  };
}

export function daemonSet(name: string, o: PodOptions = {}): Doc {
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name, namespace: "default" },
    spec: { template: { metadata: { labels: o.labels ?? {} }, spec: podSpec({ cpu: null, ...o }) } },
  };
}

export interface NodeOptions {
  readonly instanceType?: string;
  readonly labels?: Labels;
  readonly taints?: readonly Doc[];
  readonly allocatable?: Readonly<Record<string, string>>;
  /** Being deleted (a deletionTimestamp and Karpenter's termination finalizer). */
  readonly deleting?: boolean;
}

/** When a deleted object was marked for deletion (any fixed time: nothing reads the clock). */
export const DELETED = { deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: ["karpenter.sh/termination"] };

/** An existing Node; with an instance type its labels and allocatable come from the catalog. */
export function node(name: string, o: NodeOptions = {}): Doc {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      labels: { [HOSTNAME]: name, ...(o.instanceType ? { [INSTANCE_TYPE]: o.instanceType } : {}), ...(o.labels ?? {}) },
      ...(o.deleting === true ? DELETED : {}),
    },
    spec: { taints: o.taints ?? [] },
    status: o.allocatable ? { allocatable: o.allocatable } : {},
  };
}

export interface NodeClaimOptions {
  readonly nodePool?: string;
  /** The Node it launched (absent: in flight, no Node yet). */
  readonly nodeName?: string;
  /** Its Initialized condition (default True once it has a Node, absent while in flight). */
  readonly initialized?: boolean;
  readonly requirements?: readonly NodeSelectorRequirement[];
  readonly startupTaints?: readonly Doc[];
  readonly deleting?: boolean;
}

/** A NodeClaim of `nodePool` (default "default"). */
export function nodeClaim(name: string, o: NodeClaimOptions = {}): Doc {
  const conditions =
    o.initialized === undefined ? [] : [{ type: "Initialized", status: o.initialized ? "True" : "False" }];
  return {
    apiVersion: "karpenter.sh/v1",
    kind: "NodeClaim",
    metadata: {
      name,
      labels: { "karpenter.sh/nodepool": o.nodePool ?? "default" },
      ...(o.deleting === true ? DELETED : {}),
    },
    spec: { requirements: o.requirements ?? [], ...(o.startupTaints ? { startupTaints: o.startupTaints } : {}) },
    status: { ...(o.nodeName ? { nodeName: o.nodeName } : {}), conditions },
  };
}

export const taint = (key: string, value: string | undefined, effect = "NoSchedule"): Doc =>
  value === undefined ? { key, effect } : { key, value, effect };
export const toleration = (key: string, operator: "Equal" | "Exists", value?: string, effect?: string): Doc => ({
  key,
  operator,
  ...(value === undefined ? {} : { value }),
  ...(effect === undefined ? {} : { effect }),
});

/** A topology spread constraint selecting `select` (no labelSelector when null). */
export function spread(key: string, select: Labels | null, extra: Doc = {}): Doc {
  return {
    maxSkew: 1,
    topologyKey: key,
    whenUnsatisfiable: "DoNotSchedule",
    ...(select === null ? {} : { labelSelector: { matchLabels: select } }),
    ...extra,
  };
}

/** A pod (anti-)affinity term selecting `select` over `key`. */
export const term = (key: string, select: Labels, extra: Doc = {}): Doc => ({
  topologyKey: key,
  labelSelector: { matchLabels: select },
  ...extra,
});
export const weighted = (weight: number, t: Doc): Doc => ({ weight, podAffinityTerm: t });

// ---------------------------------------------------------------------------------------------------------
// Running and checking

const catalog = builtinCatalog();
const catalogTypes = toInstanceTypes(catalog);

/** The lowest offering price of the catalog types an expectation's `cheapestLaunch` describes. */
function cheapestPrice(want: NonNullable<Expectation["cheapestLaunch"]>): number {
  const families = new Set(want.families ?? FAMILIES);
  const zones = new Set(want.zones ?? ZONES);
  const capacityTypes = new Set(want.capacityTypes ?? ["spot", "on-demand"]);
  const prices = catalogTypes
    .filter(
      (t) =>
        families.has(t.labels[FAMILY] ?? "") && Object.entries(want.labels ?? {}).every(([k, v]) => t.labels[k] === v),
    )
    .flatMap((t) => t.offerings)
    .filter((o) => o.available && zones.has(o.zone) && capacityTypes.has(o.capacityType))
    .map((o) => o.pricePerHour);
  return Math.min(...prices);
}

interface Outcome {
  readonly result: SimulationResult;
  readonly pending: readonly SimPod[];
  /** Pod name → "claim-<i>" or the node name; absent when unscheduled. */
  readonly place: ReadonlyMap<string, string>;
  /** Place → the labels a node there carries. */
  readonly labels: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** Pods already bound to existing nodes, with their node. */
  readonly bound: readonly { readonly pod: SimPod; readonly at: string }[];
}

function run(c: ParityCase): Outcome {
  const config = c.schedulerConfig === undefined ? undefined : parseSchedulerConfig(c.schedulerConfig);
  const scenario = buildScenario(c.scenario, catalog, new Date(0), { schedulerConfig: config });
  const result = simulate(scenario.snapshot, scenario.pending, c.options);
  const place = new Map<string, string>();
  const labels = new Map<string, Readonly<Record<string, string>>>();
  result.newClaims.forEach((claim, i) => {
    const at = `claim-${i}`;
    for (const p of claim.pods) place.set(p.name, at);
    const type = claim.instanceTypes.find((t) => t.name === claim.launch.instanceType);
    const fixed = Object.fromEntries(
      claim.requirements
        .filter((r) => r.operator === "In" && r.values?.length === 1)
        .map((r) => [r.key, r.values![0]!]),
    );
    labels.set(at, {
      ...(type?.labels ?? {}),
      [ZONE]: claim.launch.zone,
      [CAPACITY_TYPE]: claim.launch.capacityType,
      ...fixed,
      [INSTANCE_TYPE]: claim.launch.instanceType,
    });
  });
  for (const p of result.existingPlacements) place.set(p.pod.name, p.node);
  for (const n of scenario.snapshot.nodes) labels.set(n.name, n.labels);
  const bound = scenario.snapshot.nodes.flatMap((n) => n.pods.map((pod) => ({ pod, at: n.name })));
  return { result, pending: scenario.pending, place, labels, bound };
}

/** The pending pods a name stands for: the pod itself, or a Deployment's `<name>-<i>`. */
function named(o: Outcome, name: string): SimPod[] {
  const exact = o.pending.filter((p) => p.name === name);
  const found = exact.length > 0 ? exact : o.pending.filter((p) => new RegExp(`^${name}-\\d+$`).test(p.name));
  assert.ok(found.length > 0, `no pending pod named ${name}`);
  return found;
}

const names = (o: Outcome, list: readonly string[] | "all"): SimPod[] =>
  list === "all" ? [...o.pending] : list.flatMap((n) => named(o, n));

function placeOf(o: Outcome, name: string): string {
  const pods = named(o, name);
  const at = o.place.get(pods[0]!.name);
  assert.ok(at !== undefined, `${name} is not scheduled: ${reasonOf(o, pods[0]!)}`);
  return at;
}

const reasonOf = (o: Outcome, p: SimPod): string => o.result.podErrors.find((e) => e.pod === p)?.reason ?? "?";

/** The domain of `key` a place is in: its hostname for hostnames, else the node's (or NodeClaim's) label. */
const domainOf = (o: Outcome, at: string, key: string): string =>
  key === HOSTNAME ? at : (o.labels.get(at)?.[key] ?? "?");

/** Selected pods (scheduled pending ones and bound ones) per domain of `key`, largest first. */
function perDomain(o: Outcome, key: string, select: Labels | undefined): number[] {
  const selected = (p: SimPod): boolean =>
    p.namespace === "default" && Object.entries(select ?? {}).every(([k, v]) => p.labels[k] === v);
  const per = new Map<string, number>();
  const add = (at: string): void => {
    const domain = domainOf(o, at, key);
    if (domain !== "?") per.set(domain, (per.get(domain) ?? 0) + 1);
  };
  for (const p of o.pending.filter(selected)) {
    const at = o.place.get(p.name);
    if (at !== undefined) add(at);
  }
  for (const b of o.bound.filter((x) => selected(x.pod))) add(b.at);
  return [...per.values()].sort((a, b) => b - a);
}

function check(o: Outcome, e: Expectation): void {
  const r = o.result;
  for (const p of e.scheduled === undefined ? [] : names(o, e.scheduled)) {
    assert.ok(o.place.has(p.name), `${p.name} should be scheduled, but: ${reasonOf(o, p)}`);
  }
  for (const p of e.unschedulable === undefined ? [] : names(o, e.unschedulable)) {
    assert.ok(!o.place.has(p.name), `${p.name} should not be scheduled, but went to ${o.place.get(p.name)}`);
  }
  if (e.newNodes !== undefined) assert.equal(r.newClaims.length, e.newNodes, "planned NodeClaims");
  if (e.onExisting !== undefined) assert.equal(r.existingPlacements.length, e.onExisting, "pods on existing nodes");
  for (const [name, at] of Object.entries(e.onNode ?? {})) assert.equal(placeOf(o, name), at, `${name}'s node`);
  for (const group of e.together ?? []) {
    const at = new Set(group.flatMap((n) => named(o, n)).map((p) => placeOf(o, p.name)));
    assert.equal(at.size, 1, `${group.join(", ")} should share one node`);
  }
  if (e.apart !== undefined) {
    const pods = e.apart.flatMap((n) => named(o, n));
    assert.equal(new Set(pods.map((p) => placeOf(o, p.name))).size, pods.length, `${e.apart.join(", ")} apart`);
  }
  for (const [name, want] of Object.entries(e.nodeLabels ?? {})) {
    const labels = o.labels.get(placeOf(o, name)) ?? {};
    for (const [k, v] of Object.entries(want)) assert.equal(labels[k] ?? null, v, `${name}'s node label ${k}`);
  }
  for (const [name, not] of Object.entries(e.nodeLabelsNot ?? {})) {
    const labels = o.labels.get(placeOf(o, name)) ?? {};
    for (const [k, v] of Object.entries(not)) assert.notEqual(labels[k], v, `${name}'s node label ${k}`);
  }
  for (const [name, type] of Object.entries(e.launches ?? {})) {
    assert.equal(o.labels.get(placeOf(o, name))?.[INSTANCE_TYPE], type, `${name}'s instance type`);
  }
  if (e.everyOption !== undefined) {
    assert.ok(r.newClaims.length > 0, "no NodeClaim planned");
    for (const t of r.newClaims.flatMap((c) => c.instanceTypes)) {
      for (const [k, v] of Object.entries(e.everyOption)) assert.equal(t.labels[k], v, `${t.name} label ${k}`);
    }
  }
  const options = new Set(r.newClaims[0]?.instanceTypes.map((t) => t.name) ?? []);
  for (const t of e.optionsInclude ?? []) assert.ok(options.has(t), `${t} should be an option`);
  for (const t of e.optionsExclude ?? []) assert.ok(!options.has(t), `${t} should not be an option`);
  if (e.skew !== undefined) {
    assert.deepEqual(perDomain(o, e.skew.key, e.skew.select), e.skew.counts, `pods per ${e.skew.key}`);
  }
  if (e.maxPerDomain !== undefined) {
    const most = perDomain(o, e.maxPerDomain.key, e.maxPerDomain.select)[0] ?? 0;
    assert.ok(most <= e.maxPerDomain.max, `${most} pods in one ${e.maxPerDomain.key} domain`);
  }
  for (const [name, want] of Object.entries(e.claimRequests ?? {})) {
    const claim = r.newClaims[Number(placeOf(o, name).replace("claim-", ""))];
    assert.ok(claim !== undefined, `${name} is not on a new NodeClaim`);
    for (const [k, v] of Object.entries(want)) assert.equal(claim.requests[k], v, `${name}'s NodeClaim requests ${k}`);
  }
  if (e.cheapestLaunch !== undefined) {
    assert.equal(r.newClaims[0]?.launch.pricePerHour, cheapestPrice(e.cheapestLaunch), "the cheapest launch price");
  }
  const first = r.newClaims[0]?.instanceTypes ?? [];
  for (const [k, v] of Object.entries(parseResourceList(e.optionsHold ?? {}))) {
    assert.ok(first.length > 0, "no NodeClaim planned");
    for (const t of first) assert.ok((t.allocatable[k] ?? 0) >= v, `${t.name} holds ${k}`);
  }
  for (const [k, n] of Object.entries(e.optionValues ?? {})) {
    assert.ok(new Set(first.map((t) => t.labels[k])).size >= n, `options span ${n} values of ${k}`);
  }
  for (const [key, want] of Object.entries(e.requirements ?? {})) {
    const got = r.newClaims[0]?.requirements.find((q) => q.key === key);
    assert.equal(got?.operator, "In", `the NodeClaim's requirement on ${key}`);
    if (want === "some") assert.ok((got?.values?.length ?? 0) > 0, `the NodeClaim's ${key} values`);
    else assert.deepEqual([...(got?.values ?? [])].sort(), [...want].sort(), `the NodeClaim's ${key} values`);
  }
  for (const [name, pattern] of Object.entries(e.reason ?? {})) {
    for (const p of named(o, name)) assert.match(reasonOf(o, p), pattern, `${p.name}'s reason`);
  }
}

const cite = (s: Source): string => `${s.file.replace(/^scheduling\//, "")} '${s.it}'`;

/** Registers one `it` per case, named by its behaviour and the Karpenter test(s) it comes from. */
export function runCases(title: string, cases: readonly ParityCase[]): void {
  describe(title, () => {
    for (const c of cases) {
      const from = (Array.isArray(c.from) ? c.from : [c.from]) as readonly Source[];
      const differs = c.deliberate === undefined ? "" : ", a deliberate difference";
      it(`${c.name} (Karpenter ${from.map(cite).join("; ")}${differs})`, () => check(run(c), c.expect));
    }
  });
}

/** Every source a case file cites (the parity document's consistency test reads them). */
export function sourcesOf(cases: readonly ParityCase[]): Source[] {
  return cases.flatMap((c) => (Array.isArray(c.from) ? [...(c.from as readonly Source[])] : [c.from as Source]));
}

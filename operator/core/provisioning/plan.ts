/**
 * The provisioning plan (pure): pending pods + the cluster + instance types per NodePool → the
 * NodeClaims to create, the pods nominated to places that exist or are in flight, and the pods
 * that fit nowhere with the simulation's reason. NodePools take part when Ready, not being deleted
 * and dynamic (no `replicas`); their limits are what their NodeClaims leave (limits.ts). The
 * provisioner (controllers/provisioning) builds the input from its caches and applies the result.
 */
import { cheapestOffering, labelsMismatch, type InstanceType } from "../../../policies/domain/instance-types.ts";
import { WELL_KNOWN_LABELS } from "../../../policies/domain/labels.ts";
import { parseResourceList } from "../../../policies/domain/quantity.ts";
import { Requirements, type NodeSelectorRequirement } from "../../../policies/domain/requirements.ts";
import type { Taint } from "../../../policies/domain/taints.ts";
import type { Pod } from "../lifecycle/objects.ts";
import { isTrue, timeMs, type Condition } from "../lifecycle/objects.ts";
import { simPodFromPod } from "../scheduling/pod-spec.ts";
import { simulate } from "../scheduling/simulate.ts";
import type { LaunchChoice, NodePoolView, SimPod, SimulateOptions } from "../scheduling/types.ts";
import { daemonSetViews, existingPlaces, namespaceLabelMap } from "./cluster-view.ts";
import type { ClusterView, NodePoolObject } from "./cluster-view.ts";
import { remainingLimits } from "./limits.ts";
import { nodeClaimManifest, templateOf, type NodeClaimManifest } from "./nodeclaim-template.ts";

export type { ClusterView, DaemonSetObject, NodePoolObject } from "./cluster-view.ts";
export type { NodeClaimManifest } from "./nodeclaim-template.ts";

export interface PlanInput {
  readonly cluster: ClusterView;
  /** Provisionable pods (behaviour §1.1). */
  readonly pending: readonly Pod[];
  /** Instance types per NodePool name (its EC2NodeClass's, ICE-cached offerings unavailable); a pool missing here takes no part. */
  readonly instanceTypes: ReadonlyMap<string, readonly InstanceType[]>;
  readonly options?: SimulateOptions;
}

/** One NodeClaim to create and the pods it is for. */
export interface PlannedClaim {
  readonly manifest: NodeClaimManifest;
  readonly nodePool: string;
  readonly pods: readonly Pod[];
  readonly launch: LaunchChoice;
}

export interface ProvisioningPlan {
  readonly claims: readonly PlannedClaim[];
  /** Pods that fit a Node or an in-flight NodeClaim; target is "node/<name>" or "nodeclaim/<name>". */
  readonly nominations: readonly { readonly pod: Pod; readonly target: string }[];
  readonly podErrors: readonly { readonly pod: Pod; readonly reason: string }[];
  /** Taking-part NodePools whose requirements leave no instance type with an available offering. */
  readonly incompatiblePools: readonly NodePoolObject[];
}

type Obj = Readonly<Record<string, unknown>>;
const list = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);

/** Whether the pool may launch now (Karpenter: Ready, not deleting, not static). */
export function takesPart(pool: NodePoolObject): boolean {
  const ready = isTrue(list<Condition>(pool.status?.["conditions"]), "Ready");
  return ready && pool.metadata?.deletionTimestamp === undefined && pool.spec?.["replicas"] === undefined;
}

function poolView(pool: NodePoolObject, types: readonly InstanceType[], input: Pick<PlanInput, "cluster">, byName: ReadonlyMap<string, InstanceType>): NodePoolView {
  const name = pool.metadata?.name ?? "";
  const { meta, spec } = templateOf(pool);
  const limits = pool.spec?.["limits"] === undefined ? undefined : parseResourceList(pool.spec["limits"] as Obj);
  const remaining = remainingLimits(name, limits, input.cluster.nodeClaims, byName);
  return {
    name, weight: Number(pool.spec?.["weight"] ?? 0),
    labels: Object.fromEntries(Object.entries((meta["labels"] ?? {}) as Obj).map(([k, v]) => [k, String(v)])),
    taints: list<Taint>(spec["taints"]), startupTaints: list<Taint>(spec["startupTaints"]),
    requirements: list<NodeSelectorRequirement>(spec["requirements"]),
    ...(remaining === undefined ? {} : { limits: remaining }),
    instanceTypes: types,
  };
}

/** Whether any of the pool's types meets its requirements with an available offering. */
function hasCompatibleType(view: NodePoolView): boolean {
  const carried = new Set(view.instanceTypes.flatMap((t) => Object.keys(t.labels)));
  const all = Requirements.fromSelectors(view.requirements);
  const filter = new Requirements([...all].filter((r) => carried.has(r.key) || WELL_KNOWN_LABELS.has(r.key)));
  return view.instanceTypes.some((t) => labelsMismatch(t, filter) === undefined && cheapestOffering(t, all) !== undefined);
}

/** SimPods for the pods, oldest first; a pod whose requests cannot be read becomes an error. */
export function simPods(pods: readonly Pod[]): { sims: Map<SimPod, Pod>; errors: { pod: Pod; reason: string }[] } {
  const ordered = [...pods].sort((a, b) => (timeMs(a.metadata?.creationTimestamp) ?? 0) - (timeMs(b.metadata?.creationTimestamp) ?? 0));
  const sims = new Map<SimPod, Pod>();
  const errors: { pod: Pod; reason: string }[] = [];
  ordered.forEach((pod, i) => {
    try {
      sims.set(simPodFromPod(pod, i), pod);
    } catch (error) {
      errors.push({ pod, reason: `reading the pod's requests: ${error instanceof Error ? error.message : String(error)}` });
    }
  });
  return { sims, errors };
}

export function uniqueByUid(pods: readonly Pod[]): Pod[] {
  const seen = new Set<string>();
  return pods.filter((p) => {
    const uid = p.metadata?.uid ?? `${p.metadata?.namespace ?? ""}/${p.metadata?.name ?? ""}`;
    if (seen.has(uid)) return false;
    seen.add(uid);
    return true;
  });
}

/** Every instance type of every pool, by name (first wins: the catalog is one). */
export function typesByName(instanceTypes: ReadonlyMap<string, readonly InstanceType[]>): Map<string, InstanceType> {
  const byName = new Map<string, InstanceType>();
  for (const types of instanceTypes.values()) for (const t of types) if (!byName.has(t.name)) byName.set(t.name, t);
  return byName;
}

/** The simulation's view of the pools that take part: weight, template, requirements, remaining limits, types. */
export function takingPartPools(input: Pick<PlanInput, "cluster" | "instanceTypes">, byName: ReadonlyMap<string, InstanceType>): { pools: NodePoolObject[]; views: NodePoolView[] } {
  const pools = input.cluster.nodePools.filter((p) => takesPart(p) && input.instanceTypes.has(p.metadata?.name ?? ""));
  return { pools, views: pools.map((p) => poolView(p, input.instanceTypes.get(p.metadata?.name ?? "") ?? [], input, byName)) };
}

/** Computes what to create, whom to nominate and who cannot be placed. */
export function planProvisioning(input: PlanInput): ProvisioningPlan {
  const byName = typesByName(input.instanceTypes);
  const { pools, views } = takingPartPools(input, byName);
  const places = existingPlaces(input.cluster, byName);
  const { sims, errors } = simPods(uniqueByUid([...input.pending, ...places.reschedulable]));
  const snapshot = {
    nodes: places.targets.map((t) => t.node), nodePools: views, daemonSets: daemonSetViews(input.cluster.daemonSets),
    namespaces: namespaceLabelMap(input.cluster.namespaces),
  };
  const result = simulate(snapshot, [...sims.keys()], input.options ?? {});
  const refs = new Map(places.targets.map((t) => [t.node.name, t.ref]));
  const poolByName = new Map(pools.map((p) => [p.metadata?.name ?? "", p]));
  const pendingUids = new Set(input.pending.map((p) => p.metadata?.uid));
  const podOf = (s: SimPod): Pod => sims.get(s) as Pod;
  return {
    claims: result.newClaims.map((c) => ({ manifest: nodeClaimManifest(poolByName.get(c.nodePool) ?? {}, c), nodePool: c.nodePool, pods: c.pods.map(podOf), launch: c.launch })),
    nominations: result.existingPlacements.filter((p) => pendingUids.has(podOf(p.pod).metadata?.uid)).map((p) => ({ pod: podOf(p.pod), target: refs.get(p.node) ?? `node/${p.node}` })),
    podErrors: [...errors, ...result.podErrors.map((e) => ({ pod: podOf(e.pod), reason: e.reason }))],
    incompatiblePools: pools.filter((_, i) => !hasCompatibleType(views[i]!)),
  };
}

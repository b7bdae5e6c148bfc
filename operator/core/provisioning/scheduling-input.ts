/**
 * The one path from plain cluster objects to the scheduling simulation's input (pure). Provisioning
 * (plan.ts), disruption (disruption/plan.ts, its scheduling view for drift and consolidation) and
 * `kerf simulate` (scheduling/scenario.ts turns a scenario's YAML into these same objects first) all
 * build their Snapshot and the pods to place here, so a what-if answers what the operator does:
 *
 * - NodePools take part when Ready, not being deleted and dynamic (no `replicas`), with the instance
 *   types their EC2NodeClass yields (its AMI family decides `kubernetes.io/os`) and what their
 *   NodeClaims leave of their limits; a pool off at `now` under its kerf.dev/off-schedule (kerf
 *   extension, domain/off-schedule.ts) launches nothing: it is listed apart, in `off`;
 * - Nodes are places with their active pods (terminal and terminating pods count for nothing, in
 *   resources as in spread and affinity); the startup and ephemeral taints of a Node whose NodeClaim
 *   is not initialized yet are left out; a cordoned Node takes no pod;
 * - Nodes (or their NodeClaims) being deleted are no places, and their pods are placed again;
 * - NodeClaims without a Node yet (in flight) are places, sized by their launched allocatable or their
 *   smallest option;
 * - pods with Dynamic Resource Allocation requirements are not placed (dra.ts, Karpenter's
 *   `--ignore-dra-requests` default), nor counted in a DaemonSet's overhead;
 * - pods without topology spread constraints get the configured defaults (default-spread.ts);
 * - pending pods below the expendable-pods priority cutoff go to existing places only (expendable.ts).
 */
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { poolOffState, type OffState } from "../../../policies/domain/off-schedule.ts";
import { parseResourceList } from "../../../policies/domain/quantity.ts";
import type { NodeSelectorRequirement } from "../../../policies/domain/requirements.ts";
import type { Taint } from "../../../policies/domain/taints.ts";
import type { Pod } from "../lifecycle/objects.ts";
import { isTrue, timeMs, type Condition } from "../lifecycle/objects.ts";
import { DefaultSpread, type SchedulerConfig } from "../scheduling/default-spread.ts";
import { simPodFromPod } from "../scheduling/pod-spec.ts";
import type { NodePoolView, SimPod, Snapshot } from "../scheduling/types.ts";
import {
  daemonSetViews,
  existingPlaces,
  namespaceLabelMap,
  viewVolumes,
  type ClusterView,
  type NodePoolObject,
  type Target,
} from "./cluster-view.ts";
import { noLaunchReason } from "./expendable.ts";
import { ownedByDaemonSetOrNode } from "./intake.ts";
import { remainingLimits } from "./limits.ts";
import { templateOf } from "./nodeclaim-template.ts";

/** The plain objects a scheduling decision reads. */
export interface SchedulingSource {
  readonly cluster: ClusterView;
  /** The pods waiting for a place (the provisioner's provisionable pods). */
  readonly pending: readonly Pod[];
  /** Instance types per NodePool name (from its EC2NodeClass); a pool missing here takes no part. */
  readonly instanceTypes: ReadonlyMap<string, readonly InstanceType[]>;
  /**
   * kube-scheduler's default topology spread constraints (default-spread.ts), given to every pod without
   * its own: the pods to place and the pods on existing nodes (a consolidation moves those with theirs).
   */
  readonly defaultSpread?: DefaultSpread | undefined;
  /** The operator's --scheduler-config: a DefaultSpread over the view's Services and controllers if none given. */
  readonly schedulerConfig?: SchedulerConfig | undefined;
  /** How existing places are read (existingPlaces: disruption keeps cordoned nodes, closed by their taint). */
  readonly places?: { readonly keepCordoned?: boolean } | undefined;
  /**
   * Now (ms): when do-not-disrupt durations on the pods of deleting nodes end (absent: all in force), and
   * whether a pool's kerf.dev/off-schedule window is open (absent: every pool is on).
   */
  readonly now?: number | undefined;
  /** --expendable-pods-priority-cutoff: pending pods below it launch no node (expendable.ts); absent: off. */
  readonly expendablePodsPriorityCutoff?: number | undefined;
}

/** A pool that would take part but is off under its kerf.dev/off-schedule, with its view (for "why not"). */
export interface OffPool {
  readonly pool: NodePoolObject;
  readonly view: NodePoolView;
  readonly state: OffState;
}

/** The simulation's input and how to map its answer back to the objects. */
export interface SchedulingInput {
  readonly snapshot: Snapshot;
  /** The pods to place (pending, then the pods of deleting nodes; one per uid), oldest first, with their Pod. */
  readonly pods: ReadonlyMap<SimPod, Pod>;
  /** Pods that cannot be simulated (their requests cannot be read). */
  readonly errors: readonly { readonly pod: Pod; readonly reason: string }[];
  /** The NodePools taking part, in the order of `snapshot.nodePools`. */
  readonly pools: readonly NodePoolObject[];
  /** Pools that would take part but are off now (kerf.dev/off-schedule). */
  readonly off: readonly OffPool[];
  /** The existing places (Nodes, in-flight NodeClaims), in the order of `snapshot.nodes`. */
  readonly targets: readonly Target[];
  /** Pods of Nodes and NodeClaims being deleted. */
  readonly reschedulable: readonly Pod[];
  /** Every instance type of every pool, by name. */
  readonly typesByName: ReadonlyMap<string, InstanceType>;
}

type Obj = Readonly<Record<string, unknown>>;
const list = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);

/** Whether the pool may launch now (Karpenter: Ready, not deleting, not static). */
export function takesPart(pool: NodePoolObject): boolean {
  const ready = isTrue(list<Condition>(pool.status?.["conditions"]), "Ready");
  return ready && pool.metadata?.deletionTimestamp === undefined && pool.spec?.["replicas"] === undefined;
}

function poolView(
  pool: NodePoolObject,
  types: readonly InstanceType[],
  cluster: ClusterView,
  byName: ReadonlyMap<string, InstanceType>,
): NodePoolView {
  const name = pool.metadata?.name ?? "";
  const { meta, spec } = templateOf(pool);
  const limits = pool.spec?.["limits"] === undefined ? undefined : parseResourceList(pool.spec["limits"] as Obj);
  const remaining = remainingLimits(name, limits, cluster.nodeClaims, byName);
  return {
    name,
    weight: Number(pool.spec?.["weight"] ?? 0),
    labels: Object.fromEntries(Object.entries((meta["labels"] ?? {}) as Obj).map(([k, v]) => [k, String(v)])),
    taints: list<Taint>(spec["taints"]),
    startupTaints: list<Taint>(spec["startupTaints"]),
    requirements: list<NodeSelectorRequirement>(spec["requirements"]),
    ...(remaining === undefined ? {} : { limits: remaining }),
    instanceTypes: types,
  };
}

/**
 * SimPods for the pods, oldest first; a pod whose requests cannot be read becomes an error. `noLaunch` says why
 * a pod may not launch a node (SimPod.noLaunch), if so.
 */
export function simPods(
  pods: readonly Pod[],
  noLaunch: (pod: Pod) => string | undefined = () => undefined,
): { sims: Map<SimPod, Pod>; errors: { pod: Pod; reason: string }[] } {
  const created = (p: Pod): number => timeMs(p.metadata?.creationTimestamp) ?? 0;
  const ordered = [...pods].sort((a, b) => created(a) - created(b));
  const sims = new Map<SimPod, Pod>();
  const errors: { pod: Pod; reason: string }[] = [];
  ordered.forEach((pod, i) => {
    try {
      const sim = simPodFromPod(pod, i);
      const reason = noLaunch(pod);
      sims.set(reason === undefined ? sim : { ...sim, noLaunch: reason }, pod);
    } catch (error) {
      const cause = error instanceof Error ? error.message : String(error);
      errors.push({ pod, reason: `reading the pod's requests: ${cause}` });
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

/** The pool's kerf.dev/off-schedule state at `now` when it is off (undefined: on, no annotation, or no time given). */
export function offAt(pool: NodePoolObject, now: number | undefined): OffState | undefined {
  if (now === undefined) return undefined;
  const state = poolOffState(pool.metadata?.annotations, new Date(now));
  return state?.off === true ? state : undefined;
}

/**
 * The simulation's view of the pools that take part: weight, template, requirements, remaining limits, types;
 * and apart, the pools that would take part but are off at `now`.
 */
export function takingPartPools(
  input: Omit<SchedulingSource, "pending">,
  byName: ReadonlyMap<string, InstanceType>,
): { pools: NodePoolObject[]; views: NodePoolView[]; off: OffPool[] } {
  const eligible = input.cluster.nodePools.filter(
    (p) => takesPart(p) && input.instanceTypes.has(p.metadata?.name ?? ""),
  );
  const typesOf = (p: NodePoolObject): readonly InstanceType[] => input.instanceTypes.get(p.metadata?.name ?? "") ?? [];
  const view = (p: NodePoolObject): NodePoolView => poolView(p, typesOf(p), input.cluster, byName);
  const pools: NodePoolObject[] = [];
  const off: OffPool[] = [];
  for (const p of eligible) {
    const state = offAt(p, input.now);
    if (state === undefined) pools.push(p);
    else off.push({ pool: p, view: view(p), state });
  }
  return { pools, views: pools.map(view), off };
}

/** Builds the Snapshot and the pods to place from the cluster's objects. */
/** The source's DefaultSpread: given, or built from --scheduler-config and the view's selector sources. */
function defaultSpreadOf(source: SchedulingSource): DefaultSpread | undefined {
  if (source.defaultSpread !== undefined || source.schedulerConfig === undefined) return source.defaultSpread;
  const { services, replicaSets, statefulSets, replicationControllers } = source.cluster;
  return new DefaultSpread(source.schedulerConfig, { services, replicaSets, statefulSets, replicationControllers });
}

export function schedulingInput(given: SchedulingSource): SchedulingInput {
  const spread = defaultSpreadOf(given);
  const source =
    spread?.active === true
      ? {
          ...given,
          cluster: { ...given.cluster, pods: given.cluster.pods.map((p) => spread.apply(p)) },
          pending: given.pending.map((p) => spread.apply(p)),
        }
      : given;
  const byName = typesByName(source.instanceTypes);
  const { pools, views, off } = takingPartPools(source, byName);
  const places = existingPlaces(source.cluster, byName, { ...source.places, now: source.now });
  const pending = source.pending.filter((p) => !ownedByDaemonSetOrNode(p));
  const cutoff = source.expendablePodsPriorityCutoff;
  // Only pending pods are expendable: a deleting node's pods (reschedulable) are placed as any other.
  const waiting = new Set<Pod>(pending);
  const noLaunch = (pod: Pod): string | undefined => (waiting.has(pod) ? noLaunchReason(pod, cutoff) : undefined);
  const { sims, errors } = simPods(uniqueByUid([...pending, ...places.reschedulable]), noLaunch);
  const snapshot: Snapshot = {
    nodes: places.targets.map((t) => t.node),
    nodePools: views,
    daemonSets: daemonSetViews(source.cluster.daemonSets, source.cluster.pods),
    namespaces: namespaceLabelMap(source.cluster.namespaces),
    volumes: viewVolumes(source.cluster),
  };
  const { targets, reschedulable } = places;
  return { snapshot, pods: sims, errors, pools, off, targets, reschedulable, typesByName: byName };
}

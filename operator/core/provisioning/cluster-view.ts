/**
 * The cluster as the provisioning plan reads it (plain objects from the informer caches), and the
 * places pods can already go: Nodes, and in-flight NodeClaims (created, not yet a registered Node)
 * sized by their launched allocatable or, before launch, by the smallest of their instance-type
 * options. Counting in-flight claims as capacity is what keeps a pending pod from getting a
 * second NodeClaim while its first one boots (Karpenter's in-flight state nodes).
 */
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { Label } from "../../../policies/domain/labels.ts";
import { parseResourceList, type ResourceList } from "../../../policies/domain/quantity.ts";
import { Requirements, type NodeSelectorRequirement } from "../../../policies/domain/requirements.ts";
import { untoleratedTaint, type Taint } from "../../../policies/domain/taints.ts";
import type { Meta, Node, NodeClaim, PdbLike, Pod } from "../lifecycle/objects.ts";
import { isTrue, timeMs } from "../lifecycle/objects.ts";
import { currentlyReschedulable, PdbIndex } from "../disruption/pod-blockers.ts";
import { simPodFromPod, simPodFromSpec } from "../scheduling/pod-spec.ts";
import { nodeSelectorRequirements } from "../scheduling/pool-types.ts";
import { volumeIndexOf } from "../scheduling/volume-objects.ts";
import type { DaemonSetView, ExistingNode, SimPod, Snapshot } from "../scheduling/types.ts";

/** A NodePool as raw custom-object JSON. */
export interface NodePoolObject {
  readonly metadata?: Meta | undefined;
  readonly spec?: Readonly<Record<string, unknown>> | undefined;
  readonly status?: Readonly<Record<string, unknown>> | undefined;
}

/** A DaemonSet, as much as the plan reads (its pod template). */
export interface DaemonSetObject {
  readonly metadata?: Meta | undefined;
  readonly spec?:
    { readonly template?: { readonly metadata?: unknown; readonly spec?: unknown } | undefined } | undefined;
}

/** The informer caches at one instant. */
export interface ClusterView {
  readonly pods: readonly Pod[];
  readonly nodes: readonly Node[];
  readonly nodeClaims: readonly NodeClaim[];
  readonly nodePools: readonly NodePoolObject[];
  readonly daemonSets: readonly DaemonSetObject[];
  /** PodDisruptionBudgets (disruption eligibility); absent where only provisioning reads the view. */
  readonly pdbs?: readonly PdbLike[] | undefined;
  /** EC2NodeClasses as raw objects (drift, disruption previews). */
  readonly nodeClasses?: readonly NodePoolObject[] | undefined;
  /**
   * What default topology spread selectors are deduced from (default-spread.ts): Services, ReplicaSets,
   * StatefulSets, ReplicationControllers; watched only with a --scheduler-config, absent otherwise.
   */
  readonly services?: readonly object[] | undefined;
  readonly replicaSets?: readonly object[] | undefined;
  readonly statefulSets?: readonly object[] | undefined;
  readonly replicationControllers?: readonly object[] | undefined;
  /** Namespaces (their labels, for pod-affinity namespaceSelector); absent: only their names are known. */
  readonly namespaces?: readonly { readonly metadata?: Meta | undefined }[] | undefined;
  /**
   * PersistentVolumeClaims, PersistentVolumes, StorageClasses and CSINodes as plain objects (zonal
   * volumes, attachment limits: scheduling/volumes.ts); all absent: volumes are not modelled.
   */
  readonly persistentVolumeClaims?: readonly unknown[] | undefined;
  readonly persistentVolumes?: readonly unknown[] | undefined;
  readonly storageClasses?: readonly unknown[] | undefined;
  readonly csiNodes?: readonly unknown[] | undefined;
}

/** The volume objects of the view as the simulation reads them (Snapshot.volumes); undefined when the view has none. */
export function viewVolumes(view: ClusterView): Snapshot["volumes"] {
  const objects = {
    claims: view.persistentVolumeClaims,
    volumes: view.persistentVolumes,
    classes: view.storageClasses,
    csiNodes: view.csiNodes,
  };
  return Object.values(objects).every((x) => x === undefined) ? undefined : volumeIndexOf(objects);
}

/** The namespace labels the simulation reads (Snapshot.namespaces), by namespace name. */
export function namespaceLabelMap(namespaces: ClusterView["namespaces"]): Snapshot["namespaces"] {
  if (namespaces === undefined) return undefined;
  return new Map(namespaces.map((n) => [n.metadata?.name ?? "", { ...(n.metadata?.labels ?? {}) }]));
}

/** Taints a booting node carries that pods will not have to tolerate (Karpenter's known ephemeral taints). */
const EPHEMERAL_TAINTS = new Set([
  "node.kubernetes.io/not-ready",
  "node.kubernetes.io/unreachable",
  "node.cloudprovider.kubernetes.io/uninitialized",
  "karpenter.sh/unregistered",
]);

/** A place in the simulation and what to call it in a Nominated event. */
export interface Target {
  readonly node: ExistingNode;
  readonly ref: string;
}

/** Existing places plus the pods that must move because their node is being deleted. */
export interface Places {
  readonly targets: readonly Target[];
  readonly reschedulable: readonly Pod[];
}

const deleting = (o: { readonly metadata?: Meta | undefined }): boolean => o.metadata?.deletionTimestamp !== undefined;
const active = (pod: Pod): boolean =>
  pod.status?.phase !== "Succeeded" && pod.status?.phase !== "Failed" && !deleting(pod);

type Spec = Readonly<Record<string, unknown>>;
const specOf = (v: unknown): Spec => (typeof v === "object" && v !== null ? (v as Spec) : {});

const daemonOwner = (pod: Pod): { readonly name: string; readonly uid?: string | undefined } | undefined =>
  (pod.metadata?.ownerReferences ?? []).find((o) => o.kind === "DaemonSet" && o.controller === true);

/** The newest pod each DaemonSet controls, by `namespace/name` (its uid checked where both carry one). */
function newestDaemonPods(daemonSets: readonly DaemonSetObject[], pods: readonly Pod[]): Map<string, Pod> {
  const uids = new Map(
    daemonSets.map((d) => [`${d.metadata?.namespace ?? "default"}/${d.metadata?.name ?? ""}`, d.metadata?.uid]),
  );
  const controlled = (pod: Pod): string | undefined => {
    const ref = daemonOwner(pod);
    if (ref === undefined) return undefined;
    const key = `${pod.metadata?.namespace ?? "default"}/${ref.name}`;
    const uid = uids.get(key);
    return uids.has(key) && (uid === undefined || ref.uid === undefined || ref.uid === uid) ? key : undefined;
  };
  const created = (p: Pod): number => timeMs(p.metadata?.creationTimestamp) ?? 0;
  const out = new Map<string, Pod>();
  for (const pod of pods) {
    const key = controlled(pod);
    if (key === undefined) continue;
    const seen = out.get(key);
    if (seen === undefined || created(pod) > created(seen)) out.set(key, pod);
  }
  return out;
}

/**
 * The pod spec a DaemonSet's overhead is sized from (Karpenter's getDaemonSetPods): its newest live pod
 * when there is one (admission, e.g. a LimitRange, may have changed its requests), else its template.
 * A live pod's required node affinity is the template's: the DaemonSet controller pins each pod to its
 * node by name, which says nothing about where new nodes may run it.
 */
function daemonPodSpec(ds: DaemonSetObject, live: Pod | undefined): { metadata: unknown; spec: unknown } {
  const template = ds.spec?.template;
  if (live === undefined) return { metadata: template?.metadata, spec: template?.spec };
  const { nodeName: _bound, ...spec } = specOf(live.spec);
  const affinity = specOf(spec["affinity"]);
  const templateRequired = specOf(specOf(specOf(template?.spec)["affinity"])["nodeAffinity"])[REQUIRED];
  const nodeAffinity = { ...specOf(affinity["nodeAffinity"]) };
  if (templateRequired === undefined) delete nodeAffinity[REQUIRED];
  else nodeAffinity[REQUIRED] = templateRequired;
  return { metadata: live.metadata, spec: { ...spec, affinity: { ...affinity, nodeAffinity } } };
}
const REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution";

/**
 * The DaemonSets as the simulation sees them, each sized from its newest live pod or its template
 * (daemonPodSpec). One whose pods have DRA requirements is left out: its pods reserve nothing on new
 * nodes (Karpenter's shouldSkipDaemonPod under --ignore-dra-requests).
 */
export function daemonSetViews(daemonSets: readonly DaemonSetObject[], pods: readonly Pod[] = []): DaemonSetView[] {
  const live = newestDaemonPods(daemonSets, pods);
  return daemonSets.flatMap((ds) => {
    const name = ds.metadata?.name ?? "";
    const namespace = ds.metadata?.namespace ?? "default";
    const { metadata, spec } = daemonPodSpec(ds, live.get(`${namespace}/${name}`));
    const pod = simPodFromSpec(metadata, spec, {
      name: `${name}-daemon`,
      namespace,
      uid: `daemonset/${namespace}/${name}`,
    });
    return pod.dynamicResources === true ? [] : [{ name, pod }];
  });
}

/** The instance-type names a NodeClaim may still launch as (its node.kubernetes.io/instance-type In values). */
export function claimOptions(claim: NodeClaim, types: ReadonlyMap<string, InstanceType>): InstanceType[] {
  const reqs = (claim.spec?.requirements ?? []) as readonly NodeSelectorRequirement[];
  const names = reqs.find((r) => r.key === Label.instanceType && r.operator === "In")?.values ?? [];
  return names.map((n) => types.get(n)).filter((t): t is InstanceType => t !== undefined);
}

/** Per resource, the smallest value among `lists` (a resource some list lacks counts as 0). */
function smallest(lists: readonly ResourceList[]): ResourceList {
  if (lists.length === 0) return {};
  const keys = new Set(lists.flatMap((l) => Object.keys(l)));
  return Object.fromEntries([...keys].map((k) => [k, Math.min(...lists.map((l) => l[k] ?? 0))]));
}

/** Labels an in-flight claim's node will have: its own, single-valued requirements, the hostname. */
function claimLabels(claim: NodeClaim, name: string): Record<string, string> {
  const labels: Record<string, string> = { ...(claim.metadata?.labels ?? {}) };
  for (const r of (claim.spec?.requirements ?? []) as readonly NodeSelectorRequirement[]) {
    if (r.operator === "In" && r.values?.length === 1 && r.values[0] !== undefined) labels[r.key] = r.values[0];
  }
  labels[Label.hostname] = name;
  return labels;
}

/** DaemonSet pods that will land on a claim's node (they reserve room before the node exists). */
function daemonPodsFor(claim: NodeClaim, daemonSets: readonly DaemonSetView[]): SimPod[] {
  const reqs = Requirements.fromSelectors((claim.spec?.requirements ?? []) as readonly NodeSelectorRequirement[]);
  const taints = (claim.spec?.taints ?? []) as readonly Taint[];
  return daemonSets
    .map((d) => d.pod)
    .filter(
      (pod) =>
        untoleratedTaint(taints, pod.tolerations) === undefined &&
        (pod.requiredTerms.length === 0 ? [[]] : pod.requiredTerms).some(
          (term) => reqs.compatible(nodeSelectorRequirements(pod, term)) === undefined,
        ),
    );
}

function inFlight(
  claim: NodeClaim,
  types: ReadonlyMap<string, InstanceType>,
  daemonSets: readonly DaemonSetView[],
): Target {
  const name = claim.metadata?.name ?? "";
  const launched = claim.status?.allocatable;
  const allocatable =
    launched === undefined
      ? smallest(claimOptions(claim, types).map((t) => t.allocatable))
      : parseResourceList(launched);
  const node: ExistingNode = {
    name,
    labels: claimLabels(claim, name),
    taints: (claim.spec?.taints ?? []) as readonly Taint[],
    allocatable,
    pods: daemonPodsFor(claim, daemonSets),
    initialized: false,
  };
  return { node, ref: `nodeclaim/${name}` };
}

const nameOf = (o: { readonly metadata?: Meta | undefined }): string => o.metadata?.name ?? "";
const nodeProvider = (node: Node): string => node.spec?.providerID ?? "";
const claimProvider = (claim: NodeClaim): string => claim.status?.providerID ?? "";

interface NodeInput {
  readonly node: Node;
  readonly claim: NodeClaim | undefined;
  readonly pods: readonly Pod[];
}

/** Until the NodeClaim is initialized its startup and ephemeral taints are about to go away. */
function lastingTaints(node: Node, claim: NodeClaim | undefined, initialized: boolean): readonly Taint[] {
  const taints = (node.spec?.taints ?? []) as readonly Taint[];
  if (initialized) return taints;
  const startup = new Set((claim?.spec?.startupTaints ?? []).map((t) => t.key));
  return taints.filter((t) => !EPHEMERAL_TAINTS.has(t.key) && !startup.has(t.key));
}

function fromNode({ node, claim, pods }: NodeInput): Target {
  const name = nameOf(node);
  const initialized = claim === undefined || isTrue(claim.status?.conditions, "Initialized");
  const allocatable = parseResourceList(node.status?.allocatable ?? node.status?.capacity);
  const simPods = pods.filter(active).map((p) => simPodFromPod(p));
  return {
    node: {
      name,
      labels: { ...(node.metadata?.labels ?? {}) },
      taints: lastingTaints(node, claim, initialized),
      allocatable,
      pods: simPods,
      initialized,
    },
    ref: `node/${name}`,
  };
}

function podsByNode(pods: readonly Pod[]): Map<string, Pod[]> {
  const out = new Map<string, Pod[]>();
  for (const pod of pods) {
    const n = pod.spec?.nodeName ?? "";
    if (n === "") continue;
    const on = out.get(n);
    if (on === undefined) out.set(n, [pod]);
    else on.push(pod);
  }
  return out;
}

/** Every place pods can go, and the pods on NodeClaims or Nodes being deleted (to re-place them early). */
/**
 * The taint the node lifecycle controller puts on a cordoned Node (spec.unschedulable); a view that
 * keeps cordoned nodes gives it to them so that only pods tolerating it could go there.
 */
export const UNSCHEDULABLE_TAINT: Taint = { key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" };

/** A cordoned Node as a place: its pods and room as they are, closed to pods not tolerating the cordon. */
function cordoned(target: Target): Target {
  const taints = target.node.taints;
  if (taints.some((t) => t.key === UNSCHEDULABLE_TAINT.key && t.effect === UNSCHEDULABLE_TAINT.effect)) return target;
  return { ...target, node: { ...target.node, taints: [...taints, UNSCHEDULABLE_TAINT] } };
}

/** A Node as a place; a cordoned one closed (see cordoned). */
function placeOf(input: NodeInput): Target {
  const target = fromNode(input);
  return input.node.spec?.unschedulable === true ? cordoned(target) : target;
}

/** How existing places are read. */
export interface PlaceOptions {
  /**
   * Cordoned Nodes stay as places closed by the unschedulable taint (disruption: their pods are in the
   * snapshot, to be moved, and they count for topology), rather than left out.
   */
  readonly keepCordoned?: boolean | undefined;
  /**
   * The time (ms) do-not-disrupt durations are read at, for the pods of deleting nodes; absent: every
   * do-not-disrupt in force (a what-if with no clock keeps such a pod where it is).
   */
  readonly now?: number | undefined;
}

/** Karpenter's IsCurrentlyReschedulable over the view's PDBs at `now` (absent: every do-not-disrupt in force). */
function reschedulableNow(view: ClusterView, now: number | undefined): (pod: Pod) => boolean {
  const pdbs = new PdbIndex(view.pdbs ?? []);
  return (pod) => currentlyReschedulable(pod, pdbs, now ?? 0);
}

/**
 * The Nodes and in-flight NodeClaims pods can go to, and the pods of deleting ones that need a new
 * place now (Karpenter's GetCurrentlyReschedulablePods: active or terminating-StatefulSet pods, not
 * DaemonSet or mirror pods, no do-not-disrupt in force, eviction not fully blocked by PDBs).
 */
export function existingPlaces(
  view: ClusterView,
  types: ReadonlyMap<string, InstanceType>,
  options: PlaceOptions = {},
): Places {
  const movesNow = reschedulableNow(view, options.now);
  const daemonSets = daemonSetViews(view.daemonSets, view.pods);
  const bound = podsByNode(view.pods);
  const claimByProvider = new Map(
    view.nodeClaims.filter((c) => claimProvider(c) !== "").map((c) => [claimProvider(c), c]),
  );
  const targets: Target[] = [];
  const reschedulable: Pod[] = [];
  const keep = (node: Node): boolean => node.spec?.unschedulable !== true || options.keepCordoned === true;
  for (const node of view.nodes) {
    const claim = claimByProvider.get(nodeProvider(node));
    const pods = bound.get(nameOf(node)) ?? [];
    if (deleting(node) || (claim !== undefined && deleting(claim))) reschedulable.push(...pods.filter(movesNow));
    else if (keep(node)) targets.push(placeOf({ node, claim, pods }));
  }
  const nodeProviders = new Set(view.nodes.map(nodeProvider).filter((p) => p !== ""));
  for (const claim of view.nodeClaims) {
    if (!deleting(claim) && !nodeProviders.has(claimProvider(claim))) targets.push(inFlight(claim, types, daemonSets));
  }
  return { targets, reschedulable };
}

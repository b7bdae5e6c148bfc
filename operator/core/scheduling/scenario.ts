/**
 * Turns the plain Kubernetes objects of a simulation scenario (NodePool, EC2NodeClass, Pod,
 * Deployment, DaemonSet, Node, NodeClaim, PodDisruptionBudget, Namespace, RuntimeClass, and the volume
 * objects PersistentVolumeClaim, PersistentVolume, StorageClass, CSINode: volume-objects.ts) into the
 * objects the operator's caches hold (a ClusterView, the pending Pods, instance types per NodePool)
 * and then, through the operator's own path (provisioning/scheduling-input.ts), into a Snapshot and
 * the pods to place (pure). So a scenario is read as the operator reads the cluster: the EC2NodeClass
 * AMI family decides `kubernetes.io/os` (a Windows class offers Windows nodes), NodeClaims without a
 * Node are in flight and take pods, a Node whose NodeClaim is not initialized has its startup and
 * ephemeral taints ignored, a deleting Node takes nothing and its pods are placed again, a NodePool
 * that states Ready=False or is being deleted launches nothing, terminal and terminating pods count
 * for nothing (spread, affinity, resources) and a terminating pending pod is not placed.
 *
 * What a scenario leaves unsaid is filled in as a healthy cluster has it: a NodePool without
 * conditions is Ready; a Node of a scenario NodePool (label karpenter.sh/nodepool) gets the NodeClaim
 * the scenario gives for it (matched by status.nodeName, status.providerID or name) or one made up,
 * whose conditions default to Initialized=True and Consolidatable=True (False when the pool's
 * consolidateAfter is Never); a PodDisruptionBudget without a status allows what its minAvailable or
 * maxUnavailable leave of the pods it selects. A Node that names a catalog instance type
 * (`node.kubernetes.io/instance-type`) gets that type's labels and allocatable where it does not set
 * them, and `karpenter.sh/capacity-type: on-demand` unless it says otherwise, as the nodes Karpenter
 * launches carry them. Pods and pod templates go through RuntimeClass admission first
 * (runtime-class.ts: overhead, nodeSelector, tolerations), as the apiserver puts every pod through it.
 * Errors name the object and carry its document index so the CLI can point at file and line.
 */
import { toInstanceTypes, type Catalog } from "../../../policies/domain/catalog/catalog.ts";
import { withReservedOfferings } from "../capacity-reservations/offerings.ts";
import type { CapacityReservationStatus } from "../capacity-reservations/reservations.ts";
import type { KubeletConfig } from "../../../policies/domain/allocatable.ts";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { Label } from "../../../policies/domain/labels.ts";
import { formatResource, parseResourceList } from "../../../policies/domain/quantity.ts";
import { Requirements, type NodeSelectorRequirement } from "../../../policies/domain/requirements.ts";
import { ebsEphemeralStorageBytes, type StorageSource } from "../../../policies/domain/ephemeral-storage.ts";
import { amiFamilyOf, type EC2NodeClassSpec } from "../launch-template/node-class.ts";
import { applyOverlays, evaluateOverlays, type NodeOverlayObject, type OverlayVerdict } from "../overlay/apply.ts";
import type { Node, NodeClaim, PdbLike, Pod } from "../lifecycle/objects.ts";
import type { ClusterView, DaemonSetObject, NodePoolObject } from "../provisioning/cluster-view.ts";
import { schedulingInput, type SchedulingInput } from "../provisioning/scheduling-input.ts";
import { checkVolumeObject, templateClaims, VOLUME_KINDS, volumeView, withClaimTemplates } from "./volume-objects.ts";
import { optsOutOfKarpenter, type SchedulingPod } from "../provisioning/intake.ts";
import type { SchedulerConfig } from "./default-spread.ts";
import { simPodFromPod, simPodFromSpec } from "./pod-spec.ts";
import { admitRuntimeClass, runtimeClassesOf, type RuntimeClasses } from "./runtime-class.ts";
import { selectorMatches } from "./selector.ts";
import type { LabelSelector, PlannedNodeClaim, SimPod, Snapshot } from "./types.ts";
import { staticLaunches } from "../nodepool/static.ts";

export type Obj = Readonly<Record<string, unknown>>;

/** A scenario object that cannot be used; `document` is its 0-based index in the input. */
export class ScenarioError extends Error {
  readonly document: number;
  constructor(document: number, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ScenarioError";
    this.document = document;
  }
}

/** The scenario's objects as written, Nodes completed from the catalog and Pods given a uid (the what-if reads them). */
export interface ScenarioObjects {
  readonly nodePools: readonly Obj[];
  readonly nodes: readonly Obj[];
  readonly nodeClaims: readonly Obj[];
  /** Pods bound to a node (`spec.nodeName`), with `metadata.uid` (default namespace/name, as the simulation names them). */
  readonly pods: readonly Obj[];
  /** DaemonSets, their pod templates admitted as their RuntimeClass has them. */
  readonly daemonSets: readonly Obj[];
  readonly pdbs: readonly Obj[];
  /** Namespaces as written (their labels: pod-affinity namespaceSelector). */
  readonly namespaces: readonly Obj[];
  /** Instance types per NodePool name (from its EC2NodeClass: kubelet, root volume, AMI family). */
  readonly instanceTypes: ReadonlyMap<string, readonly InstanceType[]>;
  /**
   * Unbound Pods and Deployment/StatefulSet replicas waiting for a node (not terminating, not done, not opted
   * out): the operator's pending pods, whose room the disruption what-if does not offer to a candidate's pods.
   */
  readonly pending?: readonly Obj[] | undefined;
  /** What default topology spread selectors are deduced from (a Deployment's ReplicaSet made up for it). */
  readonly selectorSources?: {
    readonly services: readonly Obj[]; readonly replicaSets: readonly Obj[];
    readonly statefulSets: readonly Obj[]; readonly replicationControllers: readonly Obj[];
  } | undefined;
  /** PersistentVolumeClaims, PersistentVolumes, StorageClasses and CSINodes as written (volume-objects.ts). */
  readonly volumes?: readonly Obj[] | undefined;
}

export interface Scenario {
  readonly snapshot: Snapshot;
  /** The pods to place: unbound Pods and Deployment replicas waiting for a node, then the pods of deleting Nodes. */
  readonly pending: SimPod[];
  readonly objects: ScenarioObjects;
  /** The cluster as the operator's caches would hold it (the scheduling input was built from it). */
  readonly cluster: ClusterView;
  /** The scenario's NodeOverlays' verdicts (a conflicting one is applied nowhere, as in the operator). */
  readonly overlays: readonly OverlayVerdict[];
  /** The scheduling input itself (its `off`: pools off at `now` under kerf.dev/off-schedule). */
  readonly input: SchedulingInput;
  /**
   * The NodeClaims static NodePools (spec.replicas) would launch now. They take no pending pod here: the
   * operator's provisioner gives a NodeClaim that has not launched no room (it has no instance-type options),
   * and kube-scheduler binds pods to its Node once it registers.
   */
  readonly staticClaims: readonly PlannedNodeClaim[];
}

const o = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(o) : []);
const labelsOf = (v: unknown): Record<string, string> => Object.fromEntries(Object.entries(o(v)).map(([k, x]) => [k, String(x)]));
const nameOf = (doc: Obj): string => String(o(doc["metadata"])["name"] ?? "");
const docLabels = (doc: Obj): Record<string, string> => labelsOf(o(doc["metadata"])["labels"]);

interface NodeClassView {
  readonly kubelet: KubeletConfig;
  readonly ephemeralStorageBytes: number;
  readonly amiFamily: string;
  readonly instanceStorePolicy?: string;
  /** status.capacityReservations, as the operator resolved them (reserved offerings, as the operator adds them). */
  readonly reservations?: readonly CapacityReservationStatus[];
}

function nodeClass(doc: Obj): NodeClassView {
  const spec = o(doc["spec"]);
  const kubelet = o(spec["kubelet"]) as KubeletConfig;
  // The operator's rule (launch-template/node-class.ts): amiFamily, else the alias's family, else Custom.
  const family = typeof spec["amiFamily"] === "string" ? spec["amiFamily"] : undefined;
  const amiFamily = amiFamilyOf({ amiFamily: family, amiSelectorTerms: arr(spec["amiSelectorTerms"]) } as unknown as EC2NodeClassSpec);
  const policy = spec["instanceStorePolicy"];
  // The operator's rule (policies/domain/ephemeral-storage.ts): RAID0 instance store, else the kubelet's EBS volume.
  const storage = { amiFamily, blockDeviceMappings: arr(spec["blockDeviceMappings"]) as StorageSource["blockDeviceMappings"] };
  const reservations = arr(o(doc["status"])["capacityReservations"]) as unknown as CapacityReservationStatus[];
  return {
    kubelet, amiFamily, ephemeralStorageBytes: ebsEphemeralStorageBytes(storage),
    ...(typeof policy === "string" ? { instanceStorePolicy: policy } : {}),
    ...(reservations.length === 0 ? {} : { reservations }),
  };
}

/**
 * The node class's types with its reservations' offerings. EC2's count of free instances is not in the
 * documents, so each reservation is taken to have room (a launch that finds it full falls back to on-demand).
 */
function withReservations(types: InstanceType[], c: NodeClassView | undefined, catalog: Catalog): InstanceType[] {
  if (c?.reservations === undefined) return types;
  const zones = new Set(types.flatMap((t) => t.offerings.map((of) => of.zone)));
  return withReservedOfferings(types, { reservations: c.reservations, zones, zoneIds: catalog.zoneIds, capacity: () => 1, unavailable: new Set() });
}

/** Checks a NodePool's requirements and limits read (the operator would reject it at the webhook). */
function checkNodePool(doc: Obj): void {
  const spec = o(doc["spec"]);
  Requirements.fromSelectors(arr(o(o(spec["template"])["spec"])["requirements"]) as unknown as NodeSelectorRequirement[]);
  if (spec["limits"] !== undefined) parseResourceList(o(spec["limits"]));
}

const nodeClassRef = (pool: Obj): string => String(o(o(o(o(pool["spec"])["template"])["spec"])["nodeClassRef"])["name"] ?? "");

/**
 * The Pods of a Deployment or StatefulSet, each admitted as its RuntimeClass has it (read once: every
 * replica is alike), controlled by the StatefulSet or by the Deployment's ReplicaSet (deploymentReplicaSet).
 */
function replicas(doc: Obj, classes: RuntimeClasses): Obj[] {
  const spec = o(doc["spec"]);
  const template = o(spec["template"]);
  const ns = String(o(doc["metadata"])["namespace"] ?? "default");
  const count = Number(spec["replicas"] ?? 1);
  const podSpec = admitRuntimeClass(template["spec"], classes);
  simPodFromSpec(template["metadata"], podSpec, { name: nameOf(doc), namespace: ns, uid: "" });
  const kind = doc["kind"] === "StatefulSet" ? "StatefulSet" : "ReplicaSet";
  const owner = { apiVersion: "apps/v1", kind, name: nameOf(doc), uid: `${kind}/${ns}/${nameOf(doc)}`, controller: true };
  return Array.from({ length: count }, (_, i) => ({
    apiVersion: "v1", kind: "Pod",
    metadata: {
      ...o(template["metadata"]), name: `${nameOf(doc)}-${i}`, namespace: ns, uid: `${ns}/${nameOf(doc)}-${i}`, ownerReferences: [owner],
    },
    // A StatefulSet's pods use the claims of its volumeClaimTemplates (volume-objects.ts).
    spec: kind === "StatefulSet" ? withClaimTemplates(doc, i, podSpec) : podSpec,
  }));
}

/**
 * The ReplicaSet a Deployment's pods belong to, named as the Deployment, with its selector: what a
 * default spread constraint's selector is deduced from (default-spread.ts). A real one also selects
 * its pod-template-hash; a scenario has one ReplicaSet per Deployment, so the selector is the same.
 */
function deploymentReplicaSet(doc: Obj): Obj {
  const meta = o(doc["metadata"]);
  return {
    apiVersion: "apps/v1", kind: "ReplicaSet", metadata: { name: nameOf(doc), namespace: meta["namespace"] ?? "default" },
    spec: { selector: o(doc["spec"])["selector"] },
  };
}

function wrap<T>(index: number, doc: Obj, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw new ScenarioError(index, `reading ${String(doc["kind"])} ${nameOf(doc)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** The Node with what its instance type implies where it is silent: type labels, hostname, capacity type, allocatable. */
export function completeNode(doc: Obj, types: ReadonlyMap<string, InstanceType>): Obj {
  const metadata = o(doc["metadata"]);
  const own = labelsOf(metadata["labels"]);
  const type = types.get(own["node.kubernetes.io/instance-type"] ?? "");
  if (type === undefined) return doc;
  const labels = { ...type.labels, "kubernetes.io/hostname": nameOf(doc), "karpenter.sh/capacity-type": "on-demand", ...own };
  const status = o(doc["status"]);
  const allocatable = status["allocatable"] ?? status["capacity"] ?? Object.fromEntries(Object.entries(type.allocatable).map(([k, v]) => [k, formatResource(k, v)]));
  return { ...doc, metadata: { ...metadata, labels }, status: { ...status, allocatable } };
}

const KNOWN_KINDS = "NodePool, EC2NodeClass, NodeOverlay, Pod, Deployment, DaemonSet, Node, NodeClaim, PodDisruptionBudget, "
  + "Namespace, RuntimeClass, StatefulSet, Service, ReplicaSet, ReplicationController, PersistentVolumeClaim, PersistentVolume, StorageClass or CSINode";

/** Kinds read after the first pass (or only as selector sources): nothing to do for them there. */
const READ_LATER = new Set([
  "EC2NodeClass", "NodeOverlay", "Node", "NodeClaim", "PodDisruptionBudget", "Namespace", "RuntimeClass", "DaemonSet", "Service", "ReplicaSet",
  "ReplicationController",
]);

const terminal = (pod: Obj): boolean => ["Succeeded", "Failed"].includes(String(o(pod["status"])["phase"] ?? ""));

/**
 * Whether an unbound scenario Pod waits for a place as the operator's intake has it (cluster-state.ts
 * isProvisionable, less kube-scheduler's verdict a scenario cannot give): not terminating, not done,
 * not asking for no Karpenter node.
 */
function waits(pod: Obj): boolean {
  return o(pod["metadata"])["deletionTimestamp"] === undefined && !terminal(pod) && !optsOutOfKarpenter(pod as SchedulingPod);
}

/** The operator's settings a scenario is read with. */
export interface ScenarioSettings {
  /** --scheduler-config: the cluster's kube-scheduler defaults (default-spread.ts). */
  readonly schedulerConfig?: SchedulerConfig | undefined;
  /** --expendable-pods-priority-cutoff (provisioning/expendable.ts). */
  readonly expendablePodsPriorityCutoff?: number | undefined;
}

/**
 * Builds the scenario; throws ScenarioError for an unknown kind or an unusable object. `at` (the epoch without it)
 * dates made-up NodeClaims and opens kerf.dev/off-schedule windows; `settings` are the operator's that shape the
 * scheduling input.
 */
export function buildScenario(
  documents: readonly unknown[], catalog: Catalog, at?: Date, settings: ScenarioSettings = {},
): Scenario {
  const { schedulerConfig, expendablePodsPriorityCutoff } = settings;
  // Without a time, no kerf.dev/off-schedule window is open; the scenario's other clocks read the epoch.
  const now = at ?? new Date(0);
  const docs = documents.map(o);
  const classes = new Map<string, NodeClassView>();
  const typeCache = new Map<NodeClassView | undefined, InstanceType[]>();
  const typesFor = (c: NodeClassView | undefined): InstanceType[] => {
    let types = typeCache.get(c);
    if (types === undefined) typeCache.set(c, (types = withReservations(toInstanceTypes(catalog, { ...(c === undefined ? {} : c) }), c, catalog)));
    return types;
  };
  const pending: Obj[] = [];
  const boundPods: Obj[] = [];
  const runtimeClasses = runtimeClassesOf(docs);
  docs.forEach((d, i) => {
    if (d["kind"] === "EC2NodeClass") classes.set(nameOf(d), wrap(i, d, () => nodeClass(d)));
  });
  docs.forEach((d, i) => wrap(i, d, () => {
    const kind = String(d["kind"]);
    if (READ_LATER.has(kind)) return;
    if (kind === "NodePool") checkNodePool(d);
    else if (kind === "Deployment" || kind === "StatefulSet") pending.push(...replicas(d, runtimeClasses));
    else if (kind === "Pod") addPod(d, runtimeClasses, { pending, boundPods });
    else if (VOLUME_KINDS.has(kind)) checkVolumeObject(d);
    else throw new Error(`unsupported kind (expected ${KNOWN_KINDS})`);
  }));
  const ofKind = (kind: string): Obj[] => docs.filter((d) => d["kind"] === kind);
  const catalogTypes = new Map(ofKind("NodePool").map((p) => [nameOf(p), typesFor(classes.get(nodeClassRef(p)))]));
  const { instanceTypes, verdicts } = overlaid(docs, catalogTypes);
  const typesOfNode = (d: Obj): Map<string, InstanceType> => {
    const pool = docLabels(d)[Label.nodePool] ?? "";
    return new Map((instanceTypes.get(pool) ?? typesFor(undefined)).map((t) => [t.name, t]));
  };
  const nodes = docs.flatMap((d, i) => (d["kind"] === "Node" ? [wrap(i, d, () => checkNode(completeNode(d, typesOfNode(d))))] : []));
  const daemonSets = docs.flatMap((d, i) => (d["kind"] === "DaemonSet" ? [wrap(i, d, () => admittedTemplate(d, runtimeClasses))] : []));
  const objects: ScenarioObjects = {
    nodePools: ofKind("NodePool"), nodes, nodeClaims: ofKind("NodeClaim"), pods: boundPods, daemonSets,
    pdbs: ofKind("PodDisruptionBudget"), namespaces: ofKind("Namespace"), instanceTypes,
    volumes: [...docs.filter((d) => VOLUME_KINDS.has(String(d["kind"]))), ...templateClaims(docs)],
    pending: pending.filter(waits),
    selectorSources: {
      services: ofKind("Service"), replicaSets: [...ofKind("ReplicaSet"), ...ofKind("Deployment").map(deploymentReplicaSet)],
      statefulSets: ofKind("StatefulSet"), replicationControllers: ofKind("ReplicationController"),
    },
  };
  const cluster = scenarioCluster(objects, now);
  const input = schedulingInput({
    cluster, pending: objects.pending as readonly Pod[], instanceTypes, schedulerConfig, expendablePodsPriorityCutoff,
    now: at?.getTime(),
  });
  const staticClaims = staticLaunches(cluster.nodePools, cluster.nodeClaims, instanceTypes, now.getTime());
  return { snapshot: input.snapshot, pending: [...input.pods.keys()], objects, cluster, overlays: verdicts, input, staticClaims };
}

/**
 * The pools' types with the scenario's NodeOverlays applied as the operator applies them (gate NodeOverlay on:
 * core/overlay/apply.ts); an overlay Karpenter would mark RuntimeValidation=False is an error naming it.
 */
function overlaid(
  docs: readonly Obj[], types: ReadonlyMap<string, readonly InstanceType[]>,
): { instanceTypes: Map<string, readonly InstanceType[]>; verdicts: readonly OverlayVerdict[] } {
  const overlays = docs.flatMap((d, i) => (d["kind"] === "NodeOverlay" ? [{ d, i }] : []));
  if (overlays.length === 0) return { instanceTypes: new Map(types), verdicts: [] };
  const pools = docs.filter((d) => d["kind"] === "NodePool").map((p) => ({
    name: nameOf(p), labels: labelsOf(o(o(o(p["spec"])["template"])["metadata"])["labels"]), types: types.get(nameOf(p)) ?? [],
  }));
  const evaluation = evaluateOverlays(overlays.map(({ d }) => d as NodeOverlayObject), pools);
  for (const v of evaluation.verdicts) {
    if (v.status === "True" || v.reason !== "RuntimeValidation") continue;
    const at = overlays.find(({ d }) => nameOf(d) === v.name);
    throw new ScenarioError(at?.i ?? 0, `reading NodeOverlay ${v.name}: ${v.message}`);
  }
  return { instanceTypes: new Map(pools.map((p) => [p.name, applyOverlays(evaluation, p.name, p.types)])), verdicts: evaluation.verdicts };
}

/** Checks a Node's allocatable reads (the simulation parses it). */
function checkNode(doc: Obj): Obj {
  const status = o(doc["status"]);
  parseResourceList(o(status["allocatable"] ?? status["capacity"]));
  return doc;
}

/** A DaemonSet whose pod template went through RuntimeClass admission (the disruption what-if reads it). */
function admittedTemplate(doc: Obj, classes: RuntimeClasses): Obj {
  const spec = o(doc["spec"]);
  const template = o(spec["template"]);
  const podSpec = admitRuntimeClass(template["spec"], classes);
  const ns = String(o(doc["metadata"])["namespace"] ?? "default");
  simPodFromSpec(template["metadata"], podSpec, { name: nameOf(doc), namespace: ns, uid: "" });
  return podSpec === template["spec"] ? doc : { ...doc, spec: { ...spec, template: { ...template, spec: podSpec } } };
}

interface PodLists { readonly pending: Obj[]; readonly boundPods: Obj[] }

/** A Pod, admitted as its RuntimeClass has it and given a uid: pending without `spec.nodeName`, else bound to that node. */
function addPod(written: Obj, classes: RuntimeClasses, lists: PodLists): void {
  const doc: Obj = { ...written, spec: admitRuntimeClass(written["spec"], classes) };
  const pod = simPodFromPod(doc);
  const withUid = { ...doc, metadata: { ...o(doc["metadata"]), uid: pod.uid, namespace: pod.namespace } };
  if (typeof o(doc["spec"])["nodeName"] === "string") lists.boundPods.push(withUid);
  else lists.pending.push(withUid);
}

interface Condition { readonly type: string; readonly status: string; readonly reason?: string }

/** A NodePool without conditions is Ready (a scenario describes a working cluster unless it says otherwise). */
function poolWithStatus(pool: Obj): NodePoolObject {
  const status = o(pool["status"]);
  return (Array.isArray(status["conditions"]) ? pool : { ...pool, status: { ...status, conditions: [{ type: "Ready", status: "True" }] } }) as NodePoolObject;
}

function consolidateNever(pool: Obj | undefined): boolean {
  return o(o(pool?.["spec"])["disruption"])["consolidateAfter"] === "Never";
}

/** The given conditions, with Initialized and Consolidatable added where not stated. */
export function claimConditions(given: Obj | undefined, pool: Obj | undefined): Condition[] {
  const stated = (Array.isArray(o(given?.["status"])["conditions"]) ? o(given?.["status"])["conditions"] : []) as Condition[];
  const has = (type: string): boolean => stated.some((c) => c.type === type);
  return [
    ...stated,
    ...(has("Initialized") ? [] : [{ type: "Initialized", status: "True" }]),
    ...(has("Consolidatable") ? [] : [{ type: "Consolidatable", status: consolidateNever(pool) ? "False" : "True" }]),
  ];
}

function matchingClaim(node: Obj, providerID: string, claims: readonly Obj[]): Obj | undefined {
  const name = nameOf(node);
  return claims.find((c) => o(c["status"])["nodeName"] === name)
    ?? claims.find((c) => providerID !== "" && o(c["status"])["providerID"] === providerID)
    ?? claims.find((c) => nameOf(c) === name);
}

interface Managed { readonly node: Node; readonly claim: NodeClaim }

/** The NodeClaim a managed Node gets: the scenario's (its unstated conditions defaulted) or one made up. */
function claimFor(node: Obj, given: Obj | undefined, providerID: string, context: { pool: Obj | undefined; now: Date }): NodeClaim {
  const { pool, now } = context;
  const status = o(node["status"]);
  const meta = o(given?.["metadata"]);
  const created = o(node["metadata"])["creationTimestamp"] ?? meta["creationTimestamp"] ?? now.toISOString();
  const claimStatus = o(given?.["status"]);
  // What the node holds counts against its pool's limits, as a launched NodeClaim's status.capacity does.
  const capacity = claimStatus["capacity"] ?? status["capacity"] ?? status["allocatable"];
  const claim = {
    ...given, metadata: { ...meta, name: given === undefined ? nameOf(node) : nameOf(given), labels: { ...docLabels(node), ...o(meta["labels"]) }, creationTimestamp: created },
    spec: o(given?.["spec"]),
    status: {
      ...claimStatus, providerID, nodeName: nameOf(node), conditions: claimConditions(given, pool), allocatable: status["allocatable"],
      ...(capacity === undefined ? {} : { capacity }),
    },
  };
  return claim as unknown as NodeClaim;
}

function managed(node: Obj, claims: readonly Obj[], pool: Obj | undefined, now: Date): Managed {
  const ownID = String(o(node["spec"])["providerID"] ?? "");
  const given = matchingClaim(node, ownID, claims);
  const providerID = ownID !== "" ? ownID : String(o(given?.["status"])["providerID"] ?? `kerf-simulate:///${nameOf(node)}`);
  const status = o(node["status"]);
  const withStatus = { ...node, spec: { ...o(node["spec"]), providerID }, status: { ...status, conditions: status["conditions"] ?? [{ type: "Ready", status: "True" }] } };
  return { node: withStatus as Node, claim: claimFor(node, given, providerID, { pool, now }) };
}

/** minAvailable / maxUnavailable as a count of `expected` pods (percentages round up, as the disruption controller does). */
function scaled(value: unknown, expected: number): number {
  if (typeof value === "string" && value.endsWith("%")) return Math.ceil((Number(value.slice(0, -1)) / 100) * expected);
  return Number(value);
}

function pdbWithStatus(pdb: Obj, pods: readonly Obj[]): PdbLike {
  const status = o(pdb["status"]);
  if (typeof status["disruptionsAllowed"] === "number") return pdb as PdbLike;
  const spec = o(pdb["spec"]);
  const ns = String(o(pdb["metadata"])["namespace"] ?? "default");
  const selector = spec["selector"];
  const selected = selector === undefined || selector === null ? [] : pods.filter((p) => String(o(p["metadata"])["namespace"] ?? "default") === ns && selectorMatches(selector as LabelSelector, docLabels(p)));
  const n = selected.length;
  const allowed = spec["maxUnavailable"] !== undefined ? scaled(spec["maxUnavailable"], n) : spec["minAvailable"] !== undefined ? n - scaled(spec["minAvailable"], n) : n;
  return { ...pdb, status: { ...status, disruptionsAllowed: Math.max(0, allowed) } } as PdbLike;
}

/** Whether a scenario Node belongs to one of its NodePools (label karpenter.sh/nodepool). */
export function isManagedNode(objects: Pick<ScenarioObjects, "nodePools">, node: Obj): boolean {
  return objects.nodePools.some((p) => nameOf(p) === (docLabels(node)[Label.nodePool] ?? ""));
}

/**
 * The cluster as the operator's caches would hold it: the scenario's objects with what they leave
 * unsaid filled in (header), its waiting pods unbound.
 */
export function scenarioCluster(objects: ScenarioObjects, now: Date): ClusterView {
  const pools = new Map(objects.nodePools.map((p) => [nameOf(p), p]));
  const done = objects.nodes.map((n) => (isManagedNode(objects, n) ? managed(n, objects.nodeClaims, pools.get(docLabels(n)[Label.nodePool] ?? ""), now) : { node: n as Node, claim: undefined }));
  const used = new Set(done.map((d) => d.claim?.metadata?.name));
  return {
    nodePools: objects.nodePools.map(poolWithStatus),
    nodes: done.map((d) => d.node),
    nodeClaims: [...done.flatMap((d) => (d.claim === undefined ? [] : [d.claim])), ...objects.nodeClaims.filter((c) => !used.has(nameOf(c))) as NodeClaim[]],
    pods: [...objects.pods, ...(objects.pending ?? [])] as readonly Pod[],
    daemonSets: objects.daemonSets as readonly DaemonSetObject[],
    pdbs: objects.pdbs.map((p) => pdbWithStatus(p, objects.pods)),
    namespaces: objects.namespaces,
    ...volumeView(objects.volumes ?? []),
    ...objects.selectorSources,
  };
}

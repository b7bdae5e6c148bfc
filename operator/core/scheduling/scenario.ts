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
 *
 * scenario/objects.ts holds the objects as written and their readers; scenario/cluster.ts fills in what
 * a scenario leaves unsaid (the paragraph above) and builds the cluster view.
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
import type { Pod } from "../lifecycle/objects.ts";
import type { ClusterView } from "../provisioning/cluster-view.ts";
import { schedulingInput, type SchedulingInput } from "../provisioning/scheduling-input.ts";
import { checkVolumeObject, templateClaims, VOLUME_KINDS, withClaimTemplates } from "./volume-objects.ts";
import { optsOutOfKarpenter, type SchedulingPod } from "../provisioning/intake.ts";
import type { SchedulerConfig } from "./default-spread.ts";
import { simPodFromPod, simPodFromSpec } from "./pod-spec.ts";
import { admitRuntimeClass, runtimeClassesOf, type RuntimeClasses } from "./runtime-class.ts";
import type { PlannedNodeClaim, SimPod, Snapshot } from "./types.ts";
import { staticLaunches } from "../nodepool/static.ts";
import { scenarioCluster } from "./scenario/cluster.ts";
import {
  arr,
  docLabels,
  labelsOf,
  nameOf,
  o,
  ScenarioError,
  type Obj,
  type ScenarioObjects,
} from "./scenario/objects.ts";

export { ScenarioError, type Obj, type ScenarioObjects } from "./scenario/objects.ts";

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
  const amiFamily = amiFamilyOf({
    amiFamily: family,
    amiSelectorTerms: arr(spec["amiSelectorTerms"]),
  } as unknown as EC2NodeClassSpec);
  const policy = spec["instanceStorePolicy"];
  // The operator's rule (policies/domain/ephemeral-storage.ts): RAID0 instance store, else the kubelet's EBS volume.
  const storage = {
    amiFamily,
    blockDeviceMappings: arr(spec["blockDeviceMappings"]) as StorageSource["blockDeviceMappings"],
  };
  const reservations = arr(o(doc["status"])["capacityReservations"]) as unknown as CapacityReservationStatus[];
  return {
    kubelet,
    amiFamily,
    ephemeralStorageBytes: ebsEphemeralStorageBytes(storage),
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
  return withReservedOfferings(types, {
    reservations: c.reservations,
    zones,
    zoneIds: catalog.zoneIds,
    capacity: () => 1,
    unavailable: new Set(),
  });
}

/** Checks a NodePool's requirements and limits read (the operator would reject it at the webhook). */
function checkNodePool(doc: Obj): void {
  const spec = o(doc["spec"]);
  Requirements.fromSelectors(
    arr(o(o(spec["template"])["spec"])["requirements"]) as unknown as NodeSelectorRequirement[],
  );
  if (spec["limits"] !== undefined) parseResourceList(o(spec["limits"]));
}

const nodeClassRef = (pool: Obj): string =>
  String(o(o(o(o(pool["spec"])["template"])["spec"])["nodeClassRef"])["name"] ?? "");

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
  const owner = {
    apiVersion: "apps/v1",
    kind,
    name: nameOf(doc),
    uid: `${kind}/${ns}/${nameOf(doc)}`,
    controller: true,
  };
  return Array.from({ length: count }, (_, i) => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      ...o(template["metadata"]),
      name: `${nameOf(doc)}-${i}`,
      namespace: ns,
      uid: `${ns}/${nameOf(doc)}-${i}`,
      ownerReferences: [owner],
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
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name: nameOf(doc), namespace: meta["namespace"] ?? "default" },
    spec: { selector: o(doc["spec"])["selector"] },
  };
}

function wrap<T>(index: number, doc: Obj, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw new ScenarioError(
      index,
      `reading ${String(doc["kind"])} ${nameOf(doc)}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/**
 * The Node with what its instance type implies where it is silent: type labels, hostname, capacity type, allocatable.
 */
export function completeNode(doc: Obj, types: ReadonlyMap<string, InstanceType>): Obj {
  const metadata = o(doc["metadata"]);
  const own = labelsOf(metadata["labels"]);
  const type = types.get(own["node.kubernetes.io/instance-type"] ?? "");
  if (type === undefined) return doc;
  const labels = {
    ...type.labels,
    "kubernetes.io/hostname": nameOf(doc),
    "karpenter.sh/capacity-type": "on-demand",
    ...own,
  };
  const status = o(doc["status"]);
  const allocatable =
    status["allocatable"] ??
    status["capacity"] ??
    Object.fromEntries(Object.entries(type.allocatable).map(([k, v]) => [k, formatResource(k, v)]));
  return { ...doc, metadata: { ...metadata, labels }, status: { ...status, allocatable } };
}

const KNOWN_KINDS =
  "NodePool, EC2NodeClass, NodeOverlay, Pod, Deployment, DaemonSet, Node, NodeClaim, PodDisruptionBudget, " +
  "Namespace, RuntimeClass, StatefulSet, Service, ReplicaSet, ReplicationController, " +
  "PersistentVolumeClaim, PersistentVolume, StorageClass or CSINode";

/** Kinds read after the first pass (or only as selector sources): nothing to do for them there. */
const READ_LATER = new Set([
  "EC2NodeClass",
  "NodeOverlay",
  "Node",
  "NodeClaim",
  "PodDisruptionBudget",
  "Namespace",
  "RuntimeClass",
  "DaemonSet",
  "Service",
  "ReplicaSet",
  "ReplicationController",
]);

const terminal = (pod: Obj): boolean => ["Succeeded", "Failed"].includes(String(o(pod["status"])["phase"] ?? ""));

/**
 * Whether an unbound scenario Pod waits for a place as the operator's intake has it (cluster-state.ts
 * isProvisionable, less kube-scheduler's verdict a scenario cannot give): not terminating, not done,
 * not asking for no Karpenter node.
 */
function waits(pod: Obj): boolean {
  return (
    o(pod["metadata"])["deletionTimestamp"] === undefined && !terminal(pod) && !optsOutOfKarpenter(pod as SchedulingPod)
  );
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
  documents: readonly unknown[],
  catalog: Catalog,
  at?: Date,
  settings: ScenarioSettings = {},
): Scenario {
  const { schedulerConfig, expendablePodsPriorityCutoff } = settings;
  // Without a time, no kerf.dev/off-schedule window is open; the scenario's other clocks read the epoch.
  const now = at ?? new Date(0);
  const docs = documents.map(o);
  const classes = new Map<string, NodeClassView>();
  const typeCache = new Map<NodeClassView | undefined, InstanceType[]>();
  const typesFor = (c: NodeClassView | undefined): InstanceType[] => {
    let types = typeCache.get(c);
    if (types === undefined)
      typeCache.set(
        c,
        (types = withReservations(toInstanceTypes(catalog, { ...(c === undefined ? {} : c) }), c, catalog)),
      );
    return types;
  };
  const pending: Obj[] = [];
  const boundPods: Obj[] = [];
  const runtimeClasses = runtimeClassesOf(docs);
  docs.forEach((d, i) => {
    if (d["kind"] === "EC2NodeClass")
      classes.set(
        nameOf(d),
        wrap(i, d, () => nodeClass(d)),
      );
  });
  docs.forEach((d, i) =>
    wrap(i, d, () => {
      const kind = String(d["kind"]);
      if (READ_LATER.has(kind)) return;
      if (kind === "NodePool") checkNodePool(d);
      else if (kind === "Deployment" || kind === "StatefulSet") pending.push(...replicas(d, runtimeClasses));
      else if (kind === "Pod") addPod(d, runtimeClasses, { pending, boundPods });
      else if (VOLUME_KINDS.has(kind)) checkVolumeObject(d);
      else throw new Error(`unsupported kind (expected ${KNOWN_KINDS})`);
    }),
  );
  const ofKind = (kind: string): Obj[] => docs.filter((d) => d["kind"] === kind);
  const catalogTypes = new Map(ofKind("NodePool").map((p) => [nameOf(p), typesFor(classes.get(nodeClassRef(p)))]));
  const { instanceTypes, verdicts } = overlaid(docs, catalogTypes);
  const typesOfNode = (d: Obj): Map<string, InstanceType> => {
    const pool = docLabels(d)[Label.nodePool] ?? "";
    return new Map((instanceTypes.get(pool) ?? typesFor(undefined)).map((t) => [t.name, t]));
  };
  const nodes = docs.flatMap((d, i) =>
    d["kind"] === "Node" ? [wrap(i, d, () => checkNode(completeNode(d, typesOfNode(d))))] : [],
  );
  const daemonSets = docs.flatMap((d, i) =>
    d["kind"] === "DaemonSet" ? [wrap(i, d, () => admittedTemplate(d, runtimeClasses))] : [],
  );
  const objects: ScenarioObjects = {
    nodePools: ofKind("NodePool"),
    nodes,
    nodeClaims: ofKind("NodeClaim"),
    pods: boundPods,
    daemonSets,
    pdbs: ofKind("PodDisruptionBudget"),
    namespaces: ofKind("Namespace"),
    instanceTypes,
    volumes: [...docs.filter((d) => VOLUME_KINDS.has(String(d["kind"]))), ...templateClaims(docs)],
    pending: pending.filter(waits),
    selectorSources: {
      services: ofKind("Service"),
      replicaSets: [...ofKind("ReplicaSet"), ...ofKind("Deployment").map(deploymentReplicaSet)],
      statefulSets: ofKind("StatefulSet"),
      replicationControllers: ofKind("ReplicationController"),
    },
  };
  const cluster = scenarioCluster(objects, now);
  const input = schedulingInput({
    cluster,
    pending: objects.pending as readonly Pod[],
    instanceTypes,
    schedulerConfig,
    expendablePodsPriorityCutoff,
    now: at?.getTime(),
  });
  const staticClaims = staticLaunches(cluster.nodePools, cluster.nodeClaims, instanceTypes, now.getTime());
  return {
    snapshot: input.snapshot,
    pending: [...input.pods.keys()],
    objects,
    cluster,
    overlays: verdicts,
    input,
    staticClaims,
  };
}

/**
 * The pools' types with the scenario's NodeOverlays applied as the operator applies them (gate NodeOverlay on:
 * core/overlay/apply.ts); an overlay Karpenter would mark RuntimeValidation=False is an error naming it.
 */
function overlaid(
  docs: readonly Obj[],
  types: ReadonlyMap<string, readonly InstanceType[]>,
): { instanceTypes: Map<string, readonly InstanceType[]>; verdicts: readonly OverlayVerdict[] } {
  const overlays = docs.flatMap((d, i) => (d["kind"] === "NodeOverlay" ? [{ d, i }] : []));
  if (overlays.length === 0) return { instanceTypes: new Map(types), verdicts: [] };
  const pools = docs
    .filter((d) => d["kind"] === "NodePool")
    .map((p) => ({
      name: nameOf(p),
      labels: labelsOf(o(o(o(p["spec"])["template"])["metadata"])["labels"]),
      types: types.get(nameOf(p)) ?? [],
    }));
  const evaluation = evaluateOverlays(
    overlays.map(({ d }) => d as NodeOverlayObject),
    pools,
  );
  for (const v of evaluation.verdicts) {
    if (v.status === "True" || v.reason !== "RuntimeValidation") continue;
    const at = overlays.find(({ d }) => nameOf(d) === v.name);
    throw new ScenarioError(at?.i ?? 0, `reading NodeOverlay ${v.name}: ${v.message}`);
  }
  return {
    instanceTypes: new Map(pools.map((p) => [p.name, applyOverlays(evaluation, p.name, p.types)])),
    verdicts: evaluation.verdicts,
  };
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

interface PodLists {
  readonly pending: Obj[];
  readonly boundPods: Obj[];
}

/**
 * A Pod, admitted as its RuntimeClass has it and given a uid: pending without `spec.nodeName`, else bound to that node.
 */
function addPod(written: Obj, classes: RuntimeClasses, lists: PodLists): void {
  const doc: Obj = { ...written, spec: admitRuntimeClass(written["spec"], classes) };
  const pod = simPodFromPod(doc);
  const withUid = { ...doc, metadata: { ...o(doc["metadata"]), uid: pod.uid, namespace: pod.namespace } };
  if (typeof o(doc["spec"])["nodeName"] === "string") lists.boundPods.push(withUid);
  else lists.pending.push(withUid);
}

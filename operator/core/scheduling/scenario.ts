/**
 * Turns the plain Kubernetes objects of a simulation scenario (NodePool, EC2NodeClass, Pod,
 * Deployment, DaemonSet, Node, NodeClaim, PodDisruptionBudget, Namespace, RuntimeClass) into a
 * Snapshot and the pending pods (pure), and keeps the objects themselves for the disruption what-if.
 * A Node that names a catalog instance type (`node.kubernetes.io/instance-type`) gets that type's
 * labels and allocatable where it does not set them, and `karpenter.sh/capacity-type: on-demand`
 * unless it says otherwise, as the nodes Karpenter launches carry them. Pods and pod templates go
 * through RuntimeClass admission first (runtime-class.ts: overhead, nodeSelector, tolerations), as
 * the apiserver puts every pod through it. Errors name the object and carry its document index so
 * the CLI can point at file and line.
 */
import { toInstanceTypes, type Catalog } from "../../../policies/domain/catalog/catalog.ts";
import type { KubeletConfig } from "../../../policies/domain/allocatable.ts";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { formatResource, parseQuantity, parseResourceList } from "../../../policies/domain/quantity.ts";
import { Requirements, type NodeSelectorRequirement } from "../../../policies/domain/requirements.ts";
import type { Taint } from "../../../policies/domain/taints.ts";
import { simPodFromPod, simPodFromSpec } from "./pod-spec.ts";
import { admitRuntimeClass, runtimeClassesOf, type RuntimeClasses } from "./runtime-class.ts";
import type { DaemonSetView, ExistingNode, NodePoolView, SimPod, Snapshot } from "./types.ts";

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

/** The scenario's objects as written, Nodes completed from the catalog and bound Pods given a uid (the what-if reads them). */
export interface ScenarioObjects {
  readonly nodePools: readonly Obj[];
  readonly nodes: readonly Obj[];
  readonly nodeClaims: readonly Obj[];
  /** Pods bound to a node (`spec.nodeName`), with `metadata.uid` (default namespace/name, as the simulation names them). */
  readonly pods: readonly Obj[];
  readonly daemonSets: readonly Obj[];
  readonly pdbs: readonly Obj[];
  /** Namespaces as written (their labels: pod-affinity namespaceSelector). */
  readonly namespaces: readonly Obj[];
  /** Instance types per NodePool name (from its EC2NodeClass). */
  readonly instanceTypes: ReadonlyMap<string, readonly InstanceType[]>;
}

export interface Scenario {
  readonly snapshot: Snapshot;
  readonly pending: SimPod[];
  readonly objects: ScenarioObjects;
}

const o = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(o) : []);
const labelsOf = (v: unknown): Record<string, string> => Object.fromEntries(Object.entries(o(v)).map(([k, x]) => [k, String(x)]));
const nameOf = (doc: Obj): string => String(o(doc["metadata"])["name"] ?? "");

interface NodeClassView {
  readonly kubelet: KubeletConfig;
  readonly ephemeralStorageBytes?: number;
}

function nodeClass(doc: Obj): NodeClassView {
  const spec = o(doc["spec"]);
  const kubelet = o(spec["kubelet"]) as KubeletConfig;
  const root = arr(spec["blockDeviceMappings"]).find((b) => b["rootVolume"] === true);
  const size = o(root?.["ebs"])["volumeSize"];
  return { kubelet, ...(typeof size === "string" ? { ephemeralStorageBytes: parseQuantity(size) } : {}) };
}

function nodePool(doc: Obj, classes: ReadonlyMap<string, NodeClassView>, typesFor: (c: NodeClassView | undefined) => InstanceType[]): NodePoolView {
  const spec = o(doc["spec"]);
  const template = o(spec["template"]);
  const tspec = o(template["spec"]);
  const requirements = arr(tspec["requirements"]) as unknown as NodeSelectorRequirement[];
  Requirements.fromSelectors(requirements);
  const ref = String(o(tspec["nodeClassRef"])["name"] ?? "");
  return {
    name: nameOf(doc), weight: Number(spec["weight"] ?? 0), labels: labelsOf(o(template["metadata"])["labels"]),
    taints: arr(tspec["taints"]) as unknown as Taint[], startupTaints: arr(tspec["startupTaints"]) as unknown as Taint[],
    requirements, ...(spec["limits"] === undefined ? {} : { limits: parseResourceList(o(spec["limits"])) }),
    instanceTypes: typesFor(classes.get(ref)),
  };
}

function node(doc: Obj, pods: readonly SimPod[]): ExistingNode {
  const labels = labelsOf(o(doc["metadata"])["labels"]);
  const status = o(doc["status"]);
  return {
    name: nameOf(doc), labels, taints: arr(o(doc["spec"])["taints"]) as unknown as Taint[],
    allocatable: parseResourceList(o(status["allocatable"] ?? status["capacity"])), pods, nodePool: labels["karpenter.sh/nodepool"],
  };
}

/** The pods of a Deployment (or, with `replicas: 1`, a DaemonSet), each admitted as its RuntimeClass has it. */
function replicas(doc: Obj, order: { next: number }, classes: RuntimeClasses): SimPod[] {
  const spec = o(doc["spec"]);
  const template = o(spec["template"]);
  const ns = String(o(doc["metadata"])["namespace"] ?? "default");
  const count = Number(spec["replicas"] ?? 1);
  const podSpec = admitRuntimeClass(template["spec"], classes);
  return Array.from({ length: count }, (_, i) => simPodFromSpec(template["metadata"], podSpec, {
    name: `${nameOf(doc)}-${i}`, namespace: ns, uid: `${ns}/${nameOf(doc)}-${i}`, creationOrder: order.next++,
  }));
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

const KNOWN_KINDS = "NodePool, EC2NodeClass, Pod, Deployment, DaemonSet, Node, NodeClaim, PodDisruptionBudget, "
  + "Namespace or RuntimeClass";

/** Builds the scenario; throws ScenarioError for an unknown kind or an unusable object. */
export function buildScenario(documents: readonly unknown[], catalog: Catalog): Scenario {
  const docs = documents.map(o);
  const classes = new Map<string, NodeClassView>();
  const typeCache = new Map<NodeClassView | undefined, InstanceType[]>();
  const typesFor = (c: NodeClassView | undefined): InstanceType[] => {
    let types = typeCache.get(c);
    if (types === undefined) typeCache.set(c, (types = toInstanceTypes(catalog, { ...(c === undefined ? {} : c) })));
    return types;
  };
  const order = { next: 0 };
  const pending: SimPod[] = [];
  const bound = new Map<string, SimPod[]>();
  const pools: NodePoolView[] = [];
  const daemonSets: DaemonSetView[] = [];
  const boundPods: Obj[] = [];
  const runtimeClasses = runtimeClassesOf(docs);
  docs.forEach((d, i) => {
    if (d["kind"] === "EC2NodeClass") classes.set(nameOf(d), wrap(i, d, () => nodeClass(d)));
  });
  docs.forEach((d, i) => wrap(i, d, () => {
    switch (d["kind"]) {
      case "EC2NodeClass": case "Node": case "NodeClaim": case "PodDisruptionBudget": case "Namespace":
      case "RuntimeClass": return;
      case "NodePool": pools.push(nodePool(d, classes, typesFor)); return;
      case "Deployment": pending.push(...replicas(d, order, runtimeClasses)); return;
      case "DaemonSet": daemonSets.push({ name: nameOf(d), pod: daemonPod(d, order, runtimeClasses) }); return;
      case "Pod": addPod(d, order, runtimeClasses, { pending, bound, boundPods }); return;
      default: throw new Error(`unsupported kind (expected ${KNOWN_KINDS})`);
    }
  }));
  const instanceTypes = new Map(pools.map((p) => [p.name, p.instanceTypes]));
  const typesOfNode = (d: Obj): Map<string, InstanceType> => {
    const pool = labelsOf(o(d["metadata"])["labels"])["karpenter.sh/nodepool"] ?? "";
    return new Map((instanceTypes.get(pool) ?? typesFor(undefined)).map((t) => [t.name, t]));
  };
  const nodeDocs = docs.flatMap((d, i) => (d["kind"] === "Node" ? [{ d: completeNode(d, typesOfNode(d)), i }] : []));
  const nodes = nodeDocs.map(({ d, i }) => wrap(i, d, () => node(d, bound.get(nameOf(d)) ?? [])));
  const ofKind = (kind: string): Obj[] => docs.filter((d) => d["kind"] === kind);
  const objects: ScenarioObjects = {
    nodePools: ofKind("NodePool"), nodes: nodeDocs.map((n) => n.d), nodeClaims: ofKind("NodeClaim"), pods: boundPods,
    daemonSets: ofKind("DaemonSet").map((d) => admittedTemplate(d, runtimeClasses)),
    pdbs: ofKind("PodDisruptionBudget"), namespaces: ofKind("Namespace"),
    instanceTypes,
  };
  const namespaces = new Map(objects.namespaces.map((d) => [nameOf(d), labelsOf(o(d["metadata"])["labels"])]));
  return { snapshot: { nodes, nodePools: pools, daemonSets, namespaces }, pending, objects };
}

/** A DaemonSet whose pod template went through RuntimeClass admission (the disruption what-if reads it). */
function admittedTemplate(doc: Obj, classes: RuntimeClasses): Obj {
  const spec = o(doc["spec"]);
  const template = o(spec["template"]);
  const podSpec = admitRuntimeClass(template["spec"], classes);
  return podSpec === template["spec"] ? doc : { ...doc, spec: { ...spec, template: { ...template, spec: podSpec } } };
}

/** The pod a DaemonSet runs on each node (admitted as its RuntimeClass has it, as the real ones are). */
function daemonPod(doc: Obj, order: { next: number }, classes: RuntimeClasses): SimPod {
  return replicas({ ...doc, spec: { ...o(doc["spec"]), replicas: 1 } }, order, classes)[0]!;
}

interface PodLists { readonly pending: SimPod[]; readonly bound: Map<string, SimPod[]>; readonly boundPods: Obj[] }

/** A Pod, admitted as its RuntimeClass has it: pending without `spec.nodeName`, else bound to that node. */
function addPod(written: Obj, order: { next: number }, classes: RuntimeClasses, lists: PodLists): void {
  const { pending, bound, boundPods } = lists;
  const doc: Obj = { ...written, spec: admitRuntimeClass(written["spec"], classes) };
  const pod = simPodFromPod(doc, order.next++);
  const nodeName = o(doc["spec"])["nodeName"];
  if (typeof nodeName !== "string") {
    pending.push(pod);
    return;
  }
  bound.set(nodeName, [...(bound.get(nodeName) ?? []), pod]);
  boundPods.push({ ...doc, metadata: { ...o(doc["metadata"]), uid: pod.uid, namespace: pod.namespace } });
}

/**
 * Turns the plain Kubernetes objects of a simulation scenario (NodePool, EC2NodeClass, Pod,
 * Deployment, DaemonSet, Node) into a Snapshot and the pending pods (pure). Errors name the object
 * and carry its document index so the CLI can point at file and line.
 */
import { toInstanceTypes, type Catalog } from "../../../policies/domain/catalog/catalog.ts";
import type { KubeletConfig } from "../../../policies/domain/allocatable.ts";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { parseQuantity, parseResourceList } from "../../../policies/domain/quantity.ts";
import { Requirements, type NodeSelectorRequirement } from "../../../policies/domain/requirements.ts";
import type { Taint } from "../../../policies/domain/taints.ts";
import { simPodFromPod, simPodFromSpec } from "./pod-spec.ts";
import type { DaemonSetView, ExistingNode, NodePoolView, SimPod, Snapshot } from "./types.ts";

type Obj = Readonly<Record<string, unknown>>;

/** A scenario object that cannot be used; `document` is its 0-based index in the input. */
export class ScenarioError extends Error {
  readonly document: number;
  constructor(document: number, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ScenarioError";
    this.document = document;
  }
}

export interface Scenario {
  readonly snapshot: Snapshot;
  readonly pending: SimPod[];
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

function replicas(doc: Obj, order: { next: number }): SimPod[] {
  const spec = o(doc["spec"]);
  const template = o(spec["template"]);
  const ns = String(o(doc["metadata"])["namespace"] ?? "default");
  const count = Number(spec["replicas"] ?? 1);
  return Array.from({ length: count }, (_, i) => simPodFromSpec(template["metadata"], template["spec"], { name: `${nameOf(doc)}-${i}`, namespace: ns, uid: `${ns}/${nameOf(doc)}-${i}`, creationOrder: order.next++ }));
}

function wrap<T>(index: number, doc: Obj, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw new ScenarioError(index, `reading ${String(doc["kind"])} ${nameOf(doc)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

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
  docs.forEach((d, i) => {
    if (d["kind"] === "EC2NodeClass") classes.set(nameOf(d), wrap(i, d, () => nodeClass(d)));
  });
  docs.forEach((d, i) => wrap(i, d, () => {
    switch (d["kind"]) {
      case "EC2NodeClass": case "Node": return;
      case "NodePool": pools.push(nodePool(d, classes, typesFor)); return;
      case "Deployment": pending.push(...replicas(d, order)); return;
      case "DaemonSet": daemonSets.push({ name: nameOf(d), pod: replicas({ ...d, spec: { ...o(d["spec"]), replicas: 1 } }, order)[0]! }); return;
      case "Pod": addPod(d, order, pending, bound); return;
      default: throw new Error(`unsupported kind (expected NodePool, EC2NodeClass, Pod, Deployment, DaemonSet or Node)`);
    }
  }));
  const nodes = docs.flatMap((d, i) => (d["kind"] === "Node" ? [wrap(i, d, () => node(d, bound.get(nameOf(d)) ?? []))] : []));
  return { snapshot: { nodes, nodePools: pools, daemonSets }, pending };
}

function addPod(doc: Obj, order: { next: number }, pending: SimPod[], bound: Map<string, SimPod[]>): void {
  const pod = simPodFromPod(doc, order.next++);
  const nodeName = o(doc["spec"])["nodeName"];
  if (typeof nodeName !== "string") {
    pending.push(pod);
    return;
  }
  bound.set(nodeName, [...(bound.get(nodeName) ?? []), pod]);
}

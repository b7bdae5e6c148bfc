/**
 * The operator's in-memory cluster state: self-restarting informers for the kinds it reads,
 * providerID and node-name indexes, the pending-pod view the provisioner starts from (behaviour §1.1)
 * and a frozen snapshot value for the pure core. Objects in the caches are shared: never mutate them.
 */
import type {
  KubeConfig,
  KubernetesObject,
  V1DaemonSet,
  V1PodDisruptionBudget,
  V1VolumeAttachment,
} from "@kubernetes/client-node";
import type { Node, NodeClaim, Pod } from "../../core/lifecycle/objects.ts";
import { optsOutOfKarpenter, ownedByDaemonSetOrNode, type SchedulingPod } from "../../core/provisioning/intake.ts";
import { ResilientInformer, type Backoff } from "./informers.ts";
import { Strings } from "../../core/interning/strings.ts";
import { slimNode, slimObject, slimPod } from "./cache-transforms.ts";
import { onlyKeys } from "./object-shape.ts";
import { pagedList } from "./paged-list.ts";

/** The kinds the state watches. */
export type Kind =
  | "pods"
  | "nodes"
  | "nodepools"
  | "nodeclaims"
  | "ec2nodeclasses"
  | "daemonsets"
  | "pdbs"
  | "volumeattachments"
  | "persistentvolumeclaims"
  | "persistentvolumes"
  | "storageclasses"
  | "csinodes"
  | "namespaces"
  | SelectorKind
  | "nodeoverlays";
/**
 * What default topology spread selectors are deduced from (core/scheduling/default-spread.ts): watched only
 * when the operator has a --scheduler-config (ClusterStateOptions.selectorSources), kept as name and selector.
 */
export type SelectorKind = "services" | "replicasets" | "statefulsets" | "replicationcontrollers";
const SELECTOR_KINDS: ReadonlySet<Kind> = new Set<Kind>([
  "services",
  "replicasets",
  "statefulsets",
  "replicationcontrollers",
]);
export const KINDS: readonly Kind[] = [
  "pods",
  "nodes",
  "nodepools",
  "nodeclaims",
  "ec2nodeclasses",
  "daemonsets",
  "pdbs",
  "volumeattachments",
  "persistentvolumeclaims",
  "persistentvolumes",
  "storageclasses",
  "csinodes",
  "namespaces",
];

/** A NodePool or EC2NodeClass as the state keeps it (raw custom object JSON). */
export interface CustomObject extends KubernetesObject {
  readonly spec?: Record<string, unknown>;
  readonly status?: Record<string, unknown>;
}

/** Everything in the caches at one instant, frozen (arrays only: the objects themselves are shared, read-only). */
export interface ClusterSnapshot {
  readonly pods: readonly Pod[];
  readonly nodes: readonly Node[];
  readonly nodeClaims: readonly NodeClaim[];
  readonly nodePools: readonly CustomObject[];
  readonly nodeClasses: readonly CustomObject[];
  readonly daemonSets: readonly V1DaemonSet[];
  readonly pdbs: readonly V1PodDisruptionBudget[];
  /** The volume objects the scheduler reads for zonal volumes and attachment limits (scheduling/volumes.ts). */
  readonly persistentVolumeClaims: readonly KubernetesObject[];
  readonly persistentVolumes: readonly KubernetesObject[];
  readonly storageClasses: readonly KubernetesObject[];
  readonly csiNodes: readonly KubernetesObject[];
  /** Namespaces as name and labels: a pod-affinity term's namespaceSelector selects by them. */
  readonly namespaces: readonly KubernetesObject[];
  /** Present only when watched (selectorSources): Services and controllers, as name, namespace and selector. */
  readonly services?: readonly KubernetesObject[];
  readonly replicaSets?: readonly KubernetesObject[];
  readonly statefulSets?: readonly KubernetesObject[];
  readonly replicationControllers?: readonly KubernetesObject[];
}

export type ChangeVerb = "add" | "update" | "delete";
export type ChangeListener = (kind: Kind, verb: ChangeVerb, obj: KubernetesObject) => void;

/** Options; backoff and onError are passed to every informer. */
export interface ClusterStateOptions {
  readonly kubeConfig: KubeConfig;
  readonly backoff?: Backoff;
  readonly onError?: (kind: Kind, error: unknown) => void;
  /**
   * Watch Services, ReplicaSets, StatefulSets and ReplicationControllers (the operator
   * has default spread constraints).
   */
  readonly selectorSources?: boolean;
  /**
   * Watch karpenter.sh/v1alpha1 NodeOverlays (the NodeOverlay gate is on): then the state is synced only once
   * they are listed, so no decision is made without them. Off, the CRD need not be installed.
   */
  readonly nodeOverlays?: boolean;
}

/**
 * Cuts `obj` down, in place, to apiVersion, kind, the metadata fields named and the spec fields named
 * (none: no spec). In place because the informer applies a transform to watch events by mutation (its
 * return value is used for the initial list only).
 */
function keepOnly(obj: KubernetesObject, meta: readonly string[], spec: readonly string[]): KubernetesObject {
  const o = obj as unknown as Record<string, unknown>;
  // The object itself keeps its identity (the informer transforms in place);
  // what it holds is rebuilt (object-shape.ts).
  for (const key of Object.keys(o)) if (!["apiVersion", "kind", "metadata", "spec"].includes(key)) delete o[key];
  if (o["metadata"] !== undefined) o["metadata"] = onlyKeys(o["metadata"] as Record<string, unknown>, meta);
  const sp = o["spec"] as Record<string, unknown> | undefined;
  if (spec.length === 0 || sp === undefined) delete o["spec"];
  else o["spec"] = onlyKeys(sp, spec);
  return obj;
}

/**
 * A selector source as the cache keeps it: its name, namespace and uid, and its selector (a
 * ReplicaSet's template is large).
 */
function slimSelectorSource(obj: KubernetesObject): KubernetesObject {
  return keepOnly(obj, ["name", "namespace", "uid", "resourceVersion"], ["selector"]);
}

/** A Namespace as the cache keeps it: name, uid, resourceVersion and labels (what a namespaceSelector reads). */
function slimNamespace(obj: KubernetesObject): KubernetesObject {
  return keepOnly(obj, ["name", "uid", "resourceVersion", "labels"], []);
}

type AnyInformer = ResilientInformer<KubernetesObject>;

interface InformerSpec {
  readonly path: string;
  readonly list: () => Promise<unknown>;
  readonly transform: (obj: KubernetesObject) => KubernetesObject;
}

/**
 * The informers' paths and transforms. Every cached object is slimmed, then its string values are interned
 * in `strings` (one table for every kind): 10,000 Pods of a few Deployments otherwise hold 10,000 copies of
 * each label value, toleration, condition type, node name and timestamp (~15 MiB at 1,000 Nodes / 10,000 Pods).
 */
function specs(kc: KubeConfig, strings: Strings): Record<Kind, InformerSpec> {
  const at = (path: string, slim: InformerSpec["transform"] = slimObject): InformerSpec => {
    const transform = (obj: KubernetesObject): KubernetesObject => strings.intern(slim(obj));
    return { path, transform, list: () => pagedList(kc, path, { transform }) };
  };
  return {
    pods: at("/api/v1/pods", slimPod),
    nodes: at("/api/v1/nodes", slimNode),
    nodepools: at("/apis/karpenter.sh/v1/nodepools"),
    nodeclaims: at("/apis/karpenter.sh/v1/nodeclaims"),
    ec2nodeclasses: at("/apis/karpenter.k8s.aws/v1/ec2nodeclasses"),
    daemonsets: at("/apis/apps/v1/daemonsets"),
    pdbs: at("/apis/policy/v1/poddisruptionbudgets"),
    // Termination waits for a drained Node's CSI volumes to detach (behaviour §3.2).
    volumeattachments: at("/apis/storage.k8s.io/v1/volumeattachments"),
    // Zonal volumes and attachment limits (scheduling/volumes.ts): a pod goes where its claims' volumes can attach.
    persistentvolumeclaims: at("/api/v1/persistentvolumeclaims"),
    persistentvolumes: at("/api/v1/persistentvolumes"),
    storageclasses: at("/apis/storage.k8s.io/v1/storageclasses"),
    csinodes: at("/apis/storage.k8s.io/v1/csinodes"),
    // Pod affinity's namespaceSelector (scheduling/selector.ts) selects namespaces by their labels.
    namespaces: at("/api/v1/namespaces", slimNamespace),
    services: at("/api/v1/services", slimSelectorSource),
    replicasets: at("/apis/apps/v1/replicasets", slimSelectorSource),
    statefulsets: at("/apis/apps/v1/statefulsets", slimSelectorSource),
    replicationcontrollers: at("/api/v1/replicationcontrollers", slimSelectorSource),
    nodeoverlays: at("/apis/karpenter.sh/v1alpha1/nodeoverlays"),
  };
}

function failedByScheduler(pod: Pod): boolean {
  const scheduled = pod.status?.conditions?.find((c) => c.type === "PodScheduled");
  return scheduled?.status === "False" && scheduled.reason === "Unschedulable";
}

function boundOrNominated(pod: Pod): boolean {
  return (pod.spec?.nodeName ?? "") !== "" || (pod.status?.nominatedNodeName ?? "") !== "";
}

/**
 * Whether kube-scheduler has given up on the pod and Karpenter may act on it (behaviour §1.1); pods
 * asking for no Karpenter node are ignored silently. Cached pods are whole V1Pods, so they carry the
 * scheduling fields the narrow core Pod type leaves out.
 */
export function isProvisionable(pod: Pod): boolean {
  return (
    failedByScheduler(pod) &&
    !boundOrNominated(pod) &&
    pod.metadata?.deletionTimestamp === undefined &&
    !ownedByDaemonSetOrNode(pod) &&
    !optsOutOfKarpenter(pod as SchedulingPod)
  );
}

/** How long a created NodeClaim stays readable without the informer confirming it. */
const CREATED_TTL_MS = 60_000;

/** The informer-backed cluster state. */
export class ClusterState {
  private readonly informers = new Map<Kind, AnyInformer>();
  private readonly listeners: ChangeListener[] = [];
  private readonly dirty = new Set<Kind>(KINDS);
  /** NodeClaims this process created that the informer has not delivered yet (name → object, performance.now()). */
  private readonly created = new Map<string, { readonly obj: NodeClaim; readonly at: number }>();
  private nodeClaimIndex = new Map<string, NodeClaim>();
  private nodeIndex = new Map<string, Node>();
  private podIndex = new Map<string, Pod[]>();

  constructor(options: ClusterStateOptions) {
    const strings = new Strings();
    for (const [kind, spec] of Object.entries(specs(options.kubeConfig, strings)) as [Kind, InformerSpec][]) {
      if (SELECTOR_KINDS.has(kind) && options.selectorSources !== true) continue;
      if (kind === "nodeoverlays" && options.nodeOverlays !== true) continue;
      const informer = new ResilientInformer<KubernetesObject>({
        kubeConfig: options.kubeConfig,
        path: spec.path,
        list: spec.list as never,
        transform: spec.transform,
        ...(options.backoff === undefined ? {} : { backoff: options.backoff }),
        onError: (error) => options.onError?.(kind, error),
      });
      for (const verb of ["add", "update", "delete"] as const)
        informer.on(verb, (obj) => this.observed(kind, verb, obj));
      this.informers.set(kind, informer);
    }
  }

  /** Subscribes to every change of every kind (after the caches have applied it). */
  onChange(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  /** Starts every informer; resolves after each has made its first attempt. */
  async start(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.start()));
  }
  async stop(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }

  /** True once every informer has listed at least once (Karpenter's state-sync gate, §1.3). */
  get synced(): boolean {
    return [...this.informers.values()].every((i) => i.synced);
  }
  /** Which kinds have not synced yet (for logs and /readyz). */
  unsynced(): Kind[] {
    return KINDS.filter((k) => this.informers.get(k)?.synced !== true);
  }

  pods(): readonly Pod[] {
    return this.list<Pod>("pods");
  }
  nodes(): readonly Node[] {
    return this.list<Node>("nodes");
  }
  nodeClaims(): readonly NodeClaim[] {
    return this.withCreated(this.list<NodeClaim>("nodeclaims"));
  }
  nodePools(): readonly CustomObject[] {
    return this.list<CustomObject>("nodepools");
  }
  nodeClasses(): readonly CustomObject[] {
    return this.list<CustomObject>("ec2nodeclasses");
  }
  daemonSets(): readonly V1DaemonSet[] {
    return this.list<V1DaemonSet>("daemonsets");
  }
  pdbs(): readonly V1PodDisruptionBudget[] {
    return this.list<V1PodDisruptionBudget>("pdbs");
  }
  volumeAttachments(): readonly V1VolumeAttachment[] {
    return this.list<V1VolumeAttachment>("volumeattachments");
  }
  /** NodeOverlays (empty unless watched: ClusterStateOptions.nodeOverlays). */
  nodeOverlays(): readonly CustomObject[] {
    return this.list<CustomObject>("nodeoverlays");
  }

  pod(namespace: string, name: string): Pod | undefined {
    return this.informers.get("pods")?.get(name, namespace) as unknown as Pod | undefined;
  }
  node(name: string): Node | undefined {
    return this.informers.get("nodes")?.get(name) as unknown as Node | undefined;
  }
  nodeClaim(name: string): NodeClaim | undefined {
    return (
      (this.informers.get("nodeclaims")?.get(name) as unknown as NodeClaim | undefined) ?? this.created.get(name)?.obj
    );
  }

  /**
   * Write-through for a NodeClaim this process just created: readable at once and announced to the
   * change listeners as an "add", so its launch starts without waiting for the watch to deliver it
   * and garbage collection never mistakes its instance for an orphan. The informer's first event
   * for the name replaces it; an entry the informer never confirms expires after a minute.
   */
  recordCreated(nodeClaim: NodeClaim): void {
    const name = nodeClaim.metadata?.name ?? "";
    if (name === "" || this.informers.get("nodeclaims")?.get(name) !== undefined) return;
    this.created.set(name, { obj: nodeClaim, at: performance.now() });
    this.changed("nodeclaims", "add", nodeClaim as KubernetesObject);
  }
  nodePool(name: string): CustomObject | undefined {
    return this.informers.get("nodepools")?.get(name) as CustomObject | undefined;
  }
  nodeClass(name: string): CustomObject | undefined {
    return this.informers.get("ec2nodeclasses")?.get(name) as CustomObject | undefined;
  }

  /** The NodeClaim whose status.providerID is `providerID`. */
  nodeClaimByProviderID(providerID: string): NodeClaim | undefined {
    this.reindex();
    return this.nodeClaimIndex.get(providerID);
  }
  /** The Node whose spec.providerID is `providerID`. */
  nodeByProviderID(providerID: string): Node | undefined {
    this.reindex();
    return this.nodeIndex.get(providerID);
  }
  /** Pods bound to `nodeName`. */
  podsOnNode(nodeName: string): readonly Pod[] {
    this.reindex();
    return this.podIndex.get(nodeName) ?? [];
  }

  /**
   * Pods the provisioner should consider (PodScheduled=False/Unschedulable, unbound, not
   * nominated, not DaemonSet/mirror).
   */
  pendingPods(): Pod[] {
    return this.pods().filter(isProvisionable);
  }

  /** Every cached object of `kind` (for the controller manager's resync). */
  objects(kind: Kind): readonly KubernetesObject[] {
    return kind === "nodeclaims"
      ? (this.nodeClaims() as readonly KubernetesObject[])
      : this.list<KubernetesObject>(kind);
  }

  /** A frozen copy of the caches for the pure core. */
  snapshot(): ClusterSnapshot {
    return Object.freeze({
      pods: Object.freeze([...this.pods()]),
      nodes: Object.freeze([...this.nodes()]),
      nodeClaims: Object.freeze([...this.nodeClaims()]),
      nodePools: Object.freeze([...this.nodePools()]),
      nodeClasses: Object.freeze([...this.nodeClasses()]),
      daemonSets: Object.freeze([...this.daemonSets()]),
      pdbs: Object.freeze([...this.pdbs()]),
      persistentVolumeClaims: Object.freeze([...this.list<KubernetesObject>("persistentvolumeclaims")]),
      persistentVolumes: Object.freeze([...this.list<KubernetesObject>("persistentvolumes")]),
      storageClasses: Object.freeze([...this.list<KubernetesObject>("storageclasses")]),
      csiNodes: Object.freeze([...this.list<KubernetesObject>("csinodes")]),
      namespaces: Object.freeze([...this.list<KubernetesObject>("namespaces")]),
      ...(this.informers.has("services")
        ? {
            services: Object.freeze([...this.list<KubernetesObject>("services")]),
            replicaSets: Object.freeze([...this.list<KubernetesObject>("replicasets")]),
            statefulSets: Object.freeze([...this.list<KubernetesObject>("statefulsets")]),
            replicationControllers: Object.freeze([...this.list<KubernetesObject>("replicationcontrollers")]),
          }
        : {}),
    });
  }

  private list<T>(kind: Kind): readonly T[] {
    return (this.informers.get(kind)?.list() ?? []) as unknown as readonly T[];
  }

  private withCreated(cached: readonly NodeClaim[]): readonly NodeClaim[] {
    if (this.created.size === 0) return cached;
    const now = performance.now();
    for (const [name, { at }] of this.created) if (now - at > CREATED_TTL_MS) this.created.delete(name);
    return [...cached, ...[...this.created.values()].map((c) => c.obj)];
  }

  private observed(kind: Kind, verb: ChangeVerb, obj: KubernetesObject): void {
    if (kind === "nodeclaims") this.created.delete(obj.metadata?.name ?? "");
    this.changed(kind, verb, obj);
  }

  private changed(kind: Kind, verb: ChangeVerb, obj: KubernetesObject): void {
    this.dirty.add(kind);
    for (const l of this.listeners) l(kind, verb, obj);
  }

  private reindex(): void {
    if (this.dirty.delete("nodeclaims")) this.nodeClaimIndex = byKey(this.nodeClaims(), (nc) => nc.status?.providerID);
    if (this.dirty.delete("nodes")) this.nodeIndex = byKey(this.nodes(), (n) => n.spec?.providerID);
    if (this.dirty.delete("pods")) {
      const index = new Map<string, Pod[]>();
      for (const pod of this.pods()) {
        const node = pod.spec?.nodeName;
        if (node === undefined || node === "") continue;
        const onNode = index.get(node);
        if (onNode === undefined) index.set(node, [pod]);
        else onNode.push(pod);
      }
      this.podIndex = index;
    }
  }
}

function byKey<T>(items: readonly T[], key: (t: T) => string | undefined): Map<string, T> {
  const out = new Map<string, T>();
  for (const item of items) {
    const k = key(item);
    if (k !== undefined && k !== "") out.set(k, item);
  }
  return out;
}

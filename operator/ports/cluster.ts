/**
 * The cluster port: what controllers read from the informer caches and write to the apiserver. Implemented by
 * adapters/kube/kube-cluster.ts.
 */
import type { Condition, Node, NodeClaim, OwnerReference, Pod, Quantities, Taint } from "../core/lifecycle/objects.ts";
import type { ClusterView, NodeClaimManifest } from "../core/provisioning/plan.ts";
import type { ClaimRef, VolumeAttachmentLike } from "../core/termination/volume-detach.ts";

/** A NodePool or EC2NodeClass as raw custom-object JSON. */
export interface CustomObjectLike {
  readonly metadata?:
    | {
        readonly name?: string | undefined;
        readonly uid?: string | undefined;
        readonly resourceVersion?: string | undefined;
        readonly generation?: number | undefined;
        readonly annotations?: Readonly<Record<string, string>> | undefined;
      }
    | undefined;
  readonly spec?: Readonly<Record<string, unknown>> | undefined;
  readonly status?: Readonly<Record<string, unknown>> | undefined;
}

/** Cache reads; every method answers from memory and never throws. */
export interface ClusterReader {
  readonly synced: boolean;
  nodeClaim(name: string): NodeClaim | undefined;
  nodeClaims(): readonly NodeClaim[];
  node(name: string): Node | undefined;
  nodes(): readonly Node[];
  nodeByProviderID(providerID: string): Node | undefined;
  nodeClaimByProviderID(providerID: string): NodeClaim | undefined;
  podsOnNode(nodeName: string): readonly Pod[];
  /** storage.k8s.io/v1 VolumeAttachments whose spec.nodeName is `nodeName`. */
  volumeAttachmentsOnNode(nodeName: string): readonly VolumeAttachmentLike[];
  pod(namespace: string, name: string): Pod | undefined;
  pods(): readonly Pod[];
  nodePool(name: string): CustomObjectLike | undefined;
  nodePools(): readonly CustomObjectLike[];
  nodeClass(name: string): CustomObjectLike | undefined;
  /** Pods kube-scheduler failed that Karpenter may act on (behaviour §1.1). */
  pendingPods(): readonly Pod[];
  /** Whether one pod is provisionable (the rule pendingPods() applies). */
  isProvisionable(pod: Pod): boolean;
  /** Every cached object the provisioning plan reads, at one instant. */
  snapshot(): ClusterView;
  /**
   * True exactly once per NodeClaim uid that this process created (later calls, other processes and
   * other NodeClaims answer false): before the first launch attempt for such a NodeClaim no instance
   * can exist for it, so the launch may skip looking for an earlier one.
   */
  takeUnlaunched(uid: string): boolean;
}

/** The NodeClaim status fields the lifecycle writes. */
export interface NodeClaimStatusPatch {
  readonly providerID?: string;
  readonly imageID?: string;
  readonly lastPodEventTime?: string;
  readonly nodeName?: string;
  readonly capacity?: Quantities;
  readonly allocatable?: Quantities;
  readonly conditions?: readonly Condition[];
}

/** NodeClaim metadata fields controllers write (merge patch: a null annotation value removes the key). */
export interface NodeClaimMetadataPatch {
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string | null>>;
  readonly finalizers?: readonly string[];
}

/** Node fields registration and termination write (each a full desired value). */
export interface NodePatch {
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly taints?: readonly Taint[];
  readonly finalizers?: readonly string[];
  readonly ownerReferences?: readonly OwnerReference[];
}

/** The answer of the Eviction API for one pod. */
export type EvictionOutcome = "evicted" | "gone" | "blocked";

/**
 * Writes. Every patch carries the object's resourceVersion (optimistic lock): a stale cache makes it
 * throw a conflict (ConflictError/InvalidError from adapters/kube/client.ts) that the runtime requeues.
 * Deletes and finalizer removals of objects already gone succeed.
 */
export interface ClusterWriter {
  /**
   * Creates a NodeClaim (metadata.generateName names it) and returns it as stored. Read-your-own-
   * creates: from the moment this resolves, nodeClaim(name), nodeClaims() and snapshot() include it,
   * also while the informer has not delivered it yet.
   */
  createNodeClaim(manifest: NodeClaimManifest): Promise<NodeClaim>;
  patchNodeClaimStatus(nodeClaim: NodeClaim, status: NodeClaimStatusPatch): Promise<void>;
  /** Merge-patches labels, annotations (a null value removes the key) and finalizers. */
  patchNodeClaimMetadata(nodeClaim: NodeClaim, meta: NodeClaimMetadataPatch): Promise<void>;
  removeNodeClaimFinalizer(nodeClaim: NodeClaim, finalizer: string): Promise<void>;
  deleteNodeClaim(name: string): Promise<void>;
  patchNode(node: Node, patch: NodePatch): Promise<void>;
  removeNodeFinalizer(node: Node, finalizer: string): Promise<void>;
  deleteNode(name: string): Promise<void>;
  /** Evicts through the Eviction API; 429 (PDB) and "multiple PDBs" 500 answer "blocked". */
  evictPod(pod: Pod): Promise<EvictionOutcome>;
  /** Deletes directly (bypassing PDBs) with the given grace period. */
  deletePod(pod: Pod, graceSeconds: number): Promise<void>;
  patchNodePoolStatus(nodePool: CustomObjectLike, status: Readonly<Record<string, unknown>>): Promise<void>;
  /** Merge-patches the given NodePool annotations (other keys are kept). */
  patchNodePoolAnnotations(nodePool: CustomObjectLike, annotations: Readonly<Record<string, string>>): Promise<void>;
  /** Merge-patches an EC2NodeClass's status (no lock: the nodeclass controller owns the whole status). */
  patchNodeClassStatus(name: string, status: unknown): Promise<void>;
}

/**
 * EC2NodeClass finalizer writes (the nodeclass controller's). Adding is locked to the object's
 * resourceVersion (a stale cache throws a conflict the runtime requeues); removing from an object
 * that is already gone, or lacks the finalizer, succeeds.
 */
export interface NodeClassFinalizerWriter {
  addNodeClassFinalizer(nodeClass: FinalizedObject, finalizer: string): Promise<void>;
  removeNodeClassFinalizer(nodeClass: FinalizedObject, finalizer: string): Promise<void>;
}

/** The metadata a finalizer write reads. */
export interface FinalizedObject {
  readonly metadata?:
    | {
        readonly name?: string | undefined;
        readonly resourceVersion?: string | undefined;
        readonly finalizers?: readonly string[] | undefined;
      }
    | undefined;
}

/** Reads not served from the caches: each is an apiserver request and may throw a KubeApiError. */
export interface ClusterLookups {
  /**
   * The PersistentVolume names bound to `claims` (one GET each); claims that do not exist or
   * are not bound yet are left out.
   */
  persistentVolumeNames(claims: readonly ClaimRef[]): Promise<ReadonlySet<string>>;
}

/** Reads and writes together, as controllers receive them. */
export type Cluster = ClusterReader & ClusterWriter & ClusterLookups;

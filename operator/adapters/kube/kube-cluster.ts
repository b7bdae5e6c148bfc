/**
 * The cluster port over the apiserver: reads from ClusterState, writes NodeClaims/NodePools via
 * CustomObjectsApi and Nodes/Pods via NodeOperations.
 */
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import type { Node, NodeClaim, Pod } from "../../core/lifecycle/objects.ts";
import { toIso } from "../../core/lifecycle/objects.ts";
import type { ClusterView, NodeClaimManifest } from "../../core/provisioning/plan.ts";
import type { ClaimRef, VolumeAttachmentLike } from "../../core/termination/volume-detach.ts";
import type {
  Cluster,
  CustomObjectLike,
  EvictionOutcome,
  NodeClaimMetadataPatch,
  NodeClaimStatusPatch,
  NodePatch,
} from "../../ports/cluster.ts";
import { kube, kubeIgnoreNotFound, mergePatch } from "./client.ts";
import { isProvisionable, type ClusterState } from "./cluster-state.ts";
import { NodeOperations, finalizerRemoval } from "./eviction.ts";

const NODECLAIMS = { group: "karpenter.sh", version: "v1", plural: "nodeclaims" } as const;
const NODECLASSES = { group: "karpenter.k8s.aws", version: "v1", plural: "ec2nodeclasses" } as const;
const NODEPOOLS = { group: "karpenter.sh", version: "v1", plural: "nodepools" } as const;

function isoConditions(status: NodeClaimStatusPatch): NodeClaimStatusPatch {
  if (status.conditions === undefined) return status;
  return {
    ...status,
    conditions: status.conditions.map((c) => ({ ...c, lastTransitionTime: toIso(c.lastTransitionTime) })),
  };
}

/** Cluster reads and writes for controllers. */
export class KubeCluster implements Cluster {
  private readonly state: ClusterState;
  /** Uids of NodeClaims created here whose first launch attempt has not started. */
  private readonly unlaunched = new Set<string>();
  private readonly custom: CustomObjectsApi;
  private readonly nodesOps: NodeOperations;
  private readonly core: CoreV1Api;

  constructor(kubeConfig: KubeConfig, state: ClusterState) {
    this.state = state;
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.nodesOps = new NodeOperations(this.core);
  }

  get synced(): boolean {
    return this.state.synced;
  }
  nodeClaim(name: string): NodeClaim | undefined {
    return this.state.nodeClaim(name);
  }
  nodeClaims(): readonly NodeClaim[] {
    return this.state.nodeClaims();
  }
  node(name: string): Node | undefined {
    return this.state.node(name);
  }
  nodes(): readonly Node[] {
    return this.state.nodes();
  }
  nodeByProviderID(providerID: string): Node | undefined {
    return this.state.nodeByProviderID(providerID);
  }
  nodeClaimByProviderID(providerID: string): NodeClaim | undefined {
    return this.state.nodeClaimByProviderID(providerID);
  }
  podsOnNode(nodeName: string): readonly Pod[] {
    return this.state.podsOnNode(nodeName);
  }
  volumeAttachmentsOnNode(nodeName: string): readonly VolumeAttachmentLike[] {
    return this.state.volumeAttachments().filter((va) => va.spec?.nodeName === nodeName);
  }

  async persistentVolumeNames(claims: readonly ClaimRef[]): Promise<ReadonlySet<string>> {
    const read = (c: ClaimRef) =>
      kubeIgnoreNotFound(`reading persistentvolumeclaim ${c.namespace}/${c.name}`, () =>
        this.core.readNamespacedPersistentVolumeClaim(c),
      );
    const pvcs = await Promise.all(claims.map(read));
    return new Set(pvcs.map((pvc) => pvc?.spec?.volumeName ?? "").filter((v) => v !== ""));
  }
  pod(namespace: string, name: string): Pod | undefined {
    return this.state.pod(namespace, name);
  }
  pods(): readonly Pod[] {
    return this.state.pods();
  }
  nodePool(name: string): CustomObjectLike | undefined {
    return this.state.nodePool(name);
  }
  nodeClass(name: string): CustomObjectLike | undefined {
    return this.state.nodeClass(name);
  }
  nodePools(): readonly CustomObjectLike[] {
    return this.state.nodePools();
  }
  pendingPods(): readonly Pod[] {
    return this.state.pendingPods();
  }
  isProvisionable(pod: Pod): boolean {
    return isProvisionable(pod);
  }
  snapshot(): ClusterView {
    return this.state.snapshot();
  }
  takeUnlaunched(uid: string): boolean {
    return this.unlaunched.delete(uid);
  }

  async createNodeClaim(manifest: NodeClaimManifest): Promise<NodeClaim> {
    const created = await kube(
      `creating a nodeclaim for nodepool ${manifest.metadata.labels["karpenter.sh/nodepool"] ?? ""}`,
      async () => (await this.custom.createClusterCustomObject({ ...NODECLAIMS, body: manifest })) as NodeClaim,
    );
    this.state.recordCreated(created);
    if (this.unlaunched.size > 10_000) this.unlaunched.clear();
    if (created.metadata?.uid !== undefined) this.unlaunched.add(created.metadata.uid);
    return created;
  }

  async patchNodeClaimStatus(nodeClaim: NodeClaim, status: NodeClaimStatusPatch): Promise<void> {
    const name = nodeClaim.metadata?.name ?? "";
    const body = { metadata: { resourceVersion: nodeClaim.metadata?.resourceVersion }, status: isoConditions(status) };
    await kube(`patching status of nodeclaim ${name}`, () =>
      this.custom.patchClusterCustomObjectStatus({ ...NODECLAIMS, name, body }, mergePatch),
    );
  }

  async patchNodeClaimMetadata(nodeClaim: NodeClaim, meta: NodeClaimMetadataPatch): Promise<void> {
    const name = nodeClaim.metadata?.name ?? "";
    const body = { metadata: { resourceVersion: nodeClaim.metadata?.resourceVersion, ...meta } };
    await kube(`patching nodeclaim ${name}`, () =>
      this.custom.patchClusterCustomObject({ ...NODECLAIMS, name, body }, mergePatch),
    );
  }

  async removeNodeClaimFinalizer(nodeClaim: NodeClaim, finalizer: string): Promise<void> {
    const name = nodeClaim.metadata?.name ?? "";
    const body = finalizerRemoval(nodeClaim.metadata?.finalizers ?? [], finalizer);
    if (body === undefined) return;
    await kubeIgnoreNotFound(`removing finalizer from nodeclaim ${name}`, () =>
      this.custom.patchClusterCustomObject({ ...NODECLAIMS, name, body }),
    );
  }

  async deleteNodeClaim(name: string): Promise<void> {
    await kubeIgnoreNotFound(`deleting nodeclaim ${name}`, () =>
      this.custom.deleteClusterCustomObject({ ...NODECLAIMS, name }),
    );
  }

  patchNode(node: Node, patch: NodePatch): Promise<void> {
    return this.nodesOps.patchNode(node, patch);
  }
  removeNodeFinalizer(node: Node, finalizer: string): Promise<void> {
    return this.nodesOps.removeNodeFinalizer(node, finalizer);
  }
  deleteNode(name: string): Promise<void> {
    return this.nodesOps.deleteNode(name);
  }
  evictPod(pod: Pod): Promise<EvictionOutcome> {
    return this.nodesOps.evictPod(pod);
  }
  deletePod(pod: Pod, graceSeconds: number): Promise<void> {
    return this.nodesOps.deletePod(pod, graceSeconds);
  }

  async patchNodePoolStatus(nodePool: CustomObjectLike, status: Readonly<Record<string, unknown>>): Promise<void> {
    const name = nodePool.metadata?.name ?? "";
    const body = { metadata: { resourceVersion: nodePool.metadata?.resourceVersion }, status };
    // A NodePool deleted since the cache saw it has no status to keep: 404 ends that work, it is no failure.
    await kubeIgnoreNotFound(`patching status of nodepool ${name}`, () =>
      this.custom.patchClusterCustomObjectStatus({ ...NODEPOOLS, name, body }, mergePatch),
    );
  }

  async patchNodePoolAnnotations(
    nodePool: CustomObjectLike,
    annotations: Readonly<Record<string, string>>,
  ): Promise<void> {
    const name = nodePool.metadata?.name ?? "";
    // Locked: a hash computed from a stale spec must not land on a NodePool that changed since.
    const body = { metadata: { resourceVersion: nodePool.metadata?.resourceVersion, annotations } };
    await kube(`annotating nodepool ${name}`, () =>
      this.custom.patchClusterCustomObject({ ...NODEPOOLS, name, body }, mergePatch),
    );
  }

  async patchNodeClassStatus(name: string, status: unknown): Promise<void> {
    await kubeIgnoreNotFound(`patching status of ec2nodeclass ${name}`, () =>
      this.custom.patchClusterCustomObjectStatus({ ...NODECLASSES, name, body: { status } }, mergePatch),
    );
  }
}

/**
 * Garbage-collection decisions (pure): instances of this cluster that no NodeClaim holds and that
 * launched more than 30 s ago are terminated, with their Nodes; NodeClaims whose instance is gone are
 * deleted; Nodes kerf launched that no NodeClaim holds go once their instance is gone or terminating.
 */
import { Label } from "../../../policies/domain/labels.ts";
import type { Node } from "../../core/lifecycle/objects.ts";
import { Keys } from "../../core/lifecycle/registration.ts";
import type { CloudInstance } from "../../ports/cloud-provider.ts";

/** Karpenter's grace for a fresh instance whose NodeClaim status is not written yet. */
export const MIN_INSTANCE_AGE_MS = 30_000;

/** The NodeClaim fields GC reads. */
export interface GcNodeClaim {
  readonly name: string;
  readonly providerID?: string | undefined;
  /** The Node behind it is Ready: never delete such a claim, the list may be stale. */
  readonly nodeReady?: boolean | undefined;
  readonly deleting?: boolean | undefined;
}

/** The Node fields GC reads. */
export interface GcNode {
  readonly name: string;
  readonly providerID: string;
  /**
   * Launched for a NodeClaim: it carries the karpenter.sh/unregistered taint (from the launch's user
   * data) or the karpenter.sh/nodepool label (from registration). Other Nodes are never touched.
   */
  readonly launchedForNodeClaim: boolean;
  readonly deleting?: boolean | undefined;
}

/** The GC view of a Node. */
export function gcNode(node: Node): GcNode {
  const launched =
    (node.spec?.taints ?? []).some((t) => t.key === Keys.unregisteredTaint) ||
    node.metadata?.labels?.[Label.nodePool] !== undefined;
  return {
    name: node.metadata?.name ?? "",
    providerID: node.spec?.providerID ?? "",
    launchedForNodeClaim: launched,
    deleting: node.metadata?.deletionTimestamp !== undefined,
  };
}

/** A Node to delete, with the instance it stood for. */
export interface GcNodeDeletion {
  readonly name: string;
  readonly providerID: string;
  readonly reason: "orphaned-instance-terminated" | "instance-terminating";
}

/** What to do. */
export interface GcPlan {
  readonly terminate: readonly CloudInstance[];
  readonly deleteNodeClaims: readonly string[];
  /**
   * Nodes of instances terminated now or already terminating; delete one only once its
   * instance's termination went through.
   */
  readonly deleteNodes: readonly GcNodeDeletion[];
  /**
   * Nodes whose instance is not listed (terminated, or never one of this cluster's):
   * delete each the cloud confirms gone.
   */
  readonly verifyNodes: readonly GcNode[];
}

/**
 * Inputs: NodeClaims and Nodes read BEFORE the instances are listed, so a claim launched in between
 * is never judged against a stale list, and every Node's instance existed when the list was taken.
 */
export interface GcInput {
  readonly instances: readonly CloudInstance[];
  readonly nodeClaims: readonly GcNodeClaim[];
  readonly nodes?: readonly GcNode[];
  readonly now: Date;
  readonly minInstanceAgeMs?: number;
}

const instanceIdOf = (providerID: string): string => providerID.split("/").at(-1) ?? "";

function orphaned(instance: CloudInstance, held: ReadonlySet<string>, launching: ReadonlySet<string>): boolean {
  // A claim that exists by name but has no providerID yet may be mid-launch (or relaunching
  // after a crash): keep its instance.
  // One whose claim recorded another instance is a duplicate (e.g. a CreateFleet retried
  // after a lost answer): an orphan.
  return !held.has(instance.providerID) && !held.has(instance.instanceID) && !launching.has(instance.nodeClaimName);
}

function nodeDecisions(
  nodes: readonly GcNode[],
  held: ReadonlySet<string>,
  instances: readonly CloudInstance[],
  terminate: readonly CloudInstance[],
): Pick<GcPlan, "deleteNodes" | "verifyNodes"> {
  const byId = new Map(instances.map((i) => [i.instanceID, i]));
  const terminated = new Set(terminate.map((i) => i.instanceID));
  const deleteNodes: GcNodeDeletion[] = [];
  const verifyNodes: GcNode[] = [];
  for (const node of nodes) {
    const id = instanceIdOf(node.providerID);
    if (
      !node.launchedForNodeClaim ||
      node.deleting === true ||
      !node.providerID.startsWith("aws:///") ||
      held.has(node.providerID) ||
      held.has(id)
    )
      continue;
    const instance = byId.get(id);
    if (instance === undefined) verifyNodes.push(node);
    else if (terminated.has(id))
      deleteNodes.push({ name: node.name, providerID: node.providerID, reason: "orphaned-instance-terminated" });
    else if (instance.state === "shutting-down")
      deleteNodes.push({ name: node.name, providerID: node.providerID, reason: "instance-terminating" });
    // Otherwise its instance runs: a NodeClaim may still record it, or it becomes an orphan GC terminates later.
  }
  return { deleteNodes, verifyNodes };
}

/** Decides which instances to terminate and which NodeClaims and Nodes to delete. */
export function planGarbageCollection(input: GcInput): GcPlan {
  const minAge = input.minInstanceAgeMs ?? MIN_INSTANCE_AGE_MS;
  const held = new Set<string>();
  for (const c of input.nodeClaims) {
    if (c.providerID === undefined || c.providerID === "") continue;
    held.add(c.providerID);
    held.add(instanceIdOf(c.providerID));
  }
  const launching = new Set(
    input.nodeClaims.filter((c) => c.providerID === undefined || c.providerID === "").map((c) => c.name),
  );
  const terminate = input.instances.filter(
    (i) =>
      i.state !== "shutting-down" &&
      orphaned(i, held, launching) &&
      input.now.getTime() - i.launchTime.getTime() > minAge,
  );
  const live = new Set(input.instances.flatMap((i) => [i.providerID, i.instanceID]));
  const deleteNodeClaims = input.nodeClaims
    .filter((c) => c.providerID !== undefined && c.providerID !== "" && c.deleting !== true && c.nodeReady !== true)
    .filter((c) => !live.has(c.providerID ?? "") && !live.has(instanceIdOf(c.providerID ?? "")))
    .map((c) => c.name);
  return { terminate, deleteNodeClaims, ...nodeDecisions(input.nodes ?? [], held, input.instances, terminate) };
}

/** Requeue interval: every 10 s for the first 20 runs after start, then every 2 min (Karpenter's AWS GC). */
export function gcInterval(run: number): number {
  return run < 20 ? 10_000 : 120_000;
}

/**
 * Node finalizer: a Node carrying karpenter.sh/termination that someone deletes hands off to its NodeClaim's
 * termination; an orphan Node just loses the finalizer.
 */
import type { Node } from "../../core/lifecycle/objects.ts";
import { Keys } from "../../core/lifecycle/registration.ts";
import type { Cluster } from "../../ports/cluster.ts";
import type { Result } from "../runtime.ts";

function beingDeletedWithFinalizer(node: Node | undefined): node is Node {
  const meta = node?.metadata;
  return meta?.deletionTimestamp !== undefined && (meta.finalizers ?? []).includes(Keys.finalizer);
}

/** Reconciles the Node called `name`. */
export async function reconcileNodeDeletion(cluster: Cluster, name: string): Promise<Result> {
  const node = cluster.node(name);
  if (!beingDeletedWithFinalizer(node)) return {};
  const nodeClaim = cluster.nodeClaimByProviderID(String(node.spec?.providerID));
  if (nodeClaim === undefined) {
    await cluster.removeNodeFinalizer(node, Keys.finalizer);
    return {};
  }
  // The NodeClaim's termination drains, terminates the instance and removes this Node's finalizer.
  if (nodeClaim.metadata?.deletionTimestamp === undefined)
    await cluster.deleteNodeClaim(nodeClaim.metadata?.name ?? "");
  return {};
}

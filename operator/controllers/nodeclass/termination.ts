/**
 * EC2NodeClass termination (Karpenter's nodeclass termination controller): a deleted node class
 * keeps the `karpenter.k8s.aws/termination` finalizer while any NodeClaim still references it; then
 * its managed instance profile and its launch templates are deleted and the finalizer removed.
 */
import type { EC2NodeClassLike } from "../../core/launch-template/node-class.ts";
import { waitingOnNodeClaimTermination, type EventRecorder } from "../../observability/events.ts";
import type { NodeClassFinalizerWriter } from "../../ports/cluster.ts";
import type { NodeClassCloud } from "../../ports/node-class-cloud.ts";
import type { Result } from "../runtime.ts";

/** The finalizer kerf puts on every EC2NodeClass. */
export const NODE_CLASS_FINALIZER = "karpenter.k8s.aws/termination";

/** How often a deleted node class re-checks its NodeClaims besides their delete events. */
export const NODE_CLASS_TERMINATION_RECHECK_MS = 30_000;

/** What termination needs. */
export interface NodeClassTerminationDeps {
  readonly cloud: Pick<NodeClassCloud, "deleteResources">;
  readonly finalizers: NodeClassFinalizerWriter;
  /** Names of the NodeClaims (deleting or not) whose nodeClassRef names this node class. */
  readonly nodeClaimsOf: (nodeClassName: string) => readonly string[];
  readonly events: EventRecorder;
}

/** One termination pass; throws "doing X: cause" when a cloud delete fails (the runtime backs off and retries). */
export async function finalizeNodeClass(deps: NodeClassTerminationDeps, nodeClass: EC2NodeClassLike): Promise<Result> {
  if (!(nodeClass.metadata.finalizers ?? []).includes(NODE_CLASS_FINALIZER)) return {};
  const claims = deps.nodeClaimsOf(nodeClass.metadata.name);
  if (claims.length > 0) {
    deps.events.publish(waitingOnNodeClaimTermination({ metadata: nodeClass.metadata }, [...claims].sort()));
    return { requeueAfter: NODE_CLASS_TERMINATION_RECHECK_MS };
  }
  await deps.cloud.deleteResources(nodeClass);
  await deps.finalizers.removeNodeClassFinalizer(nodeClass, NODE_CLASS_FINALIZER);
  return {};
}

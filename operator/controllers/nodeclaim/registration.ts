/**
 * Registration: finds the Node with the NodeClaim's providerID, syncs labels/taints/finalizer/ownerRef onto
 * it, then sets Registered=True and status.nodeName.
 */
import type { Node, NodeClaim } from "../../core/lifecycle/objects.ts";
import { isTrue } from "../../core/lifecycle/objects.ts";
import { registrationSync } from "../../core/lifecycle/registration.ts";
import { zoneOf } from "../../core/metrics/nodeclaims.ts";
import { unregisteredTaintMissing } from "../../observability/events.ts";
import { nameOf, poolLabels, withCondition, type NodeClaimDeps, type StepResult } from "./deps.ts";

/** The Node behind a NodeClaim, by providerID. */
export function nodeFor(deps: NodeClaimDeps, nodeClaim: NodeClaim): Node | undefined {
  const providerID = nodeClaim.status?.providerID ?? "";
  return providerID === "" ? undefined : deps.cluster.nodeByProviderID(providerID);
}

/** Runs the registration step; undefined when registered, or when no Node has joined yet (liveness decides). */
export async function register(deps: NodeClaimDeps, nodeClaim: NodeClaim): Promise<StepResult> {
  if (isTrue(nodeClaim.status?.conditions, "Registered")) return undefined;
  const node = nodeFor(deps, nodeClaim);
  if (node === undefined) return undefined;
  const sync = registrationSync(nodeClaim, node);
  if (sync.changed) {
    if (sync.unregisteredTaintMissing) deps.events.publish(unregisteredTaintMissing(nodeClaim));
    await deps.cluster.patchNode(node, {
      labels: sync.labels,
      taints: sync.taints,
      finalizers: sync.finalizers,
      ownerReferences: sync.ownerReferences,
    });
    return {};
  }
  const conditions = withCondition(deps, nodeClaim, { type: "Registered", status: "True", reason: "Registered" });
  await deps.cluster.patchNodeClaimStatus(nodeClaim, { nodeName: nameOf(node), conditions });
  deps.metrics.nodesCreated.inc({ nodepool: poolLabels(nodeClaim).nodepool, zone: zoneOf(node) });
  deps.logger.info({ nodeclaim: nameOf(nodeClaim), node: nameOf(node) }, "registered nodeclaim");
  return {};
}

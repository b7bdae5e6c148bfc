/**
 * node.health (gate NodeRepair): replaces Nodes that stay unhealthy past their repair policy's toleration by
 * deleting their NodeClaim, forcefully (termination timestamp now), unless too many of the NodePool's Nodes
 * are unhealthy (core/repair/policy.ts decides). Level-based: a kill between the annotation and the delete
 * leaves an annotated NodeClaim the next pass deletes; a deleting NodeClaim is left alone.
 */
import { parseDuration } from "../../../policies/domain/duration.ts";
import { Keys } from "../../core/lifecycle/registration.ts";
import type { Node, NodeClaim } from "../../core/lifecycle/objects.ts";
import { repairDecision, type UnhealthyCondition } from "../../core/repair/policy.ts";
import { disrupted, nodeRepairBlocked } from "../../observability/events.ts";
import type { Result } from "../runtime.ts";
import { nameOf, poolLabels, type NodeClaimDeps } from "../nodeclaim/deps.ts";

/** Re-checked at least this often, so a long toleration survives clock steps. */
const MAX_WAIT_MS = 60 * 60_000;

/** Karpenter's termination_mode label: graceful without a terminationGracePeriod, forceful at 0, else eventual. */
function terminationMode(nodeClaim: NodeClaim): string {
  const tgp = nodeClaim.spec?.terminationGracePeriod;
  if (tgp === undefined) return "graceful";
  let ms: number | "Never";
  try {
    ms = parseDuration(tgp);
  } catch {
    return "eventual";
  }
  return typeof ms === "number" && ms <= 0 ? "forceful" : "eventual";
}

/** snake_case of a condition type, as Karpenter's pretty.ToSnakeCase labels it (Ready → ready). */
function snakeCase(type: string): string {
  return type.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

async function repair(
  deps: NodeClaimDeps,
  node: Node,
  nodeClaim: NodeClaim,
  condition: UnhealthyCondition,
): Promise<void> {
  const annotations = nodeClaim.metadata?.annotations ?? {};
  const now = deps.clock.now();
  const stored = Date.parse(annotations[Keys.terminationTimestamp] ?? "");
  // Forceful, as Karpenter's: termination stops waiting on the drain now (a stored deadline already past stays).
  if (!(stored <= now.getTime())) {
    await deps.cluster.patchNodeClaimMetadata(nodeClaim, {
      annotations: { ...annotations, [Keys.terminationTimestamp]: now.toISOString() },
    });
  }
  await deps.cluster.deleteNodeClaim(nameOf(nodeClaim));
  const pool = poolLabels(nodeClaim);
  deps.events.publish(disrupted(nodeClaim, `Unhealthy/${condition.type}=${condition.status}`));
  deps.metrics.nodeClaimsDisrupted.inc({ reason: "unhealthy", ...pool });
  deps.metrics.nodeClaimsUnhealthyDisrupted.inc({
    condition: snakeCase(condition.type),
    ...pool,
    image_id: nodeClaim.status?.imageID ?? "",
    termination_mode: terminationMode(nodeClaim),
  });
  deps.logger.info({ node: nameOf(node), nodeclaim: nameOf(nodeClaim), condition }, "deleting unhealthy node");
}

/** One Node: nothing, come back at the end of the toleration, report a blocked repair, or repair. */
export async function reconcileNodeRepair(deps: NodeClaimDeps, name: string): Promise<Result> {
  if (!deps.cluster.synced) return { requeueAfter: 1000 };
  const node = deps.cluster.node(name);
  if (node === undefined) return {};
  const providerID = node.spec?.providerID ?? "";
  const nodeClaim = providerID === "" ? undefined : deps.cluster.nodeClaimByProviderID(providerID);
  const decision = repairDecision({ node, nodeClaim, nodes: deps.cluster.nodes(), now: deps.clock.now().getTime() });
  switch (decision.action) {
    case "none":
      return {};
    case "wait":
      return { requeueAfter: Math.min(decision.requeueAfterMs, MAX_WAIT_MS) };
    case "blocked":
      deps.events.publish(nodeRepairBlocked(node, decision.message));
      deps.logger.info({ node: name, nodepool: decision.nodePool, reason: decision.message }, "node repair blocked");
      return { requeueAfter: decision.requeueAfterMs };
    case "repair":
      // nodeClaim is defined here: repairDecision answers "none" without one.
      if (nodeClaim !== undefined) await repair(deps, node, nodeClaim, decision.condition);
      return {};
  }
}

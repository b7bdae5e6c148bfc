/**
 * Initialization: once the registered Node is Ready, free of startup/ephemeral taints and shows requested
 * extended resources, labels it initialized and sets Initialized=True and Ready=True.
 */
import { initializationBlocker } from "../../core/lifecycle/initialization.ts";
import type { NodeClaim } from "../../core/lifecycle/objects.ts";
import { isTrue, setCondition } from "../../core/lifecycle/objects.ts";
import { Keys } from "../../core/lifecycle/registration.ts";
import { nameOf, type NodeClaimDeps, type StepResult } from "./deps.ts";
import { nodeFor } from "./registration.ts";

/** Runs the initialization step; undefined when initialized or not yet registered. */
export async function initialize(deps: NodeClaimDeps, nodeClaim: NodeClaim): Promise<StepResult> {
  const conditions = nodeClaim.status?.conditions;
  if (!isTrue(conditions, "Registered") || isTrue(conditions, "Initialized")) return undefined;
  const node = nodeFor(deps, nodeClaim);
  if (node === undefined) return undefined;
  const blocker = initializationBlocker(nodeClaim, node);
  if (blocker !== undefined) {
    deps.logger.debug({ nodeclaim: nameOf(nodeClaim), blocker }, "waiting for node initialization");
    return {};
  }
  const labels = node.metadata?.labels ?? {};
  if (labels[Keys.initializedLabel] !== "true") {
    await deps.cluster.patchNode(node, { labels: { ...labels, [Keys.initializedLabel]: "true" } });
    return {};
  }
  const now = deps.clock.now();
  const next = setCondition(
    setCondition(conditions, { type: "Initialized", status: "True", reason: "Initialized" }, now),
    { type: "Ready", status: "True", reason: "Ready" },
    now,
  );
  await deps.cluster.patchNodeClaimStatus(nodeClaim, { conditions: next });
  deps.logger.info({ nodeclaim: nameOf(nodeClaim), node: nameOf(node) }, "initialized nodeclaim");
  return {};
}

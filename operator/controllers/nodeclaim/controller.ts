/**
 * The NodeClaim controller: one level-based reconcile per NodeClaim that runs termination when it is being
 * deleted, else finalizer → launch → registration → initialization → liveness.
 */
import type { NodeClaim } from "../../core/lifecycle/objects.ts";
import { Keys } from "../../core/lifecycle/registration.ts";
import type { Result } from "../runtime.ts";
import type { NodeClaimDeps, StepResult } from "./deps.ts";
import { initialize } from "./initialization.ts";
import { launch } from "./launch.ts";
import { checkLiveness } from "./liveness.ts";
import { register } from "./registration.ts";
import { forgetTerminated, terminate } from "./termination.ts";

async function ensureFinalizer(deps: NodeClaimDeps, nodeClaim: NodeClaim): Promise<StepResult> {
  const finalizers = nodeClaim.metadata?.finalizers ?? [];
  if (finalizers.includes(Keys.finalizer)) return undefined;
  await deps.cluster.patchNodeClaimMetadata(nodeClaim, { finalizers: [...finalizers, Keys.finalizer] });
  return {};
}

const lifecycle = [ensureFinalizer, launch, register, initialize, checkLiveness] as const;

/** Reconciles the NodeClaim called `name` from the cache. */
export async function reconcileNodeClaim(deps: NodeClaimDeps, name: string): Promise<Result> {
  const nodeClaim = deps.cluster.nodeClaim(name);
  if (nodeClaim === undefined) {
    forgetTerminated(deps, name);
    return {};
  }
  if (nodeClaim.metadata?.deletionTimestamp !== undefined) return (await terminate(deps, nodeClaim)) ?? {};
  for (const step of lifecycle) {
    const result = await step(deps, nodeClaim);
    if (result !== undefined) return result;
  }
  return {};
}

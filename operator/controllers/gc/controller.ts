/** Runs one garbage-collection pass: read NodeClaims, then instances, plan, then act (each failure recorded, the rest go on). */
import { isNodeClaimNotFoundError } from "../../core/errors.ts";
import type { CloudProvider } from "../../ports/cloud-provider.ts";
import { planGarbageCollection, type GcNodeClaim, type GcPlan } from "./plan.ts";

/** What a GC pass needs; the kube side comes in as functions so the runtime owns the client. */
export interface GcDeps {
  readonly cloudProvider: Pick<CloudProvider, "list" | "delete">;
  readonly listNodeClaims: () => Promise<readonly GcNodeClaim[]>;
  readonly deleteNodeClaim: (name: string) => Promise<void>;
  readonly clock: { now(): Date };
}

/** The plan that ran and the failures met while acting on it. */
export interface GcResult extends GcPlan {
  readonly errors: readonly string[];
}

/** One pass; never throws for a single failed action (it is retried next pass). */
export async function collectGarbage(deps: GcDeps): Promise<GcResult> {
  const nodeClaims = await deps.listNodeClaims();
  const instances = await deps.cloudProvider.list();
  const plan = planGarbageCollection({ instances, nodeClaims, now: deps.clock.now() });
  const errors: string[] = [];
  for (const instance of plan.terminate) {
    try {
      await deps.cloudProvider.delete(instance.providerID);
    } catch (error) {
      if (!isNodeClaimNotFoundError(error)) errors.push(`terminating orphaned instance ${instance.instanceID}: ${String(error)}`);
    }
  }
  for (const name of plan.deleteNodeClaims) {
    try {
      await deps.deleteNodeClaim(name);
    } catch (error) {
      errors.push(`deleting NodeClaim ${name} whose instance is gone: ${String(error)}`);
    }
  }
  return { ...plan, errors };
}

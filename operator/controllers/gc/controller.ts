/**
 * Runs one garbage-collection pass: read NodeClaims and Nodes, then instances, plan, then act (each
 * action logged, each failure recorded, the rest go on). Level-based: a pass interrupted anywhere is
 * completed by the next one (a terminated orphan's Node is found again through its terminating instance).
 */
import type { Logger } from "pino";
import { isNodeClaimNotFoundError } from "../../core/errors.ts";
import type { CloudProvider } from "../../ports/cloud-provider.ts";
import { planGarbageCollection, type GcNode, type GcNodeClaim, type GcPlan } from "./plan.ts";

/** What a GC pass needs; the kube side comes in as functions so the runtime owns the client. */
export interface GcDeps {
  readonly cloudProvider: Pick<CloudProvider, "list" | "delete" | "get">;
  readonly listNodeClaims: () => Promise<readonly GcNodeClaim[]>;
  readonly listNodes: () => Promise<readonly GcNode[]>;
  readonly deleteNodeClaim: (name: string) => Promise<void>;
  /** Deletes a Node; one already gone counts as deleted. */
  readonly deleteNode: (name: string) => Promise<void>;
  readonly clock: { now(): Date };
  readonly logger: Pick<Logger, "info">;
}

/**
 * The plan that ran, the Nodes deleted after the cloud confirmed their instance gone, and
 * the failures met while acting.
 */
export interface GcResult extends GcPlan {
  readonly deletedUnknownNodes: readonly string[];
  readonly errors: readonly string[];
}

/** Terminates the orphans; returns the instance ids whose termination did not go through. */
async function terminateOrphans(deps: GcDeps, plan: GcPlan, errors: string[]): Promise<Set<string>> {
  const failed = new Set<string>();
  for (const instance of plan.terminate) {
    try {
      await deps.cloudProvider.delete(instance.providerID);
    } catch (error) {
      if (!isNodeClaimNotFoundError(error)) {
        failed.add(instance.instanceID);
        errors.push(`terminating orphaned instance ${instance.instanceID}: ${String(error)}`);
        continue;
      }
    }
    deps.logger.info(
      {
        instanceID: instance.instanceID,
        providerID: instance.providerID,
        nodeclaim: instance.nodeClaimName,
        nodepool: instance.nodePoolName,
        launchTime: instance.launchTime.toISOString(),
      },
      "garbage collected cloudprovider instance",
    );
  }
  return failed;
}

async function deleteNode(
  deps: GcDeps,
  node: { name: string; providerID: string },
  reason: string,
  errors: string[],
): Promise<boolean> {
  try {
    await deps.deleteNode(node.name);
  } catch (error) {
    errors.push(`deleting Node ${node.name} (${reason}): ${String(error)}`);
    return false;
  }
  deps.logger.info({ node: node.name, providerID: node.providerID, reason }, "garbage collected node");
  return true;
}

/**
 * Whether the cloud no longer knows the instance behind the providerID; a failed lookup
 * answers false (retried next pass).
 */
async function instanceGone(deps: GcDeps, providerID: string, errors: string[]): Promise<boolean> {
  try {
    await deps.cloudProvider.get(providerID);
    return false;
  } catch (error) {
    if (isNodeClaimNotFoundError(error)) return true;
    errors.push(`looking up the instance of ${providerID}: ${String(error)}`);
    return false;
  }
}

/** One pass; never throws for a single failed action (it is retried next pass). */
export async function collectGarbage(deps: GcDeps): Promise<GcResult> {
  const nodeClaims = await deps.listNodeClaims();
  const nodes = await deps.listNodes();
  const instances = await deps.cloudProvider.list();
  const plan = planGarbageCollection({ instances, nodeClaims, nodes, now: deps.clock.now() });
  const errors: string[] = [];
  const failed = await terminateOrphans(deps, plan, errors);
  for (const node of plan.deleteNodes) {
    if (!failed.has(node.providerID.split("/").at(-1) ?? "")) await deleteNode(deps, node, node.reason, errors);
  }
  const deletedUnknownNodes: string[] = [];
  for (const node of plan.verifyNodes) {
    if ((await instanceGone(deps, node.providerID, errors)) && (await deleteNode(deps, node, "instance-gone", errors)))
      deletedUnknownNodes.push(node.name);
  }
  for (const name of plan.deleteNodeClaims) {
    try {
      await deps.deleteNodeClaim(name);
    } catch (error) {
      errors.push(`deleting NodeClaim ${name} whose instance is gone: ${String(error)}`);
      continue;
    }
    deps.logger.info(
      { nodeclaim: name, providerID: nodeClaims.find((c) => c.name === name)?.providerID },
      "garbage collecting nodeclaim with no cloudprovider representation",
    );
  }
  return { ...plan, deletedUnknownNodes, errors };
}

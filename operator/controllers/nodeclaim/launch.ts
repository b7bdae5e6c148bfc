/**
 * Launch: calls CloudProvider.create for a NodeClaim without a providerID, writes the instance labels,
 * then the status (providerID, imageID, capacity, allocatable, Launched=True). The result is cached
 * per NodeClaim uid between the two writes (termination reads it too: a NodeClaim deleted in between
 * still owns the instance); after a restart create() finds the tagged instance again.
 */
import { needsNodeClassStamp } from "../../core/disruption/drift.ts";
import { nodeClassHashAnnotations } from "../../core/disruption/nodeclass-hash.ts";
import { isInsufficientCapacityError, isNodeClassNotReadyError } from "../../core/errors.ts";
import type { NodeClaim } from "../../core/lifecycle/objects.ts";
import { isTrue } from "../../core/lifecycle/objects.ts";
import { insufficientCapacity, nodeClassNotReady } from "../../observability/events.ts";
import type { LaunchedInstance, NodeClaimLike } from "../../ports/cloud-provider.ts";
import { nameOf, poolLabels, withCondition, type NodeClaimDeps, type StepResult } from "./deps.ts";

const launched = new WeakMap<NodeClaimDeps, Map<string, LaunchedInstance>>();
/**
 * NodeClaims (uid) this process deleted after a launch failure. A reconcile that started from a cache
 * not yet showing the deletion would otherwise launch again: a second CreateFleet for a NodeClaim
 * being deleted, a second event and a second count in karpenter_nodeclaims_disrupted_total (seen
 * under load in the ICE fallback test). Forgotten with the rest when termination is done.
 */
const failed = new WeakMap<NodeClaimDeps, Set<string>>();

function cache(deps: NodeClaimDeps): Map<string, LaunchedInstance> {
  let c = launched.get(deps);
  if (c === undefined) {
    c = new Map();
    launched.set(deps, c);
  }
  return c;
}

/** The instance this process launched for the NodeClaim `uid` whose providerID is not written yet. */
export function launchedFor(deps: NodeClaimDeps, uid: string): LaunchedInstance | undefined {
  return launched.get(deps)?.get(uid);
}

function deletedAfterFailure(deps: NodeClaimDeps, uid: string): boolean {
  return failed.get(deps)?.has(uid) === true;
}

/** Drops what launch remembers of the NodeClaim `uid` (its termination is done). */
export function forgetLaunch(deps: NodeClaimDeps, uid: string): void {
  launched.get(deps)?.delete(uid);
  failed.get(deps)?.delete(uid);
}

function missingLabels(nodeClaim: NodeClaim, instance: LaunchedInstance): Record<string, string> | undefined {
  const current = nodeClaim.metadata?.labels ?? {};
  const missing = Object.entries(instance.labels).filter(([k, v]) => current[k] !== v);
  return missing.length === 0 ? undefined : { ...current, ...instance.labels };
}

/** The EC2NodeClass hash the instance launched from (NodeClassDrift compares against it), when not stamped yet. */
function classStamp(deps: NodeClaimDeps, nodeClaim: NodeClaim): Record<string, string> | undefined {
  const nodeClass = deps.cluster.nodeClass(nodeClaim.spec?.nodeClassRef?.name ?? "");
  if (nodeClass === undefined || !needsNodeClassStamp(nodeClaim)) return undefined;
  return { ...(nodeClaim.metadata?.annotations ?? {}), ...nodeClassHashAnnotations(nodeClass, deps.clusterCABundle) };
}

/** Writes the instance labels and the EC2NodeClass hash when missing; true when it wrote. */
async function writeMetadata(deps: NodeClaimDeps, nodeClaim: NodeClaim, instance: LaunchedInstance): Promise<boolean> {
  const labels = missingLabels(nodeClaim, instance);
  const stamp = classStamp(deps, nodeClaim);
  if (labels === undefined && stamp === undefined) return false;
  await deps.cluster.patchNodeClaimMetadata(nodeClaim, {
    ...(labels === undefined ? {} : { labels }),
    ...(stamp === undefined ? {} : { annotations: stamp }),
  });
  return true;
}

async function deleteForLaunchFailure(deps: NodeClaimDeps, nodeClaim: NodeClaim, error: Error): Promise<StepResult> {
  const ice = isInsufficientCapacityError(error);
  deps.logger.info({ nodeclaim: nodeClaim.metadata?.name, err: error }, "deleting nodeclaim after launch failure");
  await deps.cluster.deleteNodeClaim(nodeClaim.metadata?.name ?? "");
  // Counted once the deletion is in: a failed delete is retried, and must not count twice.
  deps.events.publish((ice ? insufficientCapacity : nodeClassNotReady)(nodeClaim, error.message));
  const reason = ice ? "insufficient_capacity" : "nodeclass_not_ready";
  deps.metrics.nodeClaimsDisrupted.inc({ reason, ...poolLabels(nodeClaim) });
  let deleted = failed.get(deps);
  if (deleted === undefined) failed.set(deps, (deleted = new Set()));
  deleted.add(String(nodeClaim.metadata?.uid));
  return {};
}

async function create(deps: NodeClaimDeps, nodeClaim: NodeClaim): Promise<LaunchedInstance | StepResult> {
  const started = performance.now();
  try {
    // Consumed before the call: only the very first attempt may skip the lookup of an earlier launch.
    const knownNew = deps.cluster.takeUnlaunched(String(nodeClaim.metadata?.uid));
    const instance = await deps.cloud.create(nodeClaim as unknown as NodeClaimLike, { knownNew });
    const fields = {
      nodeclaim: nameOf(nodeClaim),
      instanceID: instance.instanceID,
      providerID: instance.providerID,
      instanceType: instance.instanceType,
      zone: instance.zone,
      capacityType: instance.capacityType,
    };
    deps.logger.info(
      fields,
      instance.adopted ? "found the instance an earlier launch of the nodeclaim created" : "launched nodeclaim",
    );
    return instance;
  } catch (error) {
    const name = (error as Error).name;
    // As Karpenter's cloud provider decorator: every call is timed, failed ones counted as errors too.
    deps.metrics.cloudProviderErrors.inc({
      controller: "nodeclaim.lifecycle",
      method: "Create",
      provider: "aws",
      error: name,
      nodepool: nodeClaim.metadata?.labels?.["karpenter.sh/nodepool"] ?? "",
    });
    if (isInsufficientCapacityError(error) || isNodeClassNotReadyError(error))
      return deleteForLaunchFailure(deps, nodeClaim, error);
    const conditions = withCondition(deps, nodeClaim, {
      type: "Launched",
      status: "Unknown",
      reason: "LaunchFailed",
      message: (error as Error).message.slice(0, 1000),
    });
    await deps.cluster.patchNodeClaimStatus(nodeClaim, { conditions }).catch(() => undefined);
    throw error;
  } finally {
    deps.metrics.cloudProviderDuration.observe(
      { controller: "nodeclaim.lifecycle", method: "Create", provider: "aws" },
      (performance.now() - started) / 1000,
    );
  }
}

/** Runs the launch step; undefined once the NodeClaim is Launched. */
export async function launch(deps: NodeClaimDeps, nodeClaim: NodeClaim): Promise<StepResult> {
  const uid = String(nodeClaim.metadata?.uid);
  if (nodeClaim.status?.providerID !== undefined && nodeClaim.status.providerID !== "") {
    cache(deps).delete(uid);
    if (isTrue(nodeClaim.status?.conditions, "Launched")) return undefined;
    await deps.cluster.patchNodeClaimStatus(nodeClaim, {
      conditions: withCondition(deps, nodeClaim, { type: "Launched", status: "True", reason: "Launched" }),
    });
    return {};
  }
  if (deletedAfterFailure(deps, uid)) return {};
  const known = cache(deps).get(uid);
  const outcome = known ?? (await create(deps, nodeClaim));
  if (!("providerID" in (outcome ?? {}))) return outcome as StepResult;
  const instance = outcome as LaunchedInstance;
  cache(deps).set(uid, instance);
  if (await writeMetadata(deps, nodeClaim, instance)) return {};
  const conditions = withCondition(deps, nodeClaim, { type: "Launched", status: "True", reason: "Launched" });
  await deps.cluster.patchNodeClaimStatus(nodeClaim, {
    providerID: instance.providerID,
    imageID: instance.imageID,
    capacity: instance.capacity,
    allocatable: instance.allocatable,
    conditions,
  });
  return {};
}

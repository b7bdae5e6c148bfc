/**
 * The nodeclaim.disruption controller: per NodeClaim, keeps what the disruption pass reads current —
 * status.lastPodEventTime (from the pod-event tracker, deduplicated), the EC2NodeClass hash stamp
 * (written once a NodeClaim has launched without it, e.g. taken over from Karpenter: a re-stamp,
 * never a drift), the Drifted condition (core/disruption/drift.ts; the instance's network is asked of
 * the cloud at most every 5 minutes) and the Consolidatable condition (core/disruption/consolidatable.ts).
 */
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { Label } from "../../../policies/domain/labels.ts";
import {
  consolidatableDecision,
  consolidateAfterOf,
  shouldRecordPodEvent,
  type ConsolidatableDecision,
} from "../../core/disruption/consolidatable.ts";
import { isStatic } from "../../core/nodepool/static.ts";
import { driftOf, needsNodeClassStamp, type Drift, type InstanceNetwork } from "../../core/disruption/drift.ts";
import { nodeClassHashAnnotations } from "../../core/disruption/nodeclass-hash.ts";
import type { Condition, NodeClaim } from "../../core/lifecycle/objects.ts";
import { findCondition, setCondition, toIso } from "../../core/lifecycle/objects.ts";
import type { CustomObjectLike } from "../../ports/cluster.ts";
import type { NodeClaimDeps } from "../nodeclaim/deps.ts";
import type { Result } from "../runtime.ts";
import type { PodEventTracker } from "./pod-events.ts";

/** Karpenter re-checks drift every 5 minutes; cloud lookups (security groups, subnet) follow that pace. */
export const DRIFT_RECHECK_MS = 5 * 60_000;

export interface DisruptionStatusDeps extends NodeClaimDeps {
  readonly podEvents: PodEventTracker;
  /** Last instance lookup per NodeClaim name (kept between reconciles; an entry goes with its NodeClaim). */
  readonly networkCache: Map<string, { readonly at: number; readonly network: InstanceNetwork | undefined }>;
}

async function instanceNetwork(
  deps: DisruptionStatusDeps,
  claim: NodeClaim,
  now: number,
): Promise<InstanceNetwork | undefined> {
  const key = claim.metadata?.name ?? "";
  const cached = deps.networkCache.get(key);
  if (cached !== undefined && now - cached.at < DRIFT_RECHECK_MS) return cached.network;
  let network: InstanceNetwork | undefined;
  try {
    const instance = await deps.cloud.get(claim.status?.providerID ?? "");
    network =
      instance.securityGroupIDs === undefined
        ? undefined
        : {
            securityGroupIDs: instance.securityGroupIDs,
            subnetID: instance.subnetID ?? "",
            ...(instance.capacityReservation === undefined
              ? {}
              : { capacityReservationID: instance.capacityReservation.id }),
          };
  } catch (error) {
    deps.logger.debug(
      { nodeclaim: claim.metadata?.name, err: error },
      "reading the instance for drift failed; network drift not checked this time",
    );
  }
  deps.networkCache.set(key, { at: now, network });
  return network;
}

/**
 * The instance types of the NodeClaim's EC2NodeClass (InstanceTypeNotFound, AMIDrift per type); undefined
 * when they cannot be read now (those checks wait, as Karpenter's drift does on a GetInstanceTypes error).
 */
async function poolInstanceTypes(deps: DisruptionStatusDeps, claim: NodeClaim): Promise<InstanceType[] | undefined> {
  try {
    return await deps.cloud.getInstanceTypes(claim.spec?.nodeClassRef?.name ?? "");
  } catch (error) {
    const fields = { nodeclaim: claim.metadata?.name, err: error };
    deps.logger.debug(fields, "reading instance types for drift failed; checks needing them wait");
    return undefined;
  }
}

function driftCondition(
  conditions: readonly Condition[] | undefined,
  drift: Drift | undefined,
  now: Date,
): Condition[] {
  if (drift !== undefined)
    return setCondition(
      conditions,
      { type: "Drifted", status: "True", reason: drift.reason, message: drift.message },
      now,
    );
  return (conditions ?? []).filter((c) => c.type !== "Drifted");
}

const same = (a: readonly Condition[] | undefined, b: readonly Condition[]): boolean =>
  JSON.stringify((a ?? []).map((c) => [c.type, c.status, c.reason, c.message])) ===
  JSON.stringify(b.map((c) => [c.type, c.status, c.reason, c.message]));

/**
 * Writes the last pod event or the hash stamp when due; true when it wrote (the
 * update event brings the claim back).
 */
async function recordFacts(
  deps: DisruptionStatusDeps,
  claim: NodeClaim,
  nodeClass: CustomObjectLike | undefined,
): Promise<boolean> {
  const podEvent = deps.podEvents.last(claim.status?.nodeName ?? "");
  if (podEvent !== undefined && shouldRecordPodEvent(claim, podEvent)) {
    await deps.cluster.patchNodeClaimStatus(claim, { lastPodEventTime: toIso(new Date(podEvent)) ?? "" });
    return true;
  }
  if (nodeClass === undefined || !needsNodeClassStamp(claim)) return false;
  const stamp = nodeClassHashAnnotations(nodeClass, deps.clusterCABundle);
  await deps.cluster.patchNodeClaimMetadata(claim, { annotations: { ...claim.metadata?.annotations, ...stamp } });
  return true;
}

/** The claim's conditions with Drifted and Consolidatable as they should be now, and when to look again. */
async function desiredConditions(
  deps: DisruptionStatusDeps,
  claim: NodeClaim,
  pool: CustomObjectLike,
  nodeClass: CustomObjectLike | undefined,
): Promise<{ conditions: Condition[]; requeueAfterMs: number }> {
  const now = deps.clock.now();
  const instance = nodeClass === undefined ? undefined : await instanceNetwork(deps, claim, now.getTime());
  const instanceTypes = await poolInstanceTypes(deps, claim);
  const drift = driftOf({
    nodeClaim: claim,
    nodePool: pool,
    nodeClass,
    instance,
    instanceTypes,
    now: now.getTime(),
    caBundle: deps.clusterCABundle,
  });
  let conditions = driftCondition(claim.status?.conditions, drift, now);
  // A static NodePool's NodeClaims are never consolidated, so never marked Consolidatable (as Karpenter).
  const decision: ConsolidatableDecision = isStatic(pool)
    ? { action: "none" }
    : consolidatableDecision(
        { ...claim, status: { ...claim.status, conditions } },
        consolidateAfterOf(pool),
        now.getTime(),
      );
  if (decision.action === "set") conditions = setCondition(conditions, decision.condition, now);
  if (decision.action === "clear") conditions = conditions.filter((c) => c.type !== "Consolidatable");
  const wait = decision.action === "set" ? undefined : decision.requeueAfterMs;
  return { conditions, requeueAfterMs: Math.min(wait ?? DRIFT_RECHECK_MS, DRIFT_RECHECK_MS) };
}

/** Reconciles the disruption status of the NodeClaim called `name`. */
/** A launched NodeClaim that is not being deleted, with its NodePool; undefined when there is nothing to keep. */
function subject(deps: DisruptionStatusDeps, name: string): { claim: NodeClaim; pool: CustomObjectLike } | undefined {
  const claim = deps.cluster.nodeClaim(name);
  if (claim === undefined || claim.metadata?.deletionTimestamp !== undefined || (claim.status?.providerID ?? "") === "")
    return undefined;
  const pool = deps.cluster.nodePool(claim.metadata?.labels?.[Label.nodePool] ?? "");
  return pool === undefined ? undefined : { claim, pool };
}

/** Reconciles the disruption status of the NodeClaim called `name`. */
export async function reconcileDisruptionStatus(deps: DisruptionStatusDeps, name: string): Promise<Result> {
  const found = subject(deps, name);
  if (found === undefined) {
    if (deps.cluster.nodeClaim(name) === undefined) deps.networkCache.delete(name);
    return {};
  }
  const { claim, pool } = found;
  const nodeClass = deps.cluster.nodeClass(claim.spec?.nodeClassRef?.name ?? "");
  if (await recordFacts(deps, claim, nodeClass)) return {};
  const { conditions, requeueAfterMs } = await desiredConditions(deps, claim, pool, nodeClass);
  if (same(claim.status?.conditions, conditions)) return { requeueAfter: requeueAfterMs };
  const drifted = findCondition(conditions, "Drifted");
  if (drifted !== undefined && findCondition(claim.status?.conditions, "Drifted") === undefined) {
    deps.logger.info({ nodeclaim: name, reason: drifted.reason, message: drifted.message }, "nodeclaim drifted");
  }
  await deps.cluster.patchNodeClaimStatus(claim, { conditions });
  return { requeueAfter: requeueAfterMs };
}

/**
 * Termination (the karpenter.sh/termination finalizer): taint karpenter.sh/disrupted:NoSchedule, drain
 * in Karpenter's order through the Eviction API (PDBs and do-not-disrupt honoured until the
 * terminationGracePeriod deadline), wait for the Node's VolumeAttachments to go (also until the
 * deadline), terminate the instance, delete the Node, remove the finalizers. A NodeClaim deleted before its
 * providerID was written first gets the providerID of the instance it owns (found by its tag), so that
 * instance and its Node go with it. Every pass re-reads state, so a restart at any point resumes where it stopped.
 */
import { parseDuration } from "../../../policies/domain/duration.ts";
import { isNodeClaimNotFoundError } from "../../core/errors.ts";
import type { Condition, Node, NodeClaim, Pod } from "../../core/lifecycle/objects.ts";
import { zoneOf } from "../../core/metrics/nodeclaims.ts";
import { findCondition, isTrue, timeMs, toIso } from "../../core/lifecycle/objects.ts";
import { Keys } from "../../core/lifecycle/registration.ts";
import { planDrain, terminationDeadline, type DrainPlan } from "../../core/termination/drain-plan.ts";
import { unrecordedInstances } from "../../core/termination/unrecorded-instance.ts";
import {
  blockingAttachments,
  claimsOfUndrainablePods,
  deadlinePassed,
  volumeDetachDecision,
  type PodWithVolumes,
  type VolumeAttachmentLike,
} from "../../core/termination/volume-detach.ts";
import {
  awaitingVolumeDetachment,
  evicted,
  failedDraining,
  failedTermination,
  podDeletedAtDeadline,
  terminationGracePeriodExpiring,
} from "../../observability/events.ts";
import { nameOf, poolLabels, withCondition, type NodeClaimDeps, type StepResult } from "./deps.ts";
import { forgetLaunch, launchedFor } from "./launch.ts";
import { nodeFor } from "./registration.ts";

const DRAIN_POLL_MS = 1000;

/**
 * NodeClaims whose termination this process finished (finalizer removed), name → uid: a reconcile
 * from a cache that has not seen the removal yet (woken by the Node's deletion) is not counted,
 * logged or looked up again. Forgotten when the cache drops the NodeClaim.
 */
const finished = new WeakMap<NodeClaimDeps, Map<string, string>>();

function finishedOf(deps: NodeClaimDeps): Map<string, string> {
  let f = finished.get(deps);
  if (f === undefined) {
    f = new Map();
    finished.set(deps, f);
  }
  return f;
}

/** Called once the cache no longer holds the NodeClaim `name`. */
export function forgetTerminated(deps: NodeClaimDeps, name: string): void {
  finished.get(deps)?.delete(name);
}

function gracePeriodMs(nodeClaim: NodeClaim): number | undefined {
  const raw = nodeClaim.spec?.terminationGracePeriod;
  if (raw === undefined) return undefined;
  const ms = parseDuration(raw);
  return typeof ms === "number" ? ms : undefined;
}

function deadlineOf(nodeClaim: NodeClaim): number | undefined {
  return terminationDeadline(
    nodeClaim.metadata?.annotations?.[Keys.terminationTimestamp],
    nodeClaim.metadata?.deletionTimestamp,
    gracePeriodMs(nodeClaim),
  );
}

/** Stores the TGP deadline once, so it survives restarts and is visible to users. */
async function ensureDeadline(deps: NodeClaimDeps, nodeClaim: NodeClaim): Promise<StepResult> {
  const deadline = deadlineOf(nodeClaim);
  if (deadline === undefined || nodeClaim.metadata?.annotations?.[Keys.terminationTimestamp] !== undefined)
    return undefined;
  const at = toIso(new Date(deadline)) ?? "";
  await deps.cluster.patchNodeClaimMetadata(nodeClaim, {
    annotations: { ...(nodeClaim.metadata?.annotations ?? {}), [Keys.terminationTimestamp]: at },
  });
  deps.events.publish(terminationGracePeriodExpiring("NodeClaim", nodeClaim, at));
  return {};
}

async function ensureTainted(deps: NodeClaimDeps, node: Node): Promise<StepResult> {
  const taints = node.spec?.taints ?? [];
  const labels = node.metadata?.labels ?? {};
  const hasTaint = taints.some((t) => t.key === Keys.disruptedTaint && t.effect === "NoSchedule");
  if (hasTaint && labels[Keys.excludeFromLoadBalancers] === "karpenter") return undefined;
  await deps.cluster.patchNode(node, {
    taints: hasTaint ? taints : [...taints, { key: Keys.disruptedTaint, effect: "NoSchedule" }],
    labels: { ...labels, [Keys.excludeFromLoadBalancers]: "karpenter" },
  });
  deps.logger.info({ node: nameOf(node), pods: deps.cluster.podsOnNode(nameOf(node)).length }, "tainted node");
  return {};
}

const podRef = (pod: Pod): string => `${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}`;

async function evictAll(deps: NodeClaimDeps, node: Node, pods: readonly Pod[]): Promise<number> {
  let blocked = 0;
  await Promise.all(
    pods.map(async (pod) => {
      const outcome = await deps.cluster.evictPod(pod);
      deps.metrics.podsEvictionRequests.inc({ code: outcome === "blocked" ? "429" : "200" });
      if (outcome === "blocked") blocked += 1;
      if (outcome === "evicted") {
        deps.events.publish(evicted(pod));
        deps.metrics.podsDrained.inc({ reason: "termination" });
        deps.logger.info({ node: nameOf(node), pod: podRef(pod) }, "evicted pod");
      }
    }),
  );
  return blocked;
}

async function executeDrain(
  deps: NodeClaimDeps,
  node: Node,
  plan: DrainPlan,
  deadline: number | undefined,
): Promise<void> {
  await Promise.all(
    plan.forceDelete.map(async (f) => {
      await deps.cluster.deletePod(f.pod, f.graceSeconds);
      if (deadline !== undefined) deps.events.publish(podDeletedAtDeadline(f.pod, f.graceSeconds, deadline));
      deps.logger.info(
        { node: nameOf(node), pod: podRef(f.pod), gracePeriodSeconds: f.graceSeconds },
        "deleted pod at the termination grace period deadline",
      );
    }),
  );
  const blocked = await evictAll(deps, node, plan.evict);
  if (blocked > 0) deps.events.publish(failedDraining(node, `${blocked} pod(s) blocked by PodDisruptionBudgets`));
  if (plan.blocked.length > 0)
    deps.events.publish(failedDraining(node, `${plan.blocked.length} pod(s) have karpenter.sh/do-not-disrupt`));
}

/** One drain pass; undefined once the node is drained. */
async function drain(deps: NodeClaimDeps, nodeClaim: NodeClaim, node: Node): Promise<StepResult> {
  const pods = deps.cluster.podsOnNode(node.metadata?.name ?? "");
  const plan = planDrain(pods, deps.clock.now().getTime(), deadlineOf(nodeClaim));
  if (plan.drained) {
    if (isTrue(nodeClaim.status?.conditions, "Drained")) return undefined;
    await deps.cluster.patchNodeClaimStatus(nodeClaim, {
      conditions: withCondition(deps, nodeClaim, { type: "Drained", status: "True", reason: "Drained" }),
    });
    deps.metrics.nodesDrained.inc({ nodepool: poolLabels(nodeClaim).nodepool });
    deps.logger.info({ node: nameOf(node), nodeclaim: nameOf(nodeClaim) }, "drained node");
    return {};
  }
  // Karpenter warns on each pass while a deadline is set (the recorder deduplicates).
  const at = nodeClaim.metadata?.annotations?.[Keys.terminationTimestamp];
  if (at !== undefined) deps.events.publish(terminationGracePeriodExpiring("Node", node, at));
  await executeDrain(deps, node, plan, deadlineOf(nodeClaim));
  return { requeueAfter: Math.min(DRAIN_POLL_MS, plan.nextDeadlineInMs ?? DRAIN_POLL_MS) };
}

const differs = (current: Condition | undefined, want: Omit<Condition, "lastTransitionTime">): boolean =>
  current?.status !== want.status || current.reason !== want.reason || (current.message ?? "") !== (want.message ?? "");

/**
 * The PersistentVolumes of the Node's undrainable pods (their attachments do not block). Read from
 * the apiserver only when attachments are left, the deadline has not passed and such a pod holds a claim.
 */
async function exemptVolumes(
  deps: NodeClaimDeps,
  nodeName: string,
  attachments: readonly VolumeAttachmentLike[],
  deadline: number | undefined,
): Promise<ReadonlySet<string>> {
  const now = deps.clock.now().getTime();
  if (attachments.length === 0 || deadlinePassed(now, deadline)) return new Set();
  // Cached pods are whole V1Pods: spec.volumes is there, the narrow core Pod type just does not declare it.
  const claims = claimsOfUndrainablePods(deps.cluster.podsOnNode(nodeName) as readonly PodWithVolumes[], now);
  return claims.length === 0 ? new Set() : deps.cluster.persistentVolumeNames(claims);
}

/**
 * Waits for the drained Node's VolumeAttachments to go, recording VolumesDetached;
 * undefined once termination may go on.
 */
async function awaitVolumeDetachment(deps: NodeClaimDeps, nodeClaim: NodeClaim, node: Node): Promise<StepResult> {
  const nodeName = node.metadata?.name ?? "";
  const deadline = deadlineOf(nodeClaim);
  const attachments = deps.cluster.volumeAttachmentsOnNode(nodeName);
  const blocking = blockingAttachments(
    attachments,
    nodeName,
    await exemptVolumes(deps, nodeName, attachments, deadline),
  );
  const decision = volumeDetachDecision(blocking, deps.clock.now().getTime(), deadline);
  const changed = differs(findCondition(nodeClaim.status?.conditions, decision.condition.type), decision.condition);
  if (changed)
    await deps.cluster.patchNodeClaimStatus(nodeClaim, {
      conditions: withCondition(deps, nodeClaim, decision.condition),
    });
  if (!decision.proceed) {
    deps.events.publish(
      awaitingVolumeDetachment(
        node,
        blocking.map((a) => a.metadata?.name ?? ""),
      ),
    );
    return { requeueAfter: decision.retryInMs ?? DRAIN_POLL_MS };
  }
  return changed ? {} : undefined;
}

/** Terminates an instance the NodeClaim does not hold; gone already is fine. */
async function terminateExtra(deps: NodeClaimDeps, nodeClaim: NodeClaim, providerID: string): Promise<void> {
  try {
    await deps.cloud.delete(providerID);
  } catch (error) {
    if (isNodeClaimNotFoundError(error)) return;
    throw error;
  }
  deps.logger.info({ nodeclaim: nameOf(nodeClaim), providerID }, "terminated a second instance of the nodeclaim");
}

/**
 * For a NodeClaim without a providerID: records the instance it owns (remembered by this process's
 * launch, or tagged karpenter.sh/nodeclaim=<name>) as its providerID, so the following passes drain
 * that instance's Node and terminate it; undefined when it has a providerID or owns no instance.
 */
async function recordUnrecordedInstance(deps: NodeClaimDeps, nodeClaim: NodeClaim): Promise<StepResult> {
  if ((nodeClaim.status?.providerID ?? "") !== "") return undefined;
  const name = nameOf(nodeClaim);
  const remembered = launchedFor(deps, String(nodeClaim.metadata?.uid))?.providerID;
  const { adopt, terminate: extra } = unrecordedInstances(remembered, await deps.cloud.list(name));
  for (const providerID of extra) await terminateExtra(deps, nodeClaim, providerID);
  if (adopt === undefined) return undefined;
  await deps.cluster.patchNodeClaimStatus(nodeClaim, { providerID: adopt });
  deps.logger.info(
    { nodeclaim: name, providerID: adopt },
    "found the instance of a nodeclaim deleted before its launch was recorded",
  );
  return {};
}

/** Terminates the instance; undefined once the cloud reports it gone. */
async function terminateInstance(deps: NodeClaimDeps, nodeClaim: NodeClaim): Promise<StepResult> {
  const providerID = nodeClaim.status?.providerID ?? "";
  if (providerID === "") return undefined;
  try {
    await deps.cloud.delete(providerID);
  } catch (error) {
    if (isNodeClaimNotFoundError(error)) return undefined;
    deps.events.publish(failedTermination(nodeClaim, (error as Error).message));
    throw error;
  }
  if (!isTrue(nodeClaim.status?.conditions, "InstanceTerminating")) {
    await deps.cluster.patchNodeClaimStatus(nodeClaim, {
      conditions: withCondition(deps, nodeClaim, {
        type: "InstanceTerminating",
        status: "True",
        reason: "InstanceTerminating",
      }),
    });
  }
  return { requeueAfter: 1000 };
}

/** Counts, logs and remembers a NodeClaim whose finalizer is gone. */
function recordFinished(deps: NodeClaimDeps, nodeClaim: NodeClaim, node: Node | undefined): void {
  const pool = poolLabels(nodeClaim);
  const uid = String(nodeClaim.metadata?.uid);
  finishedOf(deps).set(nameOf(nodeClaim), uid);
  forgetLaunch(deps, uid);
  if (node !== undefined) deps.metrics.nodesTerminated.inc({ nodepool: pool.nodepool, zone: zoneOf(node) });
  deps.metrics.nodeClaimsTerminated.inc({ ...pool, zone: zoneOf(nodeClaim) });
  const deleted = timeMs(nodeClaim.metadata?.deletionTimestamp);
  const now = deps.clock.now().getTime();
  if (deleted !== undefined) {
    deps.metrics.nodesTerminationDuration.observe({ nodepool: pool.nodepool }, (now - deleted) / 1000);
    deps.metrics.nodeClaimsTerminationDuration.observe({ nodepool: pool.nodepool }, (now - deleted) / 1000);
  }
  const born = timeMs(node?.metadata?.creationTimestamp);
  if (born !== undefined) deps.metrics.nodesLifetimeDuration.observe({ nodepool: pool.nodepool }, (now - born) / 1000);
  deps.logger.info(
    { nodeclaim: nameOf(nodeClaim), node: node?.metadata?.name, providerID: nodeClaim.status?.providerID },
    "terminated nodeclaim",
  );
}

async function finish(deps: NodeClaimDeps, nodeClaim: NodeClaim, node: Node | undefined): Promise<StepResult> {
  if (node !== undefined) {
    if (node.metadata?.deletionTimestamp === undefined) await deps.cluster.deleteNode(node.metadata?.name ?? "");
    await deps.cluster.removeNodeFinalizer(node, Keys.finalizer);
  }
  await deps.cluster.removeNodeClaimFinalizer(nodeClaim, Keys.finalizer);
  recordFinished(deps, nodeClaim, node);
  return {};
}

/** Runs one termination pass for a NodeClaim being deleted. */
export async function terminate(deps: NodeClaimDeps, nodeClaim: NodeClaim): Promise<StepResult> {
  if (!(nodeClaim.metadata?.finalizers ?? []).includes(Keys.finalizer)) return {};
  if (finished.get(deps)?.get(nameOf(nodeClaim)) === String(nodeClaim.metadata?.uid)) return {};
  const recorded = await recordUnrecordedInstance(deps, nodeClaim);
  if (recorded !== undefined) return recorded;
  const node = nodeFor(deps, nodeClaim);
  const steps: (() => Promise<StepResult>)[] = [() => ensureDeadline(deps, nodeClaim)];
  if (node !== undefined)
    steps.push(
      () => ensureTainted(deps, node),
      () => drain(deps, nodeClaim, node),
      () => awaitVolumeDetachment(deps, nodeClaim, node),
    );
  steps.push(() => terminateInstance(deps, nodeClaim));
  for (const step of steps) {
    const result = await step();
    if (result !== undefined) return result;
  }
  return finish(deps, nodeClaim, node);
}

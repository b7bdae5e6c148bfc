/**
 * Pure drain decisions for node termination (karpenter-behaviour.md §3.2): which pods to evict now,
 * which to delete because the terminationGracePeriod deadline forces it, and whether the node is drained.
 * Eviction goes group by group: non-critical non-DaemonSet → non-critical DaemonSet → critical
 * non-DaemonSet → critical DaemonSet; a group starts only when the earlier ones are empty.
 */
import type { Pod, Toleration } from "../lifecycle/objects.ts";
import { timeMs } from "../lifecycle/objects.ts";

const CRITICAL = new Set(["system-cluster-critical", "system-node-critical"]);
const DISRUPTED_TAINT = { key: "karpenter.sh/disrupted", effect: "NoSchedule" };
const DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt";

/** A pod to delete directly (bypassing PDBs) with this grace period. */
export interface ForcedDeletion {
  readonly pod: Pod;
  readonly graceSeconds: number;
}

/** The decision for one drain pass. */
export interface DrainPlan {
  /** Pods to evict through the Eviction API now (PDBs apply). */
  readonly evict: readonly Pod[];
  /** Pods the TGP deadline forces out now. */
  readonly forceDelete: readonly ForcedDeletion[];
  /** Pods held back by karpenter.sh/do-not-disrupt until the deadline. */
  readonly blocked: readonly Pod[];
  /** Pods still present that drain waits for (terminating or to be evicted). */
  readonly remaining: number;
  /** True when no pod that needs draining is left. */
  readonly drained: boolean;
  /** When the next TGP-forced deletion is due (ms from now), if any. */
  readonly nextDeadlineInMs?: number;
}

function tolerates(t: Toleration): boolean {
  const effectOk = t.effect === undefined || t.effect === "" || t.effect === DISRUPTED_TAINT.effect;
  if (t.operator === "Exists")
    return effectOk && (t.key === undefined || t.key === "" || t.key === DISRUPTED_TAINT.key);
  return effectOk && t.key === DISRUPTED_TAINT.key && (t.value ?? "") === "";
}

/** Whether the pod is a mirror (static) pod: the kubelet owns it, the API cannot evict it. */
export function isMirror(pod: Pod): boolean {
  return (
    pod.metadata?.annotations?.["kubernetes.io/config.mirror"] !== undefined ||
    (pod.metadata?.ownerReferences ?? []).some((o) => o.kind === "Node")
  );
}

function isDaemonSetPod(pod: Pod): boolean {
  return (pod.metadata?.ownerReferences ?? []).some((o) => o.kind === "DaemonSet" && o.controller === true);
}

/** Whether the pod tolerates karpenter.sh/disrupted:NoSchedule (the drain leaves it running). */
export function toleratesDisruption(pod: Pod): boolean {
  return (pod.spec?.tolerations ?? []).some(tolerates);
}

/** Whether the pod needs draining at all: not terminal, not a mirror pod, not tolerating karpenter.sh/disrupted. */
export function needsDrain(pod: Pod): boolean {
  const phase = pod.status?.phase;
  if (phase === "Succeeded" || phase === "Failed") return false;
  if (isMirror(pod)) return false;
  return !toleratesDisruption(pod);
}

/** 0..3: Karpenter's eviction priority group. */
export function drainGroup(pod: Pod): number {
  const critical = CRITICAL.has(pod.spec?.priorityClassName ?? "");
  return (critical ? 2 : 0) + (isDaemonSetPod(pod) ? 1 : 0);
}

/** Whether the pod opts out of voluntary eviction. */
export function hasDoNotDisrupt(pod: Pod): boolean {
  const value = pod.metadata?.annotations?.[DO_NOT_DISRUPT];
  return value !== undefined && value !== "false";
}

const isTerminating = (pod: Pod): boolean => pod.metadata?.deletionTimestamp !== undefined;

function forced(
  pods: readonly Pod[],
  deadlineMs: number | undefined,
  nowMs: number,
): { now: ForcedDeletion[]; nextInMs?: number } {
  if (deadlineMs === undefined) return { now: [] };
  const now: ForcedDeletion[] = [];
  let next: number | undefined;
  for (const pod of pods) {
    if (isTerminating(pod)) continue;
    const dueAt = deadlineMs - (pod.spec?.terminationGracePeriodSeconds ?? 30) * 1000;
    if (dueAt <= nowMs) now.push({ pod, graceSeconds: Math.max(1, Math.ceil((deadlineMs - nowMs) / 1000)) });
    else next = Math.min(next ?? Infinity, dueAt - nowMs);
  }
  return next === undefined ? { now } : { now, nextInMs: next };
}

/**
 * One drain pass: `deadlineMs` is the node's TGP deadline (undefined when the NodeClaim
 * has no terminationGracePeriod).
 */
export function planDrain(pods: readonly Pod[], nowMs: number, deadlineMs?: number): DrainPlan {
  const drainable = pods.filter(needsDrain);
  const force = forced(drainable, deadlineMs, nowMs);
  const forcedSet = new Set(force.now.map((f) => f.pod));
  const expired = deadlineMs !== undefined && nowMs >= deadlineMs;
  const candidates = drainable.filter((p) => !forcedSet.has(p));
  const group = Math.min(...candidates.map(drainGroup), 4);
  const inGroup = candidates.filter((p) => drainGroup(p) === group && !isTerminating(p));
  const blocked = expired ? [] : inGroup.filter(hasDoNotDisrupt);
  const evict = inGroup.filter((p) => !blocked.includes(p));
  const base = { evict, forceDelete: force.now, blocked, remaining: drainable.length, drained: drainable.length === 0 };
  return force.nextInMs === undefined ? base : { ...base, nextDeadlineInMs: force.nextInMs };
}

/**
 * The TGP deadline: an existing annotation wins (it survives restarts); else deletion
 * time + terminationGracePeriod.
 */
export function terminationDeadline(
  annotation: string | undefined,
  deletionTimestamp: Date | string | undefined,
  gracePeriodMs: number | undefined,
): number | undefined {
  const stored = timeMs(annotation);
  if (stored !== undefined) return stored;
  const deleted = timeMs(deletionTimestamp);
  if (deleted === undefined || gracePeriodMs === undefined) return undefined;
  return deleted + gracePeriodMs;
}

/**
 * Expendable pods (kerf's --expendable-pods-priority-cutoff, Cluster Autoscaler's setting of the same name; asked
 * for in karpenter core#1396): a pending pod whose priority is below the cutoff never launches a node. It still
 * goes to existing capacity (Nodes, in-flight NodeClaims), where kube-scheduler binds it when there is room.
 * Only pending pods are expendable this way: pods the operator itself displaces (a deleting node's, a
 * consolidation's) are placed as Karpenter places them, so the cutoff never leaves a disrupted pod without a place.
 */
import type { Pod } from "../lifecycle/objects.ts";

/** A pod's priority as the apiserver's Priority admission sets it; 0 without one (no PriorityClass, no default). */
export function podPriority(pod: Pod): number {
  return pod.spec?.priority ?? 0;
}

/** Why the pod may not launch a node, or undefined when it may (no cutoff, or priority at or above it). */
export function noLaunchReason(pod: Pod, cutoff: number | undefined): string | undefined {
  if (cutoff === undefined) return undefined;
  const priority = podPriority(pod);
  if (priority >= cutoff) return undefined;
  return (
    `pod priority ${priority} is below the expendable-pods priority cutoff ${cutoff} ` +
    "(--expendable-pods-priority-cutoff): it schedules onto existing capacity only and never launches a node, " +
    "and no existing node or in-flight NodeClaim has room"
  );
}

/**
 * A cutoff as written (flag, env var, chart value): a 32-bit integer, as a pod's
 * priority is; "" is undefined (off).
 */
export function parsePriorityCutoff(raw: string): number | undefined {
  if (raw.trim() === "") return undefined;
  const n = Number(raw);
  if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < -2147483648 || n > 2147483647) {
    throw new RangeError(`"${raw}" is not a 32-bit integer pod priority`);
  }
  return n;
}

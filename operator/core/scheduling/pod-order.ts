/**
 * The order the scheduling loop (solver.ts) takes pods in: Karpenter's queue order, and the packing order
 * (largest dominant share of the batch first) kerf puts in front of it. Both are total orders, so a
 * simulation of the same pods is the same whatever order they arrive in.
 */
import type { SimPod } from "./types.ts";

/** Queue order: CPU desc, memory desc, creation order, UID. */
export function queueOrder(a: SimPod, b: SimPod): number {
  return (
    (b.requests["cpu"] ?? 0) - (a.requests["cpu"] ?? 0) ||
    (b.requests["memory"] ?? 0) - (a.requests["memory"] ?? 0) ||
    (a.creationOrder ?? 0) - (b.creationOrder ?? 0) ||
    (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0)
  );
}

/**
 * Packing order: largest dominant share first (a pod's largest fraction of the batch's total CPU or
 * memory), then Karpenter's queue order. CPU-descending order alone places every CPU-heavy pod
 * before any memory-heavy one, so the first NodeClaims fill their CPU and strand memory; by dominant
 * share, big pods of either kind come first and NodeClaims get both.
 */
export function dominantShareOrder(pods: readonly SimPod[]): (a: SimPod, b: SimPod) => number {
  const total = (key: string): number => pods.reduce((s, p) => s + (p.requests[key] ?? 0), 0) || 1;
  const [cpu, memory] = [total("cpu"), total("memory")];
  const share = (p: SimPod): number => Math.max((p.requests["cpu"] ?? 0) / cpu, (p.requests["memory"] ?? 0) / memory);
  return (a, b) => share(b) - share(a) || queueOrder(a, b);
}

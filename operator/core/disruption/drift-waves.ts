/**
 * Where a NodePool's drift rollout in waves stands (policies/domain/drift-waves.ts has the annotation and
 * the wave arithmetic), read from the cluster alone so any leader, after any restart, reads the same:
 * - the rollout began when its earliest still-drifted NodeClaim turned Drifted;
 * - a node is replaced and settled when a NodeClaim of the pool created since then is Initialized, its Node
 *   Ready and every pod on it Running (a new pool node counts as one too: it settled under the new spec);
 * - a node is being replaced while its drifted NodeClaim is deleting, tainted `karpenter.sh/disrupted` or in
 *   a command, or while a fresh NodeClaim has not settled; a replacement and its candidate count once (the
 *   command annotation pairs them, core/disruption/intent.ts).
 * A drifted node removed without a replacement (its pods fit elsewhere) frees its budget but does not grow
 * the next wave.
 */
import { driftRolloutOf, wavePosition, type WavePosition } from "../../../policies/domain/drift-waves.ts";
import type { Meta, Node, NodeClaim, Pod } from "../lifecycle/objects.ts";
import { findCondition, isTrue, timeMs } from "../lifecycle/objects.ts";
import { Keys } from "../lifecycle/registration.ts";
import { intentOf } from "./intent.ts";

export interface WaveInput {
  readonly pool: { readonly metadata?: Meta | undefined };
  /** The pool's NodeClaims, deleting ones included. */
  readonly claims: readonly NodeClaim[];
  readonly nodes: readonly Node[];
  /** The cluster's pods; absent (a budget read without pods), a node's pods are not waited for. */
  readonly pods?: readonly Pod[] | undefined;
  /** NodeClaims in a command being executed. */
  readonly inFlight?: ReadonlySet<string> | undefined;
}

/** A rollout in waves in progress. */
export interface DriftWaves extends WavePosition {
  /** When the rollout began (ms). */
  readonly since: number;
  readonly done: number;
  readonly inProgress: number;
  /** Drifted NodeClaims not yet being replaced. */
  readonly waiting: number;
}

const drifted = (c: NodeClaim): boolean => isTrue(c.status?.conditions, "Drifted");

function driftedAt(c: NodeClaim): number {
  return (
    timeMs(findCondition(c.status?.conditions, "Drifted")?.lastTransitionTime) ??
    timeMs(c.metadata?.creationTimestamp) ??
    0
  );
}

/** The pool's rollout in waves, or undefined when the pool does not ask for waves or nothing is drifted. */
export function driftWaves(input: WaveInput): DriftWaves | undefined {
  if (driftRolloutOf(input.pool.metadata?.annotations).kind !== "waves") return undefined;
  const old = input.claims.filter(drifted);
  if (old.length === 0) return undefined;
  const since = Math.min(...old.map(driftedAt));
  const nodeOf = new Map(input.nodes.map((n) => [n.spec?.providerID ?? "", n]));
  const podsOn = new Map<string, Pod[]>();
  for (const pod of input.pods ?? []) {
    const name = pod.spec?.nodeName ?? "";
    if (name !== "") podsOn.set(name, [...(podsOn.get(name) ?? []), pod]);
  }
  const settled = (c: NodeClaim): boolean => {
    const node = nodeOf.get(c.status?.providerID ?? "");
    if (
      !isTrue(c.status?.conditions, "Initialized") ||
      node === undefined ||
      !isTrue(node.status?.conditions, "Ready")
    ) {
      return false;
    }
    const pods = podsOn.get(node.metadata?.name ?? "") ?? [];
    return pods.every((p) => ["Running", "Succeeded", "Failed"].includes(p.status?.phase ?? ""));
  };
  const started = (c: NodeClaim): boolean => {
    if (c.metadata?.deletionTimestamp !== undefined || input.inFlight?.has(c.metadata?.name ?? "") === true)
      return true;
    const taints = nodeOf.get(c.status?.providerID ?? "")?.spec?.taints ?? [];
    return taints.some((t) => t.key === Keys.disruptedTaint);
  };
  const replacing = old.filter(started);
  const replacingNames = new Set(replacing.map((c) => c.metadata?.name ?? ""));
  const fresh = input.claims.filter(
    (c) =>
      !drifted(c) &&
      c.metadata?.deletionTimestamp === undefined &&
      (timeMs(c.metadata?.creationTimestamp) ?? 0) >= since,
  );
  const done = fresh.filter(settled).length;
  // A fresh claim still settling is one more node in progress, unless it replaces a candidate counted above.
  const unpaired = fresh.filter(
    (c) => !settled(c) && !(intentOf(c)?.candidates.some((name) => replacingNames.has(name)) ?? false),
  ).length;
  const inProgress = replacing.length + unpaired;
  return { ...wavePosition({ done, inProgress }), since, done, inProgress, waiting: old.length - replacing.length };
}

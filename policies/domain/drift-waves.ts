/**
 * kerf extension: the NodePool annotation `kerf.dev/drift-rollout: waves` paces a Drifted rollout in
 * growing waves of 1, 2, 4, … nodes (Karpenter users ask for it: core#1775). A wave starts only once every
 * node of the one before is replaced, its NodeClaim Initialized and its pods Running, so a bad AMI or
 * user data stops after one node; the disruption budgets still cap each wave. Read the same way by the
 * webhook's policy, `kerf check --diff` and the operator. Karpenter ignores the annotation.
 */
export const DRIFT_ROLLOUT_ANNOTATION = "kerf.dev/drift-rollout";
export const DRIFT_ROLLOUT_WAVES = "waves";

export type DriftRollout =
  { readonly kind: "absent" } | { readonly kind: "waves" } | { readonly kind: "invalid"; readonly message: string };

/** The annotation read from a NodePool's annotations. */
export function driftRolloutOf(annotations: Readonly<Record<string, unknown>> | undefined): DriftRollout {
  const value = annotations?.[DRIFT_ROLLOUT_ANNOTATION];
  if (value === undefined) return { kind: "absent" };
  if (value === DRIFT_ROLLOUT_WAVES) return { kind: "waves" };
  return { kind: "invalid", message: `${JSON.stringify(value)} is not "${DRIFT_ROLLOUT_WAVES}"` };
}

/** Where a rollout in waves stands: `done` nodes replaced (and settled), `inProgress` being replaced now. */
export interface WaveProgress {
  readonly done: number;
  readonly inProgress: number;
}

/** The wave the rollout is in (1-based), its size, and how many more of its nodes may start now. */
export interface WavePosition {
  readonly wave: number;
  readonly size: number;
  /** Nodes of this wave replaced and settled. */
  readonly settled: number;
  /** How many more drifted nodes may start being replaced now (0 while the wave's started nodes settle). */
  readonly startable: number;
}

/**
 * Wave k (1-based) holds 2^(k-1) nodes, so k waves replace 2^k - 1. With `done` settled replacements the
 * rollout is in the wave whose range holds the next node; that wave may start what it has not started yet.
 * A node that has started but not settled counts against its wave, so a wave never outgrows its size and the
 * next wave waits until every node of this one has settled.
 */
export function wavePosition(progress: WaveProgress): WavePosition {
  const done = Math.max(0, Math.floor(progress.done));
  const wave = Math.floor(Math.log2(done + 1)) + 1;
  const size = 2 ** (wave - 1);
  const before = size - 1;
  const settled = done - before;
  return { wave, size, settled, startable: Math.max(0, size - settled - Math.max(0, progress.inProgress)) };
}

/**
 * The wave sizes a rollout of `drifting` nodes takes: 1, 2, 4, … and what is left. The budgets may replace
 * fewer of a wave's nodes at a time; the wave still ends only when all of them have settled.
 */
export function waveSizes(drifting: number): number[] {
  const out: number[] = [];
  for (let left = Math.max(0, Math.floor(drifting)), size = 1; left > 0; size *= 2) {
    out.push(Math.min(size, left));
    left -= Math.min(size, left);
  }
  return out;
}

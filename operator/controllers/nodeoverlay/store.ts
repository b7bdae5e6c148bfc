/**
 * The evaluated NodeOverlays the operator schedules and launches with (Karpenter's InstanceTypeStore): the
 * nodeoverlay controller replaces the evaluation whole; readers apply it to the instance types they list.
 */
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { applyOverlays, type OverlayEvaluation } from "../../core/overlay/apply.ts";

export class OverlayStore {
  private evaluation: OverlayEvaluation | undefined;

  /** Replaces the evaluation (one reconcile's view of every overlay and pool). */
  set(evaluation: OverlayEvaluation): void {
    this.evaluation = evaluation;
  }

  /**
   * The pool's types with the overlays applied; undefined while the pool has not been evaluated (Karpenter
   * leaves such a pool out of scheduling rather than schedule it at prices an overlay may change).
   */
  apply(pool: string, types: readonly InstanceType[]): readonly InstanceType[] | undefined {
    const evaluation = this.evaluation;
    if (evaluation === undefined || !evaluation.evaluatedPools.has(pool)) return undefined;
    return applyOverlays(evaluation, pool, types);
  }
}

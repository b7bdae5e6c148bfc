/**
 * One consolidation question for a set of candidates (behaviour §4.3, §4.7): delete when their pods
 * fit on the other nodes; else replace with one strictly cheaper NodeClaim. Karpenter's capacity-type
 * rules apply to the replacement: a replacement that may be spot or on-demand is pinned to spot (its
 * options were priced as spot); replacing spot with spot needs the SpotToSpotConsolidation gate and,
 * for one node, 15 cheaper spot types (spotToSpot). `Balanced`
 * pools also need the savings to be worth the disruption (Karpenter's per-pool score ≥ 1/2, balancedRejects).
 */
import { cheapestOffering, typesMinValuesGap, type InstanceType } from "../../../policies/domain/instance-types.ts";
import { Label } from "../../../policies/domain/labels.ts";
import { SPOT_TO_SPOT_ANNOTATION } from "../../../policies/domain/spot-to-spot.ts";
import { Requirement, Requirements } from "../../../policies/domain/requirements.ts";
import { consolidate } from "../consolidation/questions.ts";
import { cheaperThan, rankOptions } from "../selection/select-offerings.ts";
import type { PlannedNodeClaim, SimulateOptions, Snapshot } from "../scheduling/types.ts";
import type { CompactSnapshot } from "./compact-snapshot.ts";
import type { Candidate } from "./types.ts";

/** Karpenter's MinInstanceTypesForSpotToSpotConsolidation. */
export const SPOT_TO_SPOT_MIN_TYPES = 15;

export type Evaluation =
  | {
      readonly ok: true;
      readonly decision: "delete" | "replace";
      readonly replacement?: PlannedNodeClaim;
      readonly savingsPerHour: number;
    }
  | { readonly ok: false; readonly reason: string };

/** A NodePool's totals for Balanced scoring: hourly price and RescheduleDisruptionCost of all its nodes. */
export interface PoolTotals {
  readonly price: number;
  readonly cost: number;
}

/** What every evaluation in a pass shares. */
export interface EvaluationContext {
  readonly snapshot: Snapshot;
  /** `snapshot` with the staying nodes' bound pods folded into their requests where no moving pod can see them. */
  readonly compact: CompactSnapshot;
  /** Pods that go away with their node (DaemonSet, mirror). */
  readonly stays: ReadonlySet<string>;
  /** The SpotToSpotConsolidation feature gate. */
  readonly spotToSpot: boolean;
  /** Per pool, its kerf.dev/spot-to-spot-consolidation when set: overrides the gate for its nodes. */
  readonly spotToSpotPools: ReadonlyMap<string, boolean>;
  /** Per pool: hourly price and disruption cost of all its nodes (Balanced scoring, plan.ts poolTotals). */
  readonly poolTotals: ReadonlyMap<string, PoolTotals>;
  /** Per pool: its consolidationPolicy. */
  readonly policies: ReadonlyMap<string, string>;
  /** Per pool: the names of its instance types (a candidate of another type cannot be priced). */
  readonly poolTypes?: ReadonlyMap<string, ReadonlySet<string>>;
  /** Options of every simulation the pass runs (the operator's, as provisioning uses them). */
  readonly scheduling: SimulateOptions;
}

const hasOffering = (types: readonly InstanceType[], reqs: Requirements, capacityType: string): boolean => {
  const pinned = reqs.with(Requirement.in(Label.capacityType, [capacityType]));
  return types.some((t) => cheapestOffering(t, pinned) !== undefined);
};

function pinned(
  replacement: PlannedNodeClaim,
  reqs: Requirements,
  ceiling: number,
  keep: number | undefined,
): PlannedNodeClaim | string {
  const spot = reqs.with(Requirement.in(Label.capacityType, ["spot"]));
  const cheaper = cheaperThan(replacement.instanceTypes, spot, ceiling);
  const ranked = rankOptions(cheaper, spot, keep);
  if (ranked === undefined || ranked.minValuesProblem !== undefined)
    return ranked?.minValuesProblem ?? "no spot replacement is cheaper than the candidates";
  return {
    ...replacement,
    requirements: spot
      .with(
        Requirement.in(
          Label.instanceType,
          ranked.types.map((t) => t.name),
        ),
      )
      .toSelectors(),
    instanceTypes: ranked.types,
    launch: ranked.launch,
  };
}

/**
 * Why spot-to-spot is off for one of the candidates (the pool's annotation, else the
 * gate); undefined when on for all.
 */
function spotToSpotOff(ctx: EvaluationContext, candidates: readonly Candidate[]): string | undefined {
  for (const c of candidates) {
    const pool = ctx.spotToSpotPools.get(c.nodePool);
    if (pool === false) {
      const annotated = `NodePool ${c.nodePool} has ${SPOT_TO_SPOT_ANNOTATION}: "false"`;
      return `spot nodes are only deleted, not replaced: ${annotated}`;
    }
    if (pool === undefined && !ctx.spotToSpot) {
      return (
        `spot nodes are only deleted, not replaced, unless the SpotToSpotConsolidation feature gate is on ` +
        `(or NodePool ${c.nodePool} has ${SPOT_TO_SPOT_ANNOTATION}: "true")`
      );
    }
  }
  return undefined;
}

/**
 * How many of `types` (cheapest first) it takes to span the requirements' minValues (Karpenter's
 * SatisfiesMinValues count); 0 without minValues. Adding types only adds values, so a binary search finds it.
 */
function typesForMinValues(types: readonly InstanceType[], reqs: Requirements): number {
  if (reqs.minValues().size === 0) return 0;
  let lo = 1;
  let hi = types.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (typesMinValuesGap(types.slice(0, mid), reqs) === undefined) hi = mid;
    else lo = mid + 1;
  }
  return hi;
}

/**
 * Karpenter's spot-to-spot rules: the replacement is pinned to spot and keeps only types cheaper than
 * the candidates wherever they launch. Several candidates need nothing more (consolidation.go: "we don't
 * have any requirement to check the remaining instance type flexibility"). One candidate needs 15
 * cheaper types, and the launch is cut to the 15 cheapest (or as many of the cheapest as minValues
 * needs) so the fleet's pick is always among them and the next pass does not replace it again. Karpenter
 * has no "own type among the 15 cheapest" check: worst-price filtering keeps the candidate's own type out
 * unless it is cheaper wherever the replacement may land (review S17c).
 */
function spotToSpot(
  ctx: EvaluationContext,
  candidates: readonly Candidate[],
  replacement: PlannedNodeClaim,
  price: number,
): PlannedNodeClaim | string {
  const off = spotToSpotOff(ctx, candidates);
  if (off !== undefined) return off;
  const reqs = Requirements.fromSelectors(replacement.requirements);
  const full = pinned(replacement, reqs, price, undefined);
  if (typeof full === "string" || candidates.length > 1) return full;
  if (full.instanceTypes.length < SPOT_TO_SPOT_MIN_TYPES) {
    return (
      `spot-to-spot consolidation needs ${SPOT_TO_SPOT_MIN_TYPES} cheaper spot instance types, ` +
      `found ${full.instanceTypes.length}`
    );
  }
  const spot = reqs.with(Requirement.in(Label.capacityType, ["spot"]));
  const keep = Math.max(SPOT_TO_SPOT_MIN_TYPES, typesForMinValues(full.instanceTypes, spot));
  return pinned(replacement, reqs, price, keep);
}

/**
 * Karpenter's filterOutSameType for several candidates: when a candidate's own type is among the
 * options, keep only options cheaper than the cheapest such candidate (replacing two c5.large with
 * one c5.large is a delete of one of them, which single-node consolidation finds without churn).
 */
function withoutSameType(candidates: readonly Candidate[], replacement: PlannedNodeClaim): PlannedNodeClaim | string {
  if (candidates.length < 2) return replacement;
  const names = new Set(replacement.instanceTypes.map((t) => t.name));
  const same = candidates.filter((c) => names.has(c.instanceType));
  if (same.length === 0) return replacement;
  const ceiling = Math.min(...same.map((c) => c.pricePerHour));
  const reqs = Requirements.fromSelectors(replacement.requirements);
  const ranked = rankOptions(cheaperThan(replacement.instanceTypes, reqs, ceiling), reqs);
  if (ranked === undefined || ranked.minValuesProblem !== undefined)
    return "the only replacements are the candidates' own instance types";
  return {
    ...replacement,
    requirements: reqs
      .with(
        Requirement.in(
          Label.instanceType,
          ranked.types.map((t) => t.name),
        ),
      )
      .toSelectors(),
    instanceTypes: ranked.types,
    launch: ranked.launch,
  };
}

/** Applies the capacity-type rules to a cheaper replacement; a string says why there is none. */
function capacityRules(
  ctx: EvaluationContext,
  candidates: readonly Candidate[],
  replacement: PlannedNodeClaim,
  price: number,
): PlannedNodeClaim | string {
  const reqs = Requirements.fromSelectors(replacement.requirements);
  const spot = hasOffering(replacement.instanceTypes, reqs, "spot");
  if (candidates.every((c) => c.capacityType === "spot") && spot)
    return spotToSpot(ctx, candidates, replacement, price);
  return spot && hasOffering(replacement.instanceTypes, reqs, "on-demand")
    ? pinned(replacement, reqs, price, undefined)
    : replacement;
}

/** Karpenter's BalancedK: a move passes when its savings share is at least 1/K of its disruption share. */
const BALANCED_K = 2;

/**
 * Karpenter's ScoreMove (balanced.go): the share of the pool's cost saved over the share of its disruption
 * cost caused. A pool without cost or disruption to normalise against, or a move that saves nothing,
 * scores 0; a move that disrupts nothing scores Infinity.
 */
interface Score {
  readonly saved: number;
  readonly disrupted: number;
  readonly score: number;
}

function balancedScore(savings: number, disruption: number, totals: PoolTotals | undefined): Score {
  if (totals === undefined || totals.price <= 0 || totals.cost <= 0) return { saved: 0, disrupted: 0, score: 0 };
  const saved = savings / totals.price;
  const disrupted = disruption / totals.cost;
  return { saved, disrupted, score: saved <= 0 ? 0 : disrupted === 0 ? Infinity : saved / disrupted };
}

/**
 * Balanced, as Karpenter's EvaluateBalancedMove: each Balanced pool of the move is scored on its own, its
 * candidates' RescheduleDisruptionCost against the pool's totals (totals over all its nodes), with the
 * savings split by the pools' shares of the candidates' price; every Balanced pool must approve.
 */
function balancedRejects(
  ctx: EvaluationContext,
  candidates: readonly Candidate[],
  savings: number,
): string | undefined {
  const byPool = new Map<string, Candidate[]>();
  for (const c of candidates) byPool.set(c.nodePool, [...(byPool.get(c.nodePool) ?? []), c]);
  const source = candidates.reduce((s, c) => s + c.pricePerHour, 0);
  for (const [pool, members] of byPool) {
    if (ctx.policies.get(pool) !== "Balanced") continue;
    const price = members.reduce((s, c) => s + c.pricePerHour, 0);
    const share = byPool.size > 1 && source > 0 ? savings * (price / source) : savings;
    const disruption = members.reduce((s, c) => s + c.rescheduleCost, 0);
    const { saved, disrupted, score } = balancedScore(share, disruption, ctx.poolTotals.get(pool));
    if (score >= 1 / BALANCED_K) continue;
    return (
      `Balanced policy: saves ${(saved * 100).toFixed(1)}% of NodePool ${pool}'s cost for ` +
      `${(disrupted * 100).toFixed(1)}% of its disruption (needs at least 1/${BALANCED_K})`
    );
  }
  return undefined;
}

/**
 * Karpenter's CanPassThreshold: whether deleting the candidate outright (the best any move can do) would
 * pass its pool's Balanced score; single-node consolidation does not evaluate one that would not.
 */
export function canPassBalanced(ctx: EvaluationContext, c: Candidate): boolean {
  const totals = ctx.poolTotals.get(c.nodePool);
  if (ctx.policies.get(c.nodePool) !== "Balanced" || totals === undefined || totals.price <= 0) return true;
  return balancedScore(c.pricePerHour, c.rescheduleCost, totals).score >= 1 / BALANCED_K;
}

/**
 * Why consolidation cannot price the candidate, as Karpenter's consolidation ShouldDisrupt says it (an
 * Unconsolidatable event): its instance type is not among its NodePool's, or its Node lacks the capacity
 * type or zone label; undefined when it can. Emptiness still takes such a node when it is empty.
 */
export function unpriceable(ctx: EvaluationContext, c: Candidate): string | undefined {
  const types = ctx.poolTypes?.get(c.nodePool);
  // A pool whose instance types cannot be listed now sits the pass out (Karpenter: "NodePool not found").
  if (ctx.poolTypes !== undefined && types === undefined) {
    return `the instance types of NodePool ${c.nodePool} are not known now`;
  }
  if (types !== undefined && !types.has(c.instanceType)) return `Instance Type "${c.instanceType}" not found`;
  if (c.capacityType === "") return `Node does not have label "${Label.capacityType}"`;
  if (c.zone === "") return `Node does not have label "${Label.zone}"`;
  return undefined;
}

/** Delete, replace or why not, for this set of candidates. */
export function evaluate(ctx: EvaluationContext, candidates: readonly Candidate[]): Evaluation {
  const names = new Set(candidates.map((c) => c.nodeName));
  const moving = ctx.snapshot.nodes
    .filter((n) => names.has(n.name))
    .flatMap((n) => n.pods)
    .filter((p) => !ctx.stays.has(p.uid));
  // A consolidation simulation: nodes under their consolidateAfter take none of the candidates' pods.
  const scheduling = { ...ctx.scheduling, consolidationSimulation: true };
  const result = consolidate(ctx.compact.forCandidates(names, moving), [...names], { stays: ctx.stays, scheduling });
  if (result.decision === "none") return { ok: false, reason: result.reason };
  const price = candidates.reduce((s, c) => s + c.pricePerHour, 0);
  let replacement: PlannedNodeClaim | undefined;
  if (result.decision === "replace") {
    const distinct = withoutSameType(candidates, result.replacement);
    const ruled = typeof distinct === "string" ? distinct : capacityRules(ctx, candidates, distinct, price);
    if (typeof ruled === "string") return { ok: false, reason: ruled };
    replacement = ruled;
  }
  const savingsPerHour = price - (replacement?.launch.pricePerHour ?? 0);
  const rejected = balancedRejects(ctx, candidates, savingsPerHour);
  if (rejected !== undefined) return { ok: false, reason: rejected };
  return replacement === undefined
    ? { ok: true, decision: "delete", savingsPerHour }
    : { ok: true, decision: "replace", replacement, savingsPerHour };
}

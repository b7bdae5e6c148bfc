/**
 * Whether a planned NodeClaim may grow to take a pod (solver.ts's header, "Cost-aware packing"). Within
 * its target (sizing.ts) it grows while the cheapest option holding the pods costs no more than the target
 * and a spot-capable option is left. Past the target, the price it adds must be no more than a new
 * NodeClaim would charge for the value the pod adds, and its price stays within maxPriceRatio times what
 * its pods are worth. When no other NodeClaim may open, growth is the only way and no rule applies.
 */
import type { Bitset } from "./bitset.ts";
import type { ClaimSizer } from "./claim-sizer.ts";
import type { PoolTypes } from "./pool-types.ts";
import type { Candidate, ClaimTarget, Narrowed } from "./targets.ts";

/** Which growth rules apply: none (no other NodeClaim may open), the target's, or the cost rules. */
export type Rules = false | "target" | "rules";

/** What the rules read of the solver. */
export interface GrowthContext {
  /** SimulateOptions.maxPriceRatio, defaulted. */
  readonly maxPriceRatio: number;
  /** Sizes a new NodeClaim (claim-sizer.ts): the ratio a growth is held to. */
  readonly sizer: ClaimSizer;
  /** The types a new NodeClaim of `pool` could launch now (its limits); undefined when none may open. */
  readonly openable: (pool: PoolTypes) => Bitset | undefined;
}

export class GrowthRules {
  private readonly context: GrowthContext;
  private scratch = new Float64Array(0);

  constructor(context: GrowthContext) {
    this.context = context;
  }

  /** Whether a growth passes: no rules (no other NodeClaim may open), the target, else the cost rules. */
  allowed(claim: ClaimTarget, c: Candidate, rules: Rules, narrowed?: Narrowed): boolean {
    if (rules === false) return true;
    return (rules === "target" && this.targetAllows(claim, narrowed)) || this.mayGrow(claim, c, narrowed);
  }

  /**
   * Growth within the NodeClaim's target (sizing.ts): allowed while the cheapest option holding the
   * pods costs no more than the target and a spot-capable option is left. The target itself is within
   * maxPriceRatio of what it is expected to hold; the steps on the way there need not be.
   */
  private targetAllows(claim: ClaimTarget, narrowed: Narrowed | undefined): boolean {
    if (narrowed === undefined || claim.target === undefined || claim.losesSpot(narrowed.bits)) return false;
    return narrowed.price <= claim.target.price * (1 + 1e-9);
  }

  /** The cost rules for growing a NodeClaim (see the file comment). */
  private mayGrow(claim: ClaimTarget, c: Candidate, narrowed: Narrowed | undefined): boolean {
    if (narrowed === undefined || claim.losesSpot(narrowed.bits)) return false;
    return this.priceAllowed(claim, c, this.after(claim, c), narrowed.price);
  }

  /** The NodeClaim's use with the pod added (a scratch vector, valid until the next call). */
  private after(claim: ClaimTarget, c: Candidate): Float64Array {
    const out =
      this.scratch.length === claim.used.length ? this.scratch : (this.scratch = new Float64Array(claim.used.length));
    for (let r = 0; r < out.length; r++) out[r] = claim.used[r]! + c.vector[r]!;
    return out;
  }

  /**
   * The cost rules checked at the cheapest option that could hold the pod, ignoring the pod's own
   * requirements (a lower bound of the price tryAdd would find): a cheap filter before tryAdd.
   */
  mayGrowAtLeast(claim: ClaimTarget, c: Candidate): boolean {
    const after = this.after(claim, c);
    const i = claim.pool.firstFitting(claim.bits, after);
    return i !== undefined && this.priceAllowed(claim, c, after, claim.pool.prices[i]!);
  }

  /**
   * Growth past the target: the price the NodeClaim adds must be no more than a new NodeClaim would
   * charge for the value the pod adds (at the ratio it would be sized at, newClaimRatio), and the
   * price stays within maxPriceRatio times what the pods are worth.
   */
  private priceAllowed(claim: ClaimTarget, c: Candidate, after: Float64Array, price: number): boolean {
    const pool = claim.pool;
    const value = pool.value(after);
    if (price > this.context.maxPriceRatio * value) return false;
    const added = price - claim.price;
    if (added <= 0) return true;
    // Relative slack: on a price list linear in size the two sides are equal and differ only by rounding.
    const allowed = this.context.openable(pool);
    return added <= this.context.sizer.newClaimRatio(c, pool, allowed) * (value - pool.value(claim.used)) * (1 + 1e-6);
  }
}

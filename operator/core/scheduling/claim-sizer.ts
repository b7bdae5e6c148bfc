/**
 * The solver's side of sizing (sizing.ts): the pods still to place by class, which classes may share
 * a NodeClaim, the target of each NodeClaim that opens, and the ratio a new NodeClaim would be sized
 * at (what growing another NodeClaim competes with). One per simulation.
 */
import { RequirementError, type Requirements } from "../../../policies/domain/requirements.ts";
import { untoleratedTaint } from "../../../policies/domain/taints.ts";
import { andBits, hasBit, type Bitset } from "./bitset.ts";
import type { PoolTypes } from "./pool-types.ts";
import type { PodState } from "./preferences.ts";
import type { ResourceSpace } from "./resource-space.ts";
import { chooseTarget, Demand, perNodeCap, spreadKeys } from "./sizing.ts";
import type { DemandClass, Fill, SizeTarget, SizingInput } from "./sizing.ts";
import type { Candidate, ClaimTarget } from "./targets.ts";

/** Where a NodeClaim stands when it is sized: its options and what its pods use. */
type Placed = Pick<SizingInput, "bits" | "used">;

/** Classes of the queue the sizing of a new NodeClaim looks at. */
const SIZING_CLASSES = 32;

/**
 * A sizing answer is reused for NodeClaims opened alike (same pool, requirements and opening class)
 * while the pods still to place are at least this share of what they were when it was computed:
 * in a burst of thousands of pods the answer barely moves from one NodeClaim to the next, and the
 * last NodeClaims, sized for the few pods left, are computed afresh.
 */
const REUSE_WHILE = 0.9;

interface Remembered<T> {
  readonly value: T;
  /** Demand.total when computed. */
  readonly total: number;
}

export interface SizerOptions {
  readonly eligible: (state: PodState, key: string) => ReadonlySet<string>;
  readonly maxPriceRatio: number;
  readonly running: ReadonlySet<string>;
}

export class ClaimSizer {
  private demand = new Demand();
  private readonly shareable = new Map<string, boolean>();
  private readonly ratios = new Map<string, Remembered<number>>();
  private readonly targets = new Map<string, Remembered<SizeTarget | undefined>>();
  /** Per pool, the node budget its first NodeClaim set and the NodeClaims sized since (sizing.ts). */
  private readonly budgets = new Map<PoolTypes, { nodes: number; opened: number }>();
  /** Domains of a key a class could reach (the solver's eligible domains). */
  private readonly eligible: (state: PodState, key: string) => ReadonlySet<string>;

  private readonly maxPriceRatio: number;
  /** NodePools (by name) with nodes or in-flight NodeClaims: no extra node for them (SizingInput.slack). */
  private readonly running: ReadonlySet<string>;

  constructor(o: SizerOptions) {
    this.eligible = o.eligible;
    this.maxPriceRatio = o.maxPriceRatio;
    this.running = o.running;
  }

  /** Starts a solve over `queue` (packing order). */
  queue(queue: readonly PodState[], space: ResourceSpace): void {
    this.demand = new Demand();
    for (const state of queue) {
      this.demand.add(state.baseKey, () => ({
        state,
        vector: space.vector(state.pod.requests),
        perNode: perNodeCap(state),
        spreadKeys: spreadKeys(state),
      }));
    }
  }

  placed(state: PodState): void {
    this.demand.placed(state.baseKey);
  }

  /** Sets the target of a NodeClaim that just opened for `c`. */
  size(claim: ClaimTarget, c: Candidate): void {
    const { pool, requirements: reqs } = claim;
    const fills = this.fillsFor(pool, reqs, c);
    if (fills.length === 0) return;
    const budget = this.budgets.get(pool);
    const id = `${pool.pool.name}|${reqs.signature()}|${c.state.key}`;
    const known = this.fresh(this.targets.get(id));
    const reusable = known !== undefined && (known.value === undefined || hasBit(claim.bits, known.value.index));
    if (reusable) claim.target = known.value;
    else {
      claim.target = chooseTarget(this.input(pool, reqs, claim, fills));
      this.targets.set(id, { value: claim.target, total: this.demand.total });
    }
    if (budget !== undefined) budget.opened++;
    else if (claim.target !== undefined) this.budgets.set(pool, { nodes: claim.target.nodes, opened: 1 });
  }

  /** The nodes a pool's budget leaves (undefined before its first NodeClaim is sized). */
  private nodesLeft(pool: PoolTypes): number | undefined {
    const budget = this.budgets.get(pool);
    return budget === undefined ? undefined : Math.max(1, budget.nodes - budget.opened);
  }

  /** A remembered answer while the queue is still close to what it was (REUSE_WHILE). */
  private fresh<T>(known: Remembered<T> | undefined): Remembered<T> | undefined {
    return known !== undefined && this.demand.total >= REUSE_WHILE * known.total ? known : undefined;
  }

  /**
   * The price per unit of value a new NodeClaim of `pool` opened for `c` now would be sized at, among
   * `allowed` types (undefined: none may open, Infinity). Remembered per class and pool (REUSE_WHILE).
   */
  newClaimRatio(c: Candidate, pool: PoolTypes, allowed: Bitset | undefined): number {
    if (allowed === undefined) return Infinity;
    // While limits bind, the allowed types change with every NodeClaim: no reuse then.
    const id = allowed === pool.all ? `${pool.pool.name}|${c.state.key}` : undefined;
    const cached = id === undefined ? undefined : this.fresh(this.ratios.get(id));
    if (cached !== undefined) return cached.value;
    const ratio = this.ratioAmong(c, pool, allowed);
    if (id !== undefined) this.ratios.set(id, { value: ratio, total: this.demand.total });
    return ratio;
  }

  private ratioAmong(c: Candidate, pool: PoolTypes, allowed: Bitset): number {
    const { tolerations } = c.state.pod;
    if (untoleratedTaint(pool.pool.taints, tolerations, c.state.strictSoftTaints) !== undefined) return Infinity;
    try {
      const reqs = pool.requirements.intersect(c.state.requirements());
      const bits = pool.fitting(andBits(allowed, pool.typesFor(reqs)), c.vector);
      const fills = this.fillsFor(pool, reqs, c);
      return chooseTarget(this.input(pool, reqs, { bits, used: c.vector }, fills))?.ratio ?? Infinity;
    } catch (error) {
      if (!(error instanceof RequirementError)) throw error;
      return Infinity;
    }
  }

  /** A sizing question for a NodeClaim of `pool` under `reqs` with options `bits` holding `used`. */
  private input(pool: PoolTypes, reqs: Requirements, at: Placed, fills: Fill[]): SizingInput {
    const priceOf = (i: number): number => pool.priceUnder(i, reqs);
    const slack = !this.budgets.has(pool) && !this.running.has(pool.pool.name);
    return { pool, ...at, priceOf, fills, nodesLeft: this.nodesLeft(pool), slack, maxPriceRatio: this.maxPriceRatio };
  }

  /**
   * What may share a NodeClaim of `pool` under `reqs` opened for `c`: the queue's classes that could
   * (at most SIZING_CLASSES), each as what one node may hold of it and how many of it are left.
   */
  private fillsFor(pool: PoolTypes, reqs: Requirements, c: Candidate): Fill[] {
    const fills: Fill[] = [];
    for (const d of this.demand.open(4 * SIZING_CLASSES)) {
      if (fills.length >= SIZING_CLASSES) break;
      const own = d.key === c.state.baseKey;
      let total = own ? d.remaining - 1 : d.remaining;
      if (total <= 0 || (!own && !this.mayShare(pool, reqs, d))) continue;
      for (const key of d.spreadKeys) total = Math.ceil(total / Math.max(1, this.eligible(d.state, key).size));
      const count = Math.min(total, own ? d.perNode - 1 : d.perNode);
      if (count > 0) fills.push({ vector: d.vector, count, total });
    }
    return fills;
  }

  /** Whether pods of class `d` could join a NodeClaim of `pool` under `reqs` (pool taints, requirements); cached. */
  private mayShare(pool: PoolTypes, reqs: Requirements, d: DemandClass): boolean {
    const id = `${pool.pool.name}|${reqs.signature()}|${d.key}`;
    let ok = this.shareable.get(id);
    if (ok === undefined) {
      try {
        ok =
          untoleratedTaint(pool.pool.taints, d.state.pod.tolerations, d.state.strictSoftTaints) === undefined &&
          reqs.compatible(d.state.requirements()) === undefined;
      } catch (error) {
        if (!(error instanceof RequirementError)) throw error;
        ok = false;
      }
      this.shareable.set(id, ok);
    }
    return ok;
  }
}

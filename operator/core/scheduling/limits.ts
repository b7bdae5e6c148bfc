/**
 * NodePool limits during a simulation: headroom = limit − capacity of the pool's existing nodes −
 * for each planned NodeClaim the largest capacity among its remaining options (Karpenter's
 * pessimistic subtractMax, recomputed as options narrow). Types that would breach are filtered out.
 */
import { emptyBits, forEachBit, setBit, type Bitset } from "./bitset.ts";
import type { PoolTypes } from "./pool-types.ts";
import type { ResourceSpace } from "./resource-space.ts";
import type { ExistingNode } from "./types.ts";

export class PoolLimits {
  private readonly pool: PoolTypes;
  private readonly limit: Float64Array;
  /** Resource slots the pool limits. */
  readonly limited: number[];
  private readonly nodeLimit: number | undefined;
  private readonly existing: Float64Array;
  private existingNodes = 0;
  private claims = 0;
  /** Σ over planned claims of the largest capacity among their options. */
  private readonly reserved: Float64Array;

  constructor(pool: PoolTypes, space: ResourceSpace, nodes: readonly ExistingNode[]) {
    this.pool = pool;
    const limits = pool.pool.limits ?? {};
    this.limit = space.vector(limits);
    this.limited = space.names.map((n, i) => (limits[n] === undefined ? -1 : i)).filter((i) => i >= 0);
    this.nodeLimit = limits["nodes"];
    this.existing = new Float64Array(space.size);
    this.reserved = new Float64Array(space.size);
    for (const n of nodes.filter((x) => x.nodePool === pool.pool.name)) {
      this.existingNodes++;
      const v = space.vector(n.allocatable);
      for (const i of this.limited) this.existing[i]! += v[i]!;
    }
  }

  get active(): boolean {
    return this.limited.length > 0 || this.nodeLimit !== undefined;
  }

  /** Counts a new planned claim with its options. */
  add(bits: Bitset): void {
    this.claims++;
    this.shift(undefined, bits);
  }

  /** The callback a claim calls when its options narrow (its reservation shrinks). */
  tracker(): (before: Bitset, after: Bitset) => void {
    return (before, after) => this.shift(before, after);
  }

  private shift(before: Bitset | undefined, after: Bitset): void {
    if (!this.active) return;
    const old = before === undefined ? undefined : this.pool.maxOf(before, "capacity");
    const now = this.pool.maxOf(after, "capacity");
    for (const i of this.limited) this.reserved[i]! += now[i]! - (old?.[i] ?? 0);
  }

  /** Types a new claim may use given the claims already planned; undefined when none. */
  allowedTypes(): Bitset | undefined {
    const all = this.pool.all;
    if (!this.active) return all;
    if (this.nodeLimit !== undefined && this.existingNodes + this.claims + 1 > this.nodeLimit) return undefined;
    const headroom = Float64Array.from(this.limit, (v, i) => v - this.existing[i]! - this.reserved[i]!);
    const largest = this.pool.maxOf(all, "capacity");
    if (this.limited.every((i) => largest[i]! <= headroom[i]!)) return all;
    const out = emptyBits(this.pool.types.length);
    let any = false;
    forEachBit(all, (t) => {
      if (this.limited.every((i) => this.pool.capacity[t * this.pool.width + i]! <= headroom[i]!)) {
        setBit(out, t);
        any = true;
      }
    });
    return any ? out : undefined;
  }
}

/**
 * NodePool limits during a simulation: headroom = limit − capacity of the pool's existing nodes −
 * for each planned NodeClaim the largest capacity among its remaining options (Karpenter's
 * pessimistic subtractMax, recomputed as options narrow). Types that would breach are filtered out.
 */
import { emptyBits, forEachBit, setBit, type Bitset } from "./bitset.ts";
import type { PoolTypes } from "./pool-types.ts";
import type { ResourceSpace } from "./resource-space.ts";
import type { ClaimTarget } from "./targets.ts";
import type { ExistingNode } from "./types.ts";

export class PoolLimits {
  private readonly pool: PoolTypes;
  private readonly limit: Float64Array;
  private readonly limited: number[];
  private readonly nodeLimit: number | undefined;
  private readonly existing: Float64Array;
  private existingNodes = 0;

  constructor(pool: PoolTypes, space: ResourceSpace, nodes: readonly ExistingNode[]) {
    this.pool = pool;
    const limits = pool.pool.limits ?? {};
    this.limit = space.vector(limits);
    this.limited = space.names.map((n, i) => (limits[n] === undefined ? -1 : i)).filter((i) => i >= 0);
    this.nodeLimit = limits["nodes"];
    this.existing = new Float64Array(space.size);
    for (const n of nodes.filter((x) => x.nodePool === pool.pool.name)) {
      this.existingNodes++;
      const v = space.vector(n.allocatable);
      for (const i of this.limited) this.existing[i]! += v[i]!;
    }
  }

  get active(): boolean {
    return this.limited.length > 0 || this.nodeLimit !== undefined;
  }

  /** Types a new claim may use given the claims already planned from this pool; undefined when none. */
  allowedTypes(claims: readonly ClaimTarget[]): Bitset | undefined {
    const all = emptyBits(this.pool.types.length);
    this.pool.types.forEach((_, i) => setBit(all, i));
    if (!this.active) return all;
    const mine = claims.filter((c) => c.pool === this.pool);
    if (this.nodeLimit !== undefined && this.existingNodes + mine.length + 1 > this.nodeLimit) return undefined;
    const headroom = Float64Array.from(this.limit, (v, i) => v - this.existing[i]!);
    for (const c of mine) {
      const max = this.pool.maxOf(c.bits, "capacity");
      for (const i of this.limited) headroom[i]! -= max[i]!;
    }
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

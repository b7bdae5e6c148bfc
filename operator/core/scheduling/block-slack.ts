/**
 * The slack summary the scheduling loop (solver.ts) skips planned NodeClaims with: per block of BLOCK
 * NodeClaims (creation order), the largest room left in each resource on their cheapest options. A block
 * none of whose NodeClaims has the room for a pod is skipped whole.
 *
 * Contract: the owner calls register() for each NodeClaim as it is appended to `claims`, and changed()
 * after every change to a NodeClaim (a pod added). During the loop room only shrinks, so a stale summary
 * still bounds the room from above: refreshing it (lazily, on the next hasRoom of the block) keeps the
 * skips frequent, and a new NodeClaim must be counted before its block is next scanned.
 */
import type { ResourceSpace } from "./resource-space.ts";
import type { ClaimTarget } from "./targets.ts";

/** NodeClaims per block of the slack summary (a power of 2). */
export const BLOCK = 32;

export class BlockSlack {
  private readonly space: ResourceSpace;
  private readonly claims: readonly ClaimTarget[];
  /** Per block, per resource slot: the largest room left (-Infinity: no NodeClaim with a price). */
  private slack = new Float64Array(0);
  private readonly dirty = new Set<number>();
  private readonly index = new Map<ClaimTarget, number>();

  /** `claims` is the owner's list of planned NodeClaims, read (never changed) here. */
  constructor(space: ResourceSpace, claims: readonly ClaimTarget[]) {
    this.space = space;
    this.claims = claims;
  }

  /** Records that `claim` is NodeClaim `k` of the list. */
  register(claim: ClaimTarget, k: number): void {
    this.index.set(claim, k);
  }

  /** Whether some NodeClaim of block `b` may hold `vector` on its cheapest option (summary refreshed when stale). */
  hasRoom(b: number, vector: Float64Array): boolean {
    const width = this.space.size;
    if (this.dirty.delete(b)) {
      const max = this.slack.subarray(b * width, (b + 1) * width).fill(-Infinity);
      for (let k = b * BLOCK; k < Math.min(this.claims.length, (b + 1) * BLOCK); k++) {
        const claim = this.claims[k]!;
        if (claim.price === Infinity) continue;
        const alloc = claim.cheapAlloc();
        for (let r = 0; r < width; r++) max[r] = Math.max(max[r]!, alloc[r]! - claim.used[r]!);
      }
    }
    // The margin keeps the skip on the safe side of slackHolds' used + v ≤ alloc under rounding.
    for (let r = 0; r < width; r++) if (vector[r]! > this.slack[b * width + r]! + 1e-6) return false;
    return true;
  }

  /** Marks a registered NodeClaim's block stale (it changed or was added). */
  changed(claim: ClaimTarget): void {
    const k = this.index.get(claim)!;
    const b = Math.floor(k / BLOCK);
    const width = this.space.size;
    if (this.slack.length < (b + 1) * width) {
      const grown = new Float64Array(2 * (b + 1) * width);
      grown.set(this.slack);
      this.slack = grown;
    }
    this.dirty.add(b);
  }
}

/**
 * The improvement pass after the greedy packing (solver.ts): pairs of planned NodeClaims bound by
 * different resources (one CPU-full with memory to spare, the other memory-full with CPU to spare)
 * trade pods so both end balanced, then each NodeClaim re-picks its cheapest option for what it
 * finally holds. On Karpenter's diverse benchmark the greedy plan's gap to the lower bound is almost
 * all such imbalance: NodeClaims of 400 vCPU full in one resource with a third of the other idle.
 * Two rounds (largest NodeClaims first, then smallest first); each NodeClaim trades with up to
 * PARTNERS others of its NodePool and topology domains. Existing nodes take no part (the greedy
 * already filled them first).
 *
 * Contracts: the plan's price never rises (a pod only moves where it fits within the receiving
 * NodeClaim's cheapest option, and re-picking only ever finds a cheaper one); every constraint holds
 * (each move is the solver's own tryAdd on the receiving NodeClaim, after the pod is taken out of the
 * giving one; a pod moves only when taking it out cannot break another pod's constraint: no host
 * ports, not counted by any pod affinity on hostname, and its other topology domains the same on
 * both sides so zone counts do not change). A moved pod's own constraints are checked at the
 * relaxation level it was placed at; other pods' spread constraints, as in the greedy loop and in
 * Karpenter, bind where those pods are placed. Deterministic (fixed orders); bounded (at most
 * `budget` attempted moves, each pod compared with at most LOOKS pods per partner).
 */
import { Label } from "../../../policies/domain/labels.ts";
import type { Candidate, ClaimTarget } from "./targets.ts";
import type { Group } from "./topology.ts";
import type { SimPod } from "./types.ts";

/** What the pass needs of a finished greedy plan. */
export interface PlanView {
  readonly claims: readonly ClaimTarget[];
  /** The candidate a placed pod was committed with (its relaxed state). */
  candidateOf(pod: SimPod): Candidate;
  /** Groups some pod's pod-affinity term counts: a pod they count stays where it is. */
  readonly affinityGroups: ReadonlySet<Group>;
  /** Topology keys other than hostname some group counts by (partners share their domains). */
  readonly keys: readonly string[];
  /** Records that a pod now sits on `claim`. */
  moved(pod: SimPod, claim: ClaimTarget): void;
}

/** Partners (NodeClaims bound by another resource) each NodeClaim trades with. */
const PARTNERS = 8;
/** Moves attempted for each pod of the NodeClaim (with the solver's checks). */
const WINDOW = 4;
/** Pods of the partner looked at for each pod of the NodeClaim (a vector compare each). */
const LOOKS = 32;

/** How full `used` makes a NodeClaim's cheapest option, per resource. */
function fullness(used: Float64Array, alloc: Float64Array, r: number): number {
  const a = alloc[r]!;
  return a > 0 ? used[r]! / a : used[r]! > 0 ? Infinity : 0;
}

/** The resource the NodeClaim's cheapest option runs out of first. */
function binding(claim: ClaimTarget): number {
  const alloc = claim.cheapAlloc();
  let best = 0;
  for (let r = 1; r < alloc.length; r++)
    if (fullness(claim.used, alloc, r) > fullness(claim.used, alloc, best)) best = r;
  return best;
}

/** The largest fullness of `used` plus `add` minus `sub` on `alloc` (Infinity when it does not fit). */
function peakAfter(
  used: Float64Array,
  alloc: Float64Array,
  add: Float64Array | undefined,
  sub: Float64Array | undefined,
): number {
  let peak = 0;
  for (let r = 0; r < used.length; r++) {
    const u = used[r]! + (add?.[r] ?? 0) - (sub?.[r] ?? 0);
    if (u > alloc[r]!) return Infinity;
    if (alloc[r]! > 0) peak = Math.max(peak, u / alloc[r]!);
  }
  return peak;
}

function peak(claim: ClaimTarget): number {
  return peakAfter(claim.used, claim.cheapAlloc(), undefined, undefined);
}

export class Improver {
  private readonly plan: PlanView;
  private budget: number;

  constructor(plan: PlanView, budget: number) {
    this.plan = plan;
    this.budget = budget;
  }

  /** Runs the pass; the NodeClaims change in place (some may end empty). */
  run(): void {
    const byPrice = [...this.plan.claims].sort((a, b) => b.price - a.price);
    this.round(byPrice);
    this.round([...byPrice].reverse());
    for (const c of this.plan.claims) c.reopen();
  }

  /**
   * Each NodeClaim in `order` trades with the first PARTNERS NodeClaims (in `order`) of the same
   * NodePool and topology domains that are bound by another resource.
   */
  private round(order: readonly ClaimTarget[]): void {
    const buckets = new Map<string, Map<number, ClaimTarget[]>>();
    for (const c of order) {
      const key = this.domainKey(c);
      let byBinding = buckets.get(key);
      if (byBinding === undefined) buckets.set(key, (byBinding = new Map()));
      const r = binding(c);
      byBinding.set(r, [...(byBinding.get(r) ?? []), c]);
    }
    for (const a of order) {
      for (const b of this.partnersOf(a, buckets.get(this.domainKey(a))!)) {
        if (this.budget <= 0 || !this.partners(a, b) || !this.trade(a, b)) continue;
        a.reopen();
        b.reopen();
      }
    }
  }

  /** The first PARTNERS NodeClaims of `a`'s bucket bound by another resource than `a`. */
  private partnersOf(a: ClaimTarget, byBinding: ReadonlyMap<number, readonly ClaimTarget[]>): ClaimTarget[] {
    const ra = binding(a);
    const out: ClaimTarget[] = [];
    for (const [r, peers] of byBinding) {
      if (r === ra) continue;
      for (const b of peers) {
        if (out.length >= PARTNERS) return out;
        if (this.partners(a, b)) out.push(b);
      }
    }
    return out;
  }

  private domainKey(c: ClaimTarget): string {
    return `${c.pool.pool.name}|${this.plan.keys.map((k) => c.domainOf(k) ?? "").join("|")}`;
  }

  /** Whether `b` may trade with `a`: same NodePool, both hold pods, bound by different resources, same domains. */
  private partners(a: ClaimTarget, b: ClaimTarget): boolean {
    if (b === a || b.pool !== a.pool || b.pods.length === 0 || a.pods.length === 0 || binding(a) === binding(b))
      return false;
    return this.plan.keys.every((k) => a.domainOf(k) === b.domainOf(k));
  }

  /**
   * Moves pods heavy in `a`'s binding resource to `b` and pods heavy in `b`'s to `a` while both
   * NodeClaims' peaks fall; true when some trade happened.
   */
  private trade(a: ClaimTarget, b: ClaimTarget): boolean {
    const [ra, rb] = [binding(a), binding(b)];
    const lean = (claim: ClaimTarget, heavy: number, light: number): Candidate[] => {
      const alloc = claim.cheapAlloc();
      const tilt = (c: Candidate): number =>
        c.vector[heavy]! / (alloc[heavy]! || 1) - c.vector[light]! / (alloc[light]! || 1);
      return claim.pods
        .map((p) => this.plan.candidateOf(p))
        .filter((c) => tilt(c) > 0)
        .sort((x, y) => tilt(y) - tilt(x));
    };
    const fromA = lean(a, ra, rb);
    const fromB = [undefined, ...lean(b, rb, ra)];
    const taken = new Set<Candidate>();
    let traded = false;
    for (const p of fromA) if (this.moveOne(a, b, p, { fromB, taken })) traded = true;
    return traded;
  }

  /**
   * Moves `p` from `a` to `b`, alone or for one of `fromB` (not yet `taken`) that lowers both peaks;
   * at most LOOKS candidates compared and WINDOW moves attempted. A pod refused for its own
   * constraints stays refused on this pair.
   */
  private moveOne(
    a: ClaimTarget,
    b: ClaimTarget,
    p: Candidate,
    partner: { fromB: readonly (Candidate | undefined)[]; taken: Set<Candidate> },
  ): boolean {
    let [looks, tries] = [0, 0];
    for (const q of partner.fromB) {
      if (q !== undefined && partner.taken.has(q)) continue;
      if (looks++ >= LOOKS || tries >= WINDOW || this.budget <= 0) return false;
      if (!this.improves(a, b, p, q)) continue;
      tries++;
      const outcome = this.swap(a, b, p, q);
      if (outcome === "p refused") return false;
      if (q !== undefined) partner.taken.add(q);
      if (outcome === "moved") return true;
    }
    return false;
  }

  /** Whether moving `p` from `a` to `b` (and `q` back) keeps both within their options and lowers their peaks. */
  private improves(a: ClaimTarget, b: ClaimTarget, p: Candidate, q: Candidate | undefined): boolean {
    const [pa, pb] = [peak(a), peak(b)];
    const na = peakAfter(a.used, a.cheapAlloc(), q?.vector, p.vector);
    const nb = peakAfter(b.used, b.cheapAlloc(), p.vector, q?.vector);
    return na <= pa && nb <= pb && na + nb < pa + pb - 1e-9;
  }

  /** Whether `c` may leave `from` for `to` without changing any count another pod's constraint reads. */
  private movable(c: Candidate, from: ClaimTarget, to: ClaimTarget): boolean {
    if (c.state.pod.hostPorts.length > 0) return false;
    return c.countedIn.every((g) =>
      g.key === Label.hostname
        ? !this.plan.affinityGroups.has(g)
        : from.domainOf(g.key) !== undefined && from.domainOf(g.key) === to.domainOf(g.key),
    );
  }

  /** Moves `p` to `b` and `q` (if any) to `a` with the solver's checks; undoes everything on a refusal. */
  private swap(
    a: ClaimTarget,
    b: ClaimTarget,
    p: Candidate,
    q: Candidate | undefined,
  ): "moved" | "p refused" | "q refused" {
    if (!this.movable(p, a, b)) return "p refused";
    if (q !== undefined && !this.movable(q, b, a)) return "q refused";
    this.budget--;
    a.remove(p);
    if (q !== undefined) b.remove(q);
    if (!this.put(p, b)) {
      a.restore(p);
      if (q !== undefined) b.restore(q);
      return "p refused";
    }
    if (q !== undefined && !this.put(q, a)) {
      b.remove(p);
      a.restore(p);
      this.plan.moved(p.state.pod, a);
      b.restore(q);
      return "q refused";
    }
    return "moved";
  }

  /** Adds `c` to `to` when the solver's checks pass and its price does not rise. */
  private put(c: Candidate, to: ClaimTarget): boolean {
    const result = to.tryAdd(c);
    if (!result.ok || (result.narrowed?.price ?? Infinity) > to.price) return false;
    result.commit();
    this.plan.moved(c.state.pod, to);
    return true;
  }
}

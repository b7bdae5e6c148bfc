/**
 * The scheduling loop (Karpenter's Solve): pods in packing order (dominantShareOrder: largest share
 * of the batch's CPU or memory first, then Karpenter's queue order: CPU desc, memory desc, creation,
 * UID); each goes to an existing node (first fit), else a NodeClaim already planned, else a new
 * NodeClaim from the first NodePool by weight that can take it. A failed pod is relaxed one
 * preference step and retried; pods still failing are retried after a pass that placed others.
 *
 * Cost-aware packing among planned NodeClaims: a pod first goes to the first NodeClaim that holds it
 * without raising its cheapest option's price (filling what is already paid for); only then may a
 * NodeClaim grow, the first one (creation order) whose growth is allowed, else another NodeClaim
 * opens. Each NodeClaim is sized when it opens (sizing.ts, claim-sizer.ts): the option that does the
 * work still queued at the lowest cost per pod within about the fewest nodes is its target, and it
 * grows freely up to it. Past its target a growth is refused when (1) the price it adds is more than
 * a new NodeClaim, sized the same way, would charge for the value the pod adds (PoolTypes.value), (2)
 * its price would exceed `maxPriceRatio` times the value of its pods, or (3) it would lose its last
 * spot-capable option in a pool that allows spot. When no other NodeClaim may open (`maxNewClaims`,
 * consolidation's one replacement) growth is the only way and the rules do not apply. The rules are in
 * growth-rules.ts. Plain first fit grew the first NodeClaims until only huge on-demand types were left (a
 * $125/h u7i-12tb holding 697 small pods on the real catalog); one-pod-at-a-time cost rules left every
 * whole-CPU pod on a node of its own (a 2-vCPU node holds one 1-CPU pod, and the step to three looks dear
 * per pod).
 * Speed: per pod class (pods that schedule identically) a cursor skips places that rejected the
 * class for good, and a NodeClaim remembers refusing a class's growth until it changes; the
 * no-price-change test is a vector compare, and blocks of BLOCK NodeClaims none of which has the
 * room are skipped whole (a per-block maximum of the room left); NodeClaims to grow are looked for
 * only when none has the room, stopping at the first allowed (block-slack.ts); instance-type sets are
 * bitsets cached per requirement set. Pods come in packing order (pod-order.ts).
 * After the loop, `improve` (improve.ts) rebalances the planned NodeClaims.
 */
import { Label } from "../../../policies/domain/labels.ts";
import { RequirementError } from "../../../policies/domain/requirements.ts";
import { untoleratedTaint } from "../../../policies/domain/taints.ts";
import { andBits, isEmptyBits } from "./bitset.ts";
import { BLOCK, BlockSlack } from "./block-slack.ts";
import { GrowthRules } from "./growth-rules.ts";
import { Improver, type PlanView } from "./improve.ts";
import { PoolLimits } from "./limits.ts";
import { PodState, podClassKey } from "./preferences.ts";
import { PoolTypes } from "./pool-types.ts";
import { dominantShareOrder } from "./pod-order.ts";
import { noFitReason } from "./reasons.ts";
import { ResourceSpace } from "./resource-space.ts";
import { ClaimSizer } from "./claim-sizer.ts";
import { ClaimTarget, NodeTarget, type AddResult, type Candidate } from "./targets.ts";
import { Topology, type Group, type TopologyConstraint } from "./topology.ts";
import type { SimPod, SimulateOptions, Snapshot } from "./types.ts";
import { isVolumeProblem, NO_VOLUMES, podVolumes, type PodVolumes, type VolumeIndex } from "./volumes.ts";

type Place = NodeTarget | ClaimTarget;

/** One pod's pass over the places: its class cursor, and the NodeClaims whose price the pod would raise. */
interface Scan {
  cursor: number;
  /** Whether the cost rules apply (another NodeClaim may still open). */
  readonly rules: boolean;
  readonly tried: Map<number, AddResult>;
  /** The class's growth refusals (refusalsOf). */
  readonly refused: Int32Array;
}

/** In a class's refusal array: the NodeClaim refused the class for good (not just its growth). */
const REFUSED_FOR_GOOD = -1;

/** Attempted moves per pod the improvement pass may spend. */
const IMPROVE_MOVES_PER_POD = 4;

/** Default of SimulateOptions.maxPriceRatio. */
export const MAX_PRICE_RATIO = 20;

export class Solver {
  readonly space = new ResourceSpace();
  readonly topology: Topology;
  readonly pools: PoolTypes[];
  readonly nodes: NodeTarget[] = [];
  readonly claims: ClaimTarget[] = [];
  readonly errors = new Map<SimPod, string>();
  readonly placements = new Map<SimPod, Place>();
  /** Each placed pod's state as placed (how far its preferences were relaxed). */
  private readonly states = new Map<SimPod, PodState>();
  private readonly limits: PoolLimits[];
  private readonly cursors = new Map<string, number>();
  private readonly constraintCache = new Map<string, TopologyConstraint[]>();
  private readonly refusals = new Map<string, Int32Array>();
  /** Per block of BLOCK NodeClaims, the room left: whole blocks without room are skipped (block-slack.ts). */
  private readonly slack = new BlockSlack(this.space, this.claims);
  private readonly options: SimulateOptions;
  private readonly softTaints: boolean;
  /** Sizes new NodeClaims for the pods still to place (claim-sizer.ts). */
  private readonly sizer: ClaimSizer;
  /** Whether a planned NodeClaim may grow to take a pod (growth-rules.ts). */
  private readonly growth: GrowthRules;
  private readonly volumeIndex: VolumeIndex | undefined;
  /** Each pod's volumes (volumes.ts), read once; bound pods skip claims they cannot read. */
  private readonly podVolumes = new Map<SimPod, PodVolumes>();

  constructor(snapshot: Snapshot, options: SimulateOptions, pending: readonly SimPod[]) {
    this.options = options;
    this.volumeIndex = snapshot.volumes;
    this.topology = new Topology(snapshot.namespaces);
    const pools = snapshot.nodes.map((n) => n.nodePool ?? n.labels[Label.nodePool]);
    const running = new Set(pools.filter((p): p is string => p !== undefined));
    const eligible = (state: PodState, key: string): ReadonlySet<string> => this.eligible(state, key);
    const maxPriceRatio = options.maxPriceRatio ?? MAX_PRICE_RATIO;
    this.sizer = new ClaimSizer({ eligible, maxPriceRatio, running });
    this.growth = new GrowthRules({
      maxPriceRatio,
      sizer: this.sizer,
      openable: (pool) => (this.canOpen() ? this.limits[this.pools.indexOf(pool)]!.allowedTypes() : undefined),
    });
    const bound = snapshot.nodes.flatMap((n) => n.pods);
    this.space.register([...pending, ...bound, ...snapshot.daemonSets.map((d) => d.pod)].map((p) => p.requests));
    this.space.register(snapshot.nodes.map((n) => n.allocatable));
    this.space.register(
      snapshot.nodePools.flatMap((p) => [p.limits ?? {}, ...p.instanceTypes.map((t) => t.allocatable)]),
    );
    const ordered = [...snapshot.nodePools].sort((a, b) => b.weight - a.weight || a.name.localeCompare(b.name));
    this.pools = ordered.map((p) => new PoolTypes(p, this.space, snapshot.daemonSets));
    this.limits = this.pools.map((p) => new PoolLimits(p, this.space, snapshot.nodes));
    this.softTaints = ordered.some((p) => p.taints.some((t) => t.effect === "PreferNoSchedule"));
    for (const p of [...pending, ...bound]) this.topology.registerOwner(p);
    for (const p of [...pending, ...bound])
      this.topology.constraints(p, {
        spread: p.spread,
        affinity: [...p.affinity, ...p.preferredAffinity.map((w) => w.term)],
        anti: [...p.antiAffinity, ...p.preferredAntiAffinity.map((w) => w.term)],
      });
    this.topology.setDomainSource({
      nodes: snapshot.nodes,
      pools: this.pools.map((p) => ({
        taints: p.pool.taints,
        requirements: p.requirements,
        domains: (k: string) => p.domains(k),
      })),
    });
    for (const n of snapshot.nodes) {
      const closed =
        this.options.onlyInitializedNodes === true && n.initialized === false
          ? "is not initialized"
          : this.options.consolidationSimulation === true && n.underConsolidateAfter === true
            ? "is under its NodePool's consolidateAfter (a recent pod event)"
            : undefined;
      const target = new NodeTarget({
        name: n.name,
        labels: n.labels,
        taints: n.taints,
        allocatable: this.space.vector(n.allocatable),
        topology: this.topology,
        closed,
        volumeLimits: snapshot.volumes?.nodeLimits.get(n.name),
      });
      for (const p of n.pods) target.bind(this.candidate(new PodState(p, true, ""), this.boundVolumes(p)));
      this.nodes.push(target);
    }
  }

  /** The topology constraints of a pod class at its relaxation level (its terms in force, and the inverse ones). */
  private constraintsOf(state: PodState): TopologyConstraint[] {
    let constraints = this.constraintCache.get(state.key);
    if (constraints === undefined) {
      constraints = [...this.topology.constraints(state.pod, state.terms()), ...this.topology.inverse(state.pod)];
      this.constraintCache.set(state.key, constraints);
    }
    return constraints;
  }

  private candidate(state: PodState, volumes = this.podVolumes.get(state.pod)): Candidate {
    const pod = state.pod;
    const countedIn = this.topology.countedIn(pod, pod.antiAffinity);
    const attachments = volumes === undefined || volumes.attachments.size === 0 ? undefined : volumes.attachments;
    return {
      state,
      vector: this.space.vector(pod.requests),
      constraints: this.constraintsOf(state),
      countedIn,
      attachments,
    };
  }

  /**
   * A pod's volumes (volumes.ts) when the snapshot models them, else none. A pending pod whose claim
   * cannot be used gets the problem as its error (and no place); a bound pod just skips that claim.
   */
  private volumesOf(pod: SimPod, bound: boolean): PodVolumes | string {
    if (this.volumeIndex === undefined || pod.claims === undefined) return NO_VOLUMES;
    const volumes = podVolumes(this.volumeIndex, pod.namespace, pod.claims, bound);
    if (isVolumeProblem(volumes)) return volumes.reason;
    this.podVolumes.set(pod, volumes);
    return volumes;
  }

  /** A bound pod's volumes (never a problem: claims it cannot read are skipped). */
  private boundVolumes(pod: SimPod): PodVolumes {
    const volumes = this.volumesOf(pod, true);
    return typeof volumes === "string" ? NO_VOLUMES : volumes;
  }

  /** The domains a class's spread over `key` counts (Topology.domains); none without such a spread. */
  private eligible(state: PodState, key: string): ReadonlySet<string> {
    const spread = this.constraintsOf(state).find((c) => c.kind === "spread" && c.self && c.group.key === key);
    return spread === undefined ? new Set() : this.topology.domains(spread.group);
  }

  /** Runs the loop over `pods`; results land in `placements` and `errors`. */
  solve(pods: readonly SimPod[]): void {
    const ignore = this.options.preferencePolicy === "Ignore";
    const states: PodState[] = [];
    for (const p of [...pods].sort(dominantShareOrder(pods))) {
      const volumes = this.volumesOf(p, false);
      if (typeof volumes === "string") this.errors.set(p, volumes);
      else states.push(new PodState(p, ignore, podClassKey(p), volumes.alternatives));
    }
    let queue = states;
    this.sizer.queue(queue, this.space);
    while (queue.length > 0) {
      const failed = queue.filter((s) => !this.placeWithRelaxation(s));
      if (failed.length === queue.length) break;
      queue = failed;
    }
  }

  /**
   * The improvement pass over the planned NodeClaims (improve.ts), at most `IMPROVE_MOVES_PER_POD`
   * attempted moves per pod; pods it empties a NodeClaim of leave that NodeClaim without pods.
   */
  improve(): void {
    const affinityGroups = new Set<Group>();
    const candidates = new Map<SimPod, Candidate>();
    for (const constraints of this.constraintCache.values()) {
      for (const c of constraints) if (c.kind === "affinity") affinityGroups.add(c.group);
    }
    const plan: PlanView = {
      claims: this.claims,
      affinityGroups,
      keys: [...this.topology.keys()],
      candidateOf: (pod) => {
        let c = candidates.get(pod);
        if (c === undefined) candidates.set(pod, (c = this.candidate(this.states.get(pod)!)));
        return c;
      },
      moved: (pod, claim) => this.placements.set(pod, claim),
    };
    new Improver(plan, IMPROVE_MOVES_PER_POD * this.states.size).run();
  }

  private placeWithRelaxation(state: PodState): boolean {
    for (;;) {
      let reason: string | undefined;
      try {
        reason = this.place(state);
      } catch (error) {
        if (!(error instanceof RequirementError)) throw error;
        reason = error.message;
      }
      if (reason === undefined) {
        this.errors.delete(state.pod);
        this.states.set(state.pod, state);
        this.sizer.placed(state);
        return true;
      }
      this.errors.set(state.pod, reason);
      if (!state.relax(this.softTaints)) return false;
    }
  }

  /** Whether another NodeClaim may still open (consolidation caps new NodeClaims). */
  private canOpen(): boolean {
    return this.options.maxNewClaims === undefined || this.claims.length < this.options.maxNewClaims;
  }

  /** Tries every place for one pod; undefined on success, else the reason. */
  private place(state: PodState): string | undefined {
    const c = this.candidate(state);
    if (state.pod.noLaunch !== undefined) return this.placeOnExisting(c) ? undefined : state.pod.noLaunch;
    const scan: Scan = {
      cursor: this.cursors.get(state.key) ?? 0,
      rules: this.canOpen(),
      tried: new Map(),
      refused: this.refusalsOf(state.key),
    };
    const placed = this.placeWithoutRise(c, scan);
    this.cursors.set(state.key, scan.cursor);
    if (placed || this.placeByGrowth(c, scan)) return undefined;
    return this.newClaim(c);
  }

  /**
   * First fit over existing nodes (Nodes and in-flight NodeClaims) only, for a pod that may not launch a node
   * (SimPod.noLaunch): no planned NodeClaim takes it, so it never adds to what is bought. The class's cursor is
   * read (places before it refused the class for good) but not advanced: pods of the class that may launch
   * share it.
   */
  private placeOnExisting(c: Candidate): boolean {
    for (let i = Math.min(this.cursors.get(c.state.key) ?? 0, this.nodes.length); i < this.nodes.length; i++) {
      const result = this.nodes[i]!.tryAdd(c);
      if (result.ok) return this.commit(result, c, this.nodes[i]!);
    }
    return false;
  }

  /**
   * First fit over existing nodes, then over planned NodeClaims that hold the pod without a price
   * rise (skipping blocks of NodeClaims none of which has the room); remembers the NodeClaims whose
   * price the pod would raise. Advances the class's cursor past places that refused it for good.
   */
  private placeWithoutRise(c: Candidate, scan: Scan): boolean {
    const nodes = this.nodes.length;
    for (let i = scan.cursor; i < nodes; i++) {
      const result = this.nodes[i]!.tryAdd(c);
      if (result.ok) return this.commit(result, c, this.nodes[i]!);
      if (result.permanent && i === scan.cursor) scan.cursor++;
    }
    for (let k = Math.max(0, scan.cursor - nodes); k < this.claims.length; k++) {
      if (k % BLOCK === 0 && !this.slack.hasRoom(k / BLOCK, c.vector)) {
        k += BLOCK - 1;
        continue;
      }
      const outcome = this.tryWithoutRise(k, c, scan);
      if (outcome === "placed") return true;
      if (outcome === "refused for good" && k + nodes === scan.cursor) scan.cursor++;
    }
    return false;
  }

  private tryWithoutRise(k: number, c: Candidate, scan: Scan): "placed" | "refused for good" | "no" {
    const claim = this.claims[k]!;
    if (scan.refused[k] === REFUSED_FOR_GOOD) return "refused for good";
    if (!claim.mayHold(c.vector, scan.rules)) return this.capFinal(scan) ? "refused for good" : "no";
    if (!claim.slackHolds(c.vector)) return "no";
    const result = claim.tryAdd(c);
    if (!result.ok) return this.refusal(result, k, scan);
    if ((result.narrowed?.price ?? Infinity) <= claim.price) return this.commit(result, c, claim) && "placed";
    scan.tried.set(k, result);
    return "no";
  }

  /** Remembers a permanent refusal (places only fill up and narrow), so the class skips the NodeClaim from now on. */
  private refusal(result: AddResult & { ok: false }, k: number, scan: Scan): "refused for good" | "no" {
    if (!result.permanent) return "no";
    scan.refused[k] = REFUSED_FOR_GOOD;
    return "refused for good";
  }

  /** Whether a refusal by the spot cap is for good: it is, unless maxNewClaims may still turn it off. */
  private capFinal(scan: Scan): boolean {
    return this.options.maxNewClaims === undefined || !scan.rules;
  }

  /**
   * Whether NodeClaim `k` is one the pod would have to grow: it may hold the pod, and either lacks
   * the room on its cheapest option (unless it refused the class's growth since it last changed) or
   * found its price raised by the pod in placeWithoutRise.
   */
  private growable(k: number, c: Candidate, scan: Scan): boolean {
    const claim = this.claims[k]!;
    if (scan.refused[k] === REFUSED_FOR_GOOD || !claim.mayHold(c.vector, scan.rules)) return false;
    if (claim.slackHolds(c.vector)) return scan.tried.has(k);
    return !scan.rules || scan.refused[k] !== claim.pods.length + 1;
  }

  /** Grows the first NodeClaim (creation order) whose growth passes the cost rules (when they apply). */
  private placeByGrowth(c: Candidate, scan: Scan): boolean {
    const refused = scan.refused;
    for (let k = Math.max(0, scan.cursor - this.nodes.length); k < this.claims.length; k++) {
      if (!this.growable(k, c, scan)) continue;
      const claim = this.claims[k]!;
      const targeted = scan.rules && claim.withinTarget(c.vector);
      if (scan.rules && !targeted && !this.growth.mayGrowAtLeast(claim, c)) {
        refused[k] = claim.pods.length + 1;
        continue;
      }
      const result = scan.tried.get(k) ?? claim.tryAdd(c);
      if (!result.ok) {
        this.refusal(result, k, scan);
        continue;
      }
      const rules = scan.rules && (targeted ? "target" : "rules");
      if (this.growth.allowed(claim, c, rules, result.narrowed)) return this.commit(result, c, claim);
      refused[k] = claim.pods.length + 1;
    }
    return false;
  }

  /**
   * Per pod class and planned NodeClaim (by index), 1 + the NodeClaim's pod count when it refused
   * the class's growth (the refusal holds until the NodeClaim changes), or REFUSED_FOR_GOOD.
   */
  private refusalsOf(podClass: string): Int32Array {
    let refused = this.refusals.get(podClass);
    if (refused === undefined || refused.length < this.claims.length) {
      const grown = new Int32Array(Math.max(64, 2 * this.claims.length));
      if (refused !== undefined) grown.set(refused);
      this.refusals.set(podClass, (refused = grown));
    }
    return refused;
  }

  private commit(result: AddResult & { ok: true }, c: Candidate, place: Place): true {
    result.commit();
    if (place instanceof ClaimTarget) this.slack.changed(place);
    this.placements.set(c.state.pod, place);
    return true;
  }

  /** Opens a NodeClaim from the first pool that can take the pod; undefined on success, else the reasons. */
  private newClaim(c: Candidate): string | undefined {
    if (this.pools.length === 0) return "no existing node can take the pod and no NodePool can launch nodes";
    if (this.options.maxNewClaims !== undefined && this.claims.length >= this.options.maxNewClaims)
      return "the pod does not fit on the remaining nodes and no new node may be launched";
    const reasons: string[] = [];
    for (const [i, pool] of this.pools.entries()) {
      const reason = this.tryPool(c, pool, this.limits[i]!);
      if (reason === undefined) return undefined;
      reasons.push(reason);
    }
    return [...new Set(reasons)].join("; ");
  }

  private tryPool(c: Candidate, pool: PoolTypes, limits: PoolLimits): string | undefined {
    const name = pool.pool.name;
    const taint = untoleratedTaint(pool.pool.taints, c.state.pod.tolerations, c.state.strictSoftTaints);
    if (taint !== undefined)
      return `NodePool ${name} has taint ${taint.key}:${taint.effect} that the pod does not tolerate`;
    const incompatible = pool.requirements.compatible(c.state.requirements());
    if (incompatible !== undefined) return `incompatible with NodePool ${name}: ${incompatible}`;
    let allowed = limits.allowedTypes();
    if (limits.active && allowed !== pool.all) {
      // Limits bind: the pool's NodeClaims reserve only what they will launch, then look again.
      this.tighten(pool, limits);
      allowed = limits.allowedTypes();
    }
    // Blame the limits only for a pod some type could hold without them: an arm64 or GPU pod on a pool that
    // has neither gets the reason it can act on, also when the limits happen to be spent.
    if (allowed === undefined) return this.limitsReason(c, pool);
    const claim = new ClaimTarget({
      pool,
      hostname: `${name}-nodeclaim-${this.claims.length + 1}`,
      bits: allowed,
      topology: this.topology,
      onNarrow: limits.tracker(),
    });
    const result = claim.tryAdd(c);
    if (!result.ok) {
      return result.noFit === true
        ? noFitReason({ pool, podReqs: c.state.requirements(), vector: c.vector, space: this.space, allowed })
        : `NodePool ${name}: ${result.reason}`;
    }
    this.slack.register(claim, this.claims.length);
    this.claims.push(claim);
    limits.add(claim.bits);
    this.commit(result, c, claim);
    if (this.canOpen()) this.sizer.size(claim, c);
    return undefined;
  }

  /** Narrows the planned NodeClaims of a pool to what they launch (ClaimTarget.tighten). */
  private tighten(pool: PoolTypes, limits: PoolLimits): void {
    for (const claim of this.claims) if (claim.pool === pool) claim.tighten(limits.limited);
  }

  /**
   * After the plan: NodeClaims of pools with limits reserve only what they launch, so the NodeClaim
   * objects' options (what later batches count against the limits until launch) hold no more than that.
   */
  finish(): void {
    this.pools.forEach((pool, i) => {
      if (this.limits[i]!.active) this.tighten(pool, this.limits[i]!);
    });
  }

  private limitsReason(c: Candidate, pool: PoolTypes): string {
    const podReqs = c.state.requirements();
    const holds = pool.fitting(andBits(pool.all, pool.typesFor(pool.requirements.intersect(podReqs))), c.vector);
    if (isEmptyBits(holds))
      return noFitReason({ pool, podReqs, vector: c.vector, space: this.space, allowed: pool.all });
    return `NodePool ${pool.pool.name} would exceed its limits`;
  }
}

/**
 * The scheduling loop (Karpenter's Solve): pods in queue order (CPU desc, memory desc, creation,
 * UID); each goes to an existing node, else a NodeClaim already planned (creation order: first fit),
 * else a new NodeClaim from the first NodePool by weight that can take it. A failed pod is relaxed
 * one preference step and retried; pods still failing are retried after a pass that placed others.
 * Speed: per pod class (pods that schedule identically) a cursor skips places that rejected the
 * class for good; instance-type sets are bitsets cached per requirement set.
 */
import { RequirementError } from "../../../policies/domain/requirements.ts";
import { untoleratedTaint } from "../../../policies/domain/taints.ts";
import { PoolLimits } from "./limits.ts";
import { PodState, podClassKey } from "./preferences.ts";
import { PoolTypes } from "./pool-types.ts";
import { noFitReason } from "./reasons.ts";
import { ResourceSpace } from "./resource-space.ts";
import { ClaimTarget, NodeTarget, type AddResult, type Candidate } from "./targets.ts";
import { Topology, type TopologyConstraint } from "./topology.ts";
import type { SimPod, SimulateOptions, Snapshot } from "./types.ts";

type Place = NodeTarget | ClaimTarget;

/** Queue order: CPU desc, memory desc, creation order, UID. */
export function queueOrder(a: SimPod, b: SimPod): number {
  return (b.requests["cpu"] ?? 0) - (a.requests["cpu"] ?? 0) || (b.requests["memory"] ?? 0) - (a.requests["memory"] ?? 0)
    || (a.creationOrder ?? 0) - (b.creationOrder ?? 0) || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0);
}

export class Solver {
  readonly space = new ResourceSpace();
  readonly topology = new Topology();
  readonly pools: PoolTypes[];
  readonly nodes: NodeTarget[] = [];
  readonly claims: ClaimTarget[] = [];
  readonly errors = new Map<SimPod, string>();
  readonly placements = new Map<SimPod, Place>();
  private readonly limits: PoolLimits[];
  private readonly cursors = new Map<string, number>();
  private readonly constraintCache = new Map<string, TopologyConstraint[]>();
  private readonly eligibleCache = new Map<string, ReadonlySet<string>>();
  private nodeDomains = new Map<string, Set<string>>();
  private readonly options: SimulateOptions;
  private readonly softTaints: boolean;

  constructor(snapshot: Snapshot, options: SimulateOptions, pending: readonly SimPod[]) {
    this.options = options;
    const bound = snapshot.nodes.flatMap((n) => n.pods);
    this.space.register([...pending, ...bound, ...snapshot.daemonSets.map((d) => d.pod)].map((p) => p.requests));
    this.space.register(snapshot.nodes.map((n) => n.allocatable));
    this.space.register(snapshot.nodePools.flatMap((p) => [p.limits ?? {}, ...p.instanceTypes.map((t) => t.allocatable)]));
    const ordered = [...snapshot.nodePools].sort((a, b) => b.weight - a.weight || a.name.localeCompare(b.name));
    this.pools = ordered.map((p) => new PoolTypes(p, this.space, snapshot.daemonSets));
    this.limits = this.pools.map((p) => new PoolLimits(p, this.space, snapshot.nodes));
    this.softTaints = ordered.some((p) => p.taints.some((t) => t.effect === "PreferNoSchedule"));
    for (const p of [...pending, ...bound]) this.topology.registerOwner(p);
    for (const p of [...pending, ...bound]) this.topology.constraints(p, { spread: p.spread, affinity: [...p.affinity, ...p.preferredAffinity.map((w) => w.term)], anti: [...p.antiAffinity, ...p.preferredAntiAffinity.map((w) => w.term)] });
    this.setUniverses(snapshot);
    for (const n of snapshot.nodes) {
      const target = new NodeTarget({ name: n.name, labels: n.labels, taints: n.taints, allocatable: this.space.vector(n.allocatable), topology: this.topology });
      for (const p of n.pods) target.bind(this.candidate(new PodState(p, true, "")));
      this.nodes.push(target);
    }
  }

  private setUniverses(snapshot: Snapshot): void {
    for (const key of this.topology.keys()) {
      const domains = new Set<string>();
      for (const pool of this.pools) for (const d of pool.domains(key)) domains.add(d);
      const onNodes = new Set(snapshot.nodes.map((n) => n.labels[key]).filter((v): v is string => v !== undefined));
      for (const d of onNodes) domains.add(d);
      this.nodeDomains.set(key, onNodes);
      this.topology.setUniverse(key, domains);
    }
  }

  private candidate(state: PodState): Candidate {
    let constraints = this.constraintCache.get(state.key);
    if (constraints === undefined) {
      constraints = [...this.topology.constraints(state.pod, state.terms()), ...this.topology.inverse(state.pod)];
      this.constraintCache.set(state.key, constraints);
    }
    const pod = state.pod;
    const eligible = (key: string): ReadonlySet<string> => this.eligible(state, key);
    return { eligible, state, vector: this.space.vector(pod.requests), constraints, countedIn: this.topology.countedIn(pod, pod.antiAffinity) };
  }

  /** Domains of `key` on nodes and in pools whose taints the pod tolerates and whose requirements it matches. */
  private eligible(state: PodState, key: string): ReadonlySet<string> {
    const id = `${state.key}|${key}`;
    let out = this.eligibleCache.get(id);
    if (out === undefined) {
      const set = new Set(this.nodeDomains.get(key) ?? []);
      for (const pool of this.pools) {
        if (untoleratedTaint(pool.pool.taints, state.pod.tolerations) !== undefined || pool.requirements.compatible(state.requirements()) !== undefined) continue;
        for (const d of pool.domains(key)) set.add(d);
      }
      this.eligibleCache.set(id, (out = set));
    }
    return out;
  }

  /** Runs the loop over `pods`; results land in `placements` and `errors`. */
  solve(pods: readonly SimPod[]): void {
    const ignore = this.options.preferencePolicy === "Ignore";
    let queue = [...pods].sort(queueOrder).map((p) => new PodState(p, ignore, podClassKey(p)));
    while (queue.length > 0) {
      const failed = queue.filter((s) => !this.placeWithRelaxation(s));
      if (failed.length === queue.length) break;
      queue = failed;
    }
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
        return true;
      }
      this.errors.set(state.pod, reason);
      if (!state.relax(this.softTaints)) return false;
    }
  }

  /** Tries every place for one pod; undefined on success, else the reason. */
  private place(state: PodState): string | undefined {
    const c = this.candidate(state);
    const nodes = this.nodes.length;
    let cursor = this.cursors.get(state.key) ?? 0;
    for (let i = cursor; i < nodes + this.claims.length; i++) {
      const place = i < nodes ? this.nodes[i]! : this.claims[i - nodes]!;
      const result = place.tryAdd(c);
      if (result.ok) return this.commit(result, c, place);
      if (result.permanent && i === cursor) cursor++;
    }
    this.cursors.set(state.key, cursor);
    return this.newClaim(c);
  }

  private commit(result: AddResult & { ok: true }, c: Candidate, place: Place): undefined {
    result.commit();
    this.placements.set(c.state.pod, place);
    return undefined;
  }

  /** Opens a NodeClaim from the first pool that can take the pod; undefined on success, else the reasons. */
  private newClaim(c: Candidate): string | undefined {
    if (this.pools.length === 0) return "no existing node can take the pod and no NodePool can launch nodes";
    if (this.options.maxNewClaims !== undefined && this.claims.length >= this.options.maxNewClaims) return "the pod does not fit on the remaining nodes and no new node may be launched";
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
    if (taint !== undefined) return `NodePool ${name} has taint ${taint.key}:${taint.effect} that the pod does not tolerate`;
    const incompatible = pool.requirements.compatible(c.state.requirements());
    if (incompatible !== undefined) return `incompatible with NodePool ${name}: ${incompatible}`;
    const allowed = limits.allowedTypes();
    if (allowed === undefined) return `NodePool ${name} would exceed its limits`;
    const claim = new ClaimTarget({ pool, hostname: `${name}-nodeclaim-${this.claims.length + 1}`, bits: allowed, topology: this.topology, onNarrow: limits.tracker() });
    const result = claim.tryAdd(c);
    if (!result.ok) {
      return result.noFit === true ? noFitReason({ pool, podReqs: c.state.requirements(), vector: c.vector, space: this.space, allowed }) : `NodePool ${name}: ${result.reason}`;
    }
    this.claims.push(claim);
    limits.add(claim.bits);
    this.commit(result, c, claim);
    return undefined;
  }
}

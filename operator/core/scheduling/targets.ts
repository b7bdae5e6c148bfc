/**
 * Places a pod can go during a simulation: an existing node, or a NodeClaim being planned (whose
 * requirements and instance-type options narrow with every pod added). `tryAdd` checks without
 * changing anything and returns either a failure (with whether it is permanent for this pod class:
 * places only ever fill up and narrow) or a commit function.
 */
import { typesMinValuesGap, type InstanceType } from "../../../policies/domain/instance-types.ts";
import { Requirement, type Requirements } from "../../../policies/domain/requirements.ts";
import { formatTaint, untoleratedTaint, type Taint } from "../../../policies/domain/taints.ts";
import { andBits, isEmptyBits, forEachBit, type Bitset } from "./bitset.ts";
import { HostPorts } from "./host-ports.ts";
import type { PoolTypes } from "./pool-types.ts";
import type { PodState } from "./preferences.ts";
import type { SizeTarget } from "./sizing.ts";
import { addInto, fitsAt, subtractInto } from "./resource-space.ts";
import type { Group, NodeFilter, Place, Topology, TopologyConstraint } from "./topology.ts";
import type { SimPod } from "./types.ts";
import { VolumeUsage, type Attachments } from "./volumes.ts";

/** What the solver knows about the pod being placed. */
export interface Candidate {
  readonly state: PodState;
  readonly vector: Float64Array;
  readonly constraints: readonly TopologyConstraint[];
  readonly countedIn: readonly Group[];
  /** The claims the pod attaches per CSI driver (volumes.ts); absent or empty: none. */
  readonly attachments?: Attachments | undefined;
}

/** A NodeClaim's options after a tentative add: the narrowed set and its cheapest option's price. */
export interface Narrowed {
  readonly bits: Bitset;
  readonly price: number;
}

export type AddResult =
  | { readonly ok: true; readonly commit: () => void; readonly narrowed?: Narrowed }
  | { readonly ok: false; readonly permanent: boolean; readonly reason: string; readonly noFit?: boolean };

const fail = (reason: string, permanent = true): AddResult => ({ ok: false, permanent, reason });

interface Pending {
  readonly group: Group;
}

abstract class Target implements Place {
  readonly hostname: string;
  readonly pods: SimPod[] = [];
  readonly used: Float64Array;
  protected readonly ports = new HostPorts();
  /** The volumes its pods attach, per driver (each claim once). */
  protected readonly volumes = new VolumeUsage();
  protected readonly topology: Topology;
  private pending: Pending[] = [];
  /** Per pod, the groups whose filter did not admit this place when it was recorded (never counted here). */
  private readonly unadmitted = new Map<SimPod, ReadonlySet<Group>>();

  constructor(hostname: string, width: number, topology: Topology) {
    this.hostname = hostname;
    this.used = new Float64Array(width);
    this.topology = topology;
  }

  abstract domainOf(key: string): string | undefined;

  /** Whether a spread's node filter admits this place (nodeTaintsPolicy / nodeAffinityPolicy). */
  protected abstract admits(filter: NodeFilter): boolean;

  /** The groups the pod counts in here: those of `c.countedIn` whose filter, if any, admits this place. */
  private countedHere(c: Candidate): readonly Group[] {
    if (c.countedIn.every((g) => g.filter === undefined)) return c.countedIn;
    const here = c.countedIn.filter((g) => g.filter === undefined || this.admits(g.filter));
    if (here.length < c.countedIn.length) {
      this.unadmitted.set(c.state.pod, new Set(c.countedIn.filter((g) => !here.includes(g))));
    }
    return here;
  }

  protected commonChecks(c: Candidate, taints: readonly Taint[], who: string): AddResult | undefined {
    const taint = untoleratedTaint(taints, c.state.pod.tolerations, c.state.strictSoftTaints);
    if (taint !== undefined) return fail(`${who} has taint ${formatTaint(taint)} that the pod does not tolerate`);
    const port = this.ports.conflict(c.state.pod.hostPorts);
    if (port !== undefined) return fail(`hostPort ${port.port}/${port.protocol} is already in use on ${who}`);
    return undefined;
  }

  /** Records the pod: resources, ports, topology counts (deferred for keys not decided yet). */
  protected record(c: Candidate): void {
    this.pods.push(c.state.pod);
    addInto(this.used, c.vector);
    this.ports.add(c.state.pod.hostPorts);
    if (c.attachments !== undefined) this.volumes.add(c.state.pod, c.attachments);
    const waiting = [...this.pending, ...this.countedHere(c).map((group) => ({ group }))];
    this.pending = [];
    for (const p of waiting) {
      const domain = p.group.key === "kubernetes.io/hostname" ? this.hostname : this.domainOf(p.group.key);
      if (domain === undefined) this.pending.push(p);
      else this.topology.count(p.group, domain);
    }
  }

  /**
   * Takes a recorded pod out again (the improvement pass, improve.ts): resources and topology
   * counts. Only for pods without host ports whose groups are all counted (their domains decided).
   */
  protected unrecord(c: Candidate): void {
    this.pods.splice(this.pods.indexOf(c.state.pod), 1);
    subtractInto(this.used, c.vector);
    this.volumes.remove(c.state.pod);
    const unadmitted = this.unadmitted.get(c.state.pod);
    this.unadmitted.delete(c.state.pod);
    for (const group of c.countedIn) {
      if (unadmitted?.has(group) === true) continue;
      this.topology.uncount(group, group.key === "kubernetes.io/hostname" ? this.hostname : this.domainOf(group.key)!);
    }
  }
}

/** A node that exists (or is in flight) with fixed labels, taints and allocatable. */
export class NodeTarget extends Target {
  readonly name: string;
  private readonly labels: Readonly<Record<string, string>>;
  private readonly taints: readonly Taint[];
  private readonly allocatable: Float64Array;
  /** Takes no new pod (bound pods still count): a node the simulation may not count on. */
  /** Why the node takes no pod (undefined: it may take pods). */
  private readonly closed: string | undefined;
  /** Attachable volumes per CSI driver (its CSINode; null: unbounded); undefined: no limit known. */
  private readonly volumeLimits: ReadonlyMap<string, number | null> | undefined;

  constructor(init: {
    name: string;
    labels: Readonly<Record<string, string>>;
    taints: readonly Taint[];
    allocatable: Float64Array;
    topology: Topology;
    closed?: string | undefined;
    volumeLimits?: ReadonlyMap<string, number | null> | undefined;
  }) {
    super(init.labels["kubernetes.io/hostname"] ?? init.name, init.allocatable.length, init.topology);
    this.name = init.name;
    this.labels = init.labels;
    this.taints = init.taints;
    this.allocatable = init.allocatable;
    this.closed = init.closed;
    this.volumeLimits = init.volumeLimits;
  }

  domainOf(key: string): string | undefined {
    return this.labels[key];
  }

  protected admits(filter: NodeFilter): boolean {
    return filter.admitsNode(this.labels, this.taints);
  }

  /** Binds an already-running pod (no checks). */
  bind(c: Candidate): void {
    this.record(c);
  }

  tryAdd(c: Candidate): AddResult {
    if (this.closed !== undefined) return fail(`node ${this.name} ${this.closed}`);
    const common = this.commonChecks(c, this.taints, `node ${this.name}`);
    if (common !== undefined) return common;
    if (!fitsAt(this.used, c.vector, this.allocatable, 0))
      return fail(`node ${this.name} does not have enough free resources`);
    const volumes = c.attachments === undefined ? undefined : this.volumes.exceeds(c.attachments, this.volumeLimits);
    if (volumes !== undefined) return fail(`node ${this.name} ${volumes}`, false);
    const mismatch = c.state.requirements().matchLabels(this.labels);
    if (mismatch !== undefined) return fail(`node ${this.name}: ${mismatch}`);
    const own = (k: string): string[] => (this.labels[k] === undefined ? [] : [this.labels[k]]);
    const topo = this.topology.check(c.constraints, this, c.state.strictRequirements(), own);
    if (!(topo instanceof Map)) return fail(topo.reason, topo.permanent);
    return { ok: true, commit: () => this.record(c) };
  }
}

/**
 * A NodeClaim under construction from one NodePool. Besides its options it tracks its cheapest
 * option (price and type, so "does the pod fit without raising the price" is one vector compare)
 * and how far it may still grow: once it holds pods, a pool that allows spot caps growth at the
 * largest spot-capable option it still has (past it only on-demand sizes remain, and filling up is
 * no reason to buy them).
 */
export class ClaimTarget extends Target {
  readonly pool: PoolTypes;
  requirements: Requirements;
  bits: Bitset;
  /** The cheapest option's hourly price. */
  price: number;
  private cheapIndex: number;
  private maxAlloc: Float64Array;
  private growthAlloc: Float64Array;
  private readonly onNarrow: ((before: Bitset, after: Bitset) => void) | undefined;
  /** Whether pods left since the last `reopen` (only then can a cheaper option hold the rest). */
  private shrunk = false;
  private cheapView: { readonly index: number; readonly alloc: Float64Array } | undefined;
  /** The options the NodeClaim opened with (limits already applied). */
  private readonly opened: Bitset;
  /** The size it may grow to without the solver's per-pod cost rules (sizing.ts); set when it opens. */
  target: SizeTarget | undefined;

  constructor(init: {
    pool: PoolTypes;
    hostname: string;
    bits: Bitset;
    topology: Topology;
    onNarrow?: (before: Bitset, after: Bitset) => void;
  }) {
    super(init.hostname, init.pool.width, init.topology);
    this.pool = init.pool;
    this.onNarrow = init.onNarrow;
    this.requirements = init.pool.requirements;
    this.bits = init.bits;
    this.opened = init.bits;
    this.maxAlloc = init.pool.maxOf(init.bits);
    this.growthAlloc = this.maxAlloc;
    const cheap = init.pool.cheapest(init.bits, this.requirements);
    this.price = cheap?.price ?? Infinity;
    this.cheapIndex = cheap?.index ?? -1;
  }

  /** Whether `vector` fits beside the pods without changing the cheapest option. */
  slackHolds(vector: Float64Array): boolean {
    return this.cheapIndex >= 0 && fitsAt(this.used, vector, this.pool.alloc, this.cheapIndex * this.pool.width);
  }

  /** Whether `vector` can fit at all (`capped`: within the spot-capable growth cap). Permanent once false. */
  mayHold(vector: Float64Array, capped: boolean): boolean {
    return fitsAt(this.used, vector, capped ? this.growthAlloc : this.maxAlloc, 0);
  }

  /** Whether holding `vector` too stays within the target's allocatable. */
  withinTarget(vector: Float64Array): boolean {
    return this.target !== undefined && fitsAt(this.used, vector, this.target.alloc, 0);
  }

  /** Whether narrowing to `bits` would leave only on-demand options where spot ones were left before. */
  losesSpot(bits: Bitset): boolean {
    const spot = this.pool.spot;
    return (
      spot !== undefined &&
      this.pods.length > 0 &&
      isEmptyBits(andBits(bits, spot)) &&
      !isEmptyBits(andBits(this.bits, spot))
    );
  }

  domainOf(key: string): string | undefined {
    return singleValue(this.requirements, key);
  }

  protected admits(filter: NodeFilter): boolean {
    return filter.admitsClaim(this.requirements, this.pool.pool.taints);
  }

  /** The allocatable of the cheapest option (read-only view into the pool's table). */
  cheapAlloc(): Float64Array {
    if (this.cheapView?.index !== this.cheapIndex) {
      this.cheapView = {
        index: this.cheapIndex,
        alloc: this.pool.alloc.subarray(this.cheapIndex * this.pool.width, (this.cheapIndex + 1) * this.pool.width),
      };
    }
    return this.cheapView.alloc;
  }

  /** Takes a pod out (see unrecord); the options stay as they are until `reopen`. */
  remove(c: Candidate): void {
    this.unrecord(c);
    this.shrunk = true;
  }

  /** Puts back a pod taken out by `remove`, without checks (undoing a move). */
  restore(c: Candidate): void {
    this.record(c);
  }

  /**
   * After pods left: the options become every type the NodeClaim could use from the start that its
   * requirements allow and that holds what is left, but none larger in any resource than its
   * largest option so far (what it reserves against NodePool limits never grows), nor one where a
   * DaemonSet takes the host port of a pod left (PoolTypes.portsFree); re-picks the cheapest. Never
   * raises the price: every option it had is kept.
   */
  reopen(): void {
    if (!this.shrunk) return;
    this.shrunk = false;
    let open = andBits(this.opened, this.pool.typesFor(this.requirements));
    for (const pod of this.pods) {
      const free = this.pool.portsFree(pod.hostPorts);
      if (free !== undefined) open = andBits(open, free.bits);
    }
    const volumes = this.pool.volumesFit(this.volumes.counts());
    if (volumes !== undefined) open = andBits(open, volumes);
    const bits = this.pool.noLarger(this.pool.fitting(open, this.used), this.bits);
    const cheap = this.pool.cheapest(bits, this.requirements);
    if (cheap === undefined || cheap.price >= this.price) return;
    this.onNarrow?.(this.bits, bits);
    this.setOptions(bits, cheap.index, cheap.price);
  }

  /**
   * Narrows the options to those no larger in the `slots` (NodePool-limited resources) than the cheapest
   * one: what the NodeClaim reserves against limits becomes what it launches, not its largest option.
   * It cannot grow past its cheapest option afterwards; the price does not change.
   */
  tighten(slots: readonly number[]): void {
    if (this.cheapIndex < 0) return;
    const bits = this.pool.noLargerThan(this.bits, this.cheapIndex, slots);
    if (bits.every((word, w) => word === this.bits[w])) return;
    this.onNarrow?.(this.bits, bits);
    this.setOptions(bits, this.cheapIndex, this.price);
  }

  tryAdd(c: Candidate): AddResult {
    const common = this.commonChecks(c, this.pool.pool.taints, `NodePool ${this.pool.pool.name}`);
    if (common !== undefined) return common;
    if (!fitsAt(this.used, c.vector, this.maxAlloc, 0))
      return { ok: false, permanent: true, reason: "no instance type has room", noFit: true };
    const ported = this.portsFree(c);
    if (ported === undefined) return fail(this.portsTaken(c));
    const base = this.volumesFit(ported, c);
    if (base === undefined)
      return fail(`no instance type of NodePool ${this.pool.pool.name} can attach the pod's volumes`, false);
    const podReqs = c.state.requirements();
    const incompatible = this.requirements.compatible(podReqs);
    if (incompatible !== undefined) return fail(`incompatible with NodePool ${this.pool.pool.name}: ${incompatible}`);
    const merged = podReqs.size === 0 ? this.requirements : this.requirements.intersect(podReqs);
    const place: Place = { hostname: this.hostname, domainOf: (k) => singleValue(merged, k) };
    const possible = (k: string): string[] => this.possible(k, merged);
    const topo = this.topology.check(c.constraints, place, c.state.strictRequirements(), possible);
    if (!(topo instanceof Map)) return fail(topo.reason, topo.permanent);
    const used = Float64Array.from(this.used, (v, i) => v + c.vector[i]!);
    const chosen = this.narrow(merged, topo, used, base);
    if (chosen === undefined) return { ok: false, permanent: true, reason: "no instance type has room", noFit: true };
    const shortfall = minValuesShortfall(this.pool, chosen.reqs, chosen.bits);
    if (shortfall !== undefined) return fail(shortfall);
    const cheap = this.pool.cheapest(chosen.bits, chosen.reqs);
    const narrowed = { bits: chosen.bits, price: cheap?.price ?? Infinity };
    return { ok: true, narrowed, commit: () => this.apply(c, chosen, cheap?.index ?? -1, narrowed.price) };
  }

  /** `bits` less the options whose volume limits the pod's claims, with those already here, would exceed. */
  private volumesFit(bits: Bitset, c: Candidate): Bitset | undefined {
    if (c.attachments === undefined || c.attachments.size === 0) return bits;
    const fit = this.pool.volumesFit(this.volumes.countsWith(c.attachments));
    if (fit === undefined) return bits;
    const out = andBits(bits, fit);
    return isEmptyBits(out) ? undefined : out;
  }

  /**
   * The options on which the pod's host ports are free of the DaemonSets running there (PoolTypes.portsFree):
   * all of them for a pod without host ports, undefined when none is left.
   */
  private portsFree(c: Candidate): Bitset | undefined {
    const free = this.pool.portsFree(c.state.pod.hostPorts);
    if (free === undefined) return this.bits;
    const bits = andBits(this.bits, free.bits);
    return isEmptyBits(bits) ? undefined : bits;
  }

  private portsTaken(c: Candidate): string {
    const free = this.pool.portsFree(c.state.pod.hostPorts)!;
    const { port, protocol } = free.port;
    const pool = this.pool.pool.name;
    return `hostPort ${port}/${protocol} is taken by DaemonSet ${free.daemonSet} on every node NodePool ${pool} offers`;
  }

  private possible(key: string, reqs: Requirements): string[] {
    const r = reqs.get(key);
    return [...this.pool.domains(key)].filter((d) => r === undefined || r.has(d));
  }

  /** Pins undecided topology keys to the first allowed domain that still leaves an instance type. */
  private narrow(
    merged: Requirements,
    topo: Map<string, string[]>,
    used: Float64Array,
    base: Bitset,
  ): { reqs: Requirements; bits: Bitset } | undefined {
    let reqs = merged;
    for (const [key, domains] of topo) {
      if (key === "kubernetes.io/hostname" || singleValue(reqs, key) !== undefined) continue;
      const leaves = (d: string): boolean =>
        !isEmptyBits(this.candidateBits(reqs.with(Requirement.in(key, [d])), used, base));
      const pick = domains.find(leaves);
      if (pick === undefined) return undefined;
      reqs = reqs.with(Requirement.in(key, [pick]));
    }
    const bits = this.candidateBits(reqs, used, base);
    return isEmptyBits(bits) ? undefined : { reqs, bits };
  }

  /** Options among `base` (the NodeClaim's less those DaemonSet host ports rule out) under `reqs` holding `used`. */
  private candidateBits(reqs: Requirements, used: Float64Array, base: Bitset): Bitset {
    const bits = reqs === this.requirements ? base : andBits(base, this.pool.typesFor(reqs));
    return this.pool.fitting(bits, used);
  }

  private apply(c: Candidate, chosen: { reqs: Requirements; bits: Bitset }, cheapIndex: number, price: number): void {
    this.requirements = chosen.reqs;
    if (this.pods.length > 0) this.onNarrow?.(this.bits, chosen.bits);
    this.setOptions(chosen.bits, cheapIndex, price);
    this.record(c);
  }

  private setOptions(bits: Bitset, cheapIndex: number, price: number): void {
    this.bits = bits;
    this.maxAlloc = this.pool.maxOf(bits);
    const spot = this.pool.spot === undefined ? undefined : andBits(bits, this.pool.spot);
    this.growthAlloc = spot === undefined || isEmptyBits(spot) ? this.maxAlloc : this.pool.maxOf(spot);
    this.cheapIndex = cheapIndex;
    this.price = price;
  }
}

function singleValue(reqs: Requirements, key: string): string | undefined {
  const r = reqs.get(key);
  if (r === undefined || r.complement || r.values.size !== 1) return undefined;
  for (const v of r.values) return v;
  return undefined;
}

/** The NodeClaim's options under `reqs` must span its minValues, offering labels (zone, capacity type) included. */
function minValuesShortfall(pool: PoolTypes, reqs: Requirements, bits: Bitset): string | undefined {
  if (reqs.minValues().size === 0) return undefined;
  const types: InstanceType[] = [];
  forEachBit(bits, (i) => types.push(pool.types[i]!));
  const s = typesMinValuesGap(types, reqs);
  if (s === undefined) return undefined;
  return (
    `minValues requirement is not met for label ${s.key}: needs ${s.needed} values, ` +
    `the instance types that fit offer ${s.found}`
  );
}

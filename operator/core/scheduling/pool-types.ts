/**
 * One NodePool's instance types, indexed for the solver: types compatible with the pool, their
 * allocatable net of DaemonSet overhead as vectors, and bitset indexes by label value and offering
 * so "which types satisfy these requirements" is a few bitwise ORs/ANDs, cached per requirement set.
 * Types are ordered by their cheapest offering under the pool's requirements, so a bitset's first
 * set bit is (nearly always) its cheapest option; the pool's best price per unit of each resource
 * values what a NodeClaim's pods use (the packing's cost rules, solver.ts).
 */
import {
  cheapestOffering,
  isExotic,
  labelsMismatch,
  offeringLabel,
  offeringMatches,
} from "../../../policies/domain/instance-types.ts";
import type { InstanceType, Offering } from "../../../policies/domain/instance-types.ts";
import {
  Label,
  OFFERING_LABELS,
  RESERVATION_LABELS,
  WELL_KNOWN_LABELS,
  type CapacityType,
} from "../../../policies/domain/labels.ts";
import { Requirement, Requirements, type NodeSelectorRequirement } from "../../../policies/domain/requirements.ts";
import { untoleratedTaint } from "../../../policies/domain/taints.ts";
import { andBits, emptyBits, fullBits, intersects, isEmptyBits, orInto, setBit, forEachBit } from "./bitset.ts";
import type { Bitset } from "./bitset.ts";
import { HostPorts } from "./host-ports.ts";
import type { ResourceSpace } from "./resource-space.ts";
import type { DaemonSetView, HostPort, NodePoolView, SimPod } from "./types.ts";

/** A DaemonSet with host ports and the pool's types it runs on: on their nodes its ports are taken. */
interface DaemonPorts {
  readonly name: string;
  readonly ports: HostPorts;
  readonly bits: Bitset;
}

/** Types of a pool on which a pod's host port is free of DaemonSets, and the first DaemonSet holding one elsewhere. */
export interface PortsFree {
  readonly bits: Bitset;
  readonly daemonSet: string;
  readonly port: HostPort;
}

interface OfferingBits {
  readonly zone: string;
  readonly zoneId: string | undefined;
  readonly capacityType: string;
  /** The reservation of a reserved offering: one entry per reservation, as their labels differ. */
  readonly reservation: Offering["reservation"];
  readonly bits: Bitset;
}

/** Requirements of a pod's node selector plus one required node-affinity term. */
export function nodeSelectorRequirements(pod: SimPod, term: readonly NodeSelectorRequirement[] = []): Requirements {
  return Requirements.fromLabels(pod.nodeSelector).intersect(Requirements.fromSelectors(term));
}

function daemonRuns(ds: SimPod, pool: NodePoolView, poolReqs: Requirements, type: InstanceType): boolean {
  if (untoleratedTaint(pool.taints, ds.tolerations) !== undefined) return false;
  const terms = ds.requiredTerms.length === 0 ? [[]] : ds.requiredTerms;
  return terms.some((term) => {
    const reqs = nodeSelectorRequirements(ds, term);
    if (poolReqs.compatible(reqs) !== undefined) return false;
    for (const r of reqs) {
      if (OFFERING_LABELS.has(r.key)) continue;
      const v = type.labels[r.key];
      if (v !== undefined ? !r.has(v) : !poolReqs.has(r.key) && !r.allowsAbsent()) return false;
    }
    return true;
  });
}

export class PoolTypes {
  readonly pool: NodePoolView;
  /** The pool's requirements with its template labels and `karpenter.sh/nodepool` folded in. */
  readonly requirements: Requirements;
  readonly types: InstanceType[];
  /** Allocatable minus DaemonSet overhead, `types.length × space.size`. */
  readonly alloc: Float64Array;
  readonly capacity: Float64Array;
  readonly width: number;
  private readonly labelIndex = new Map<string, Map<string, Bitset>>();
  private readonly missing = new Map<string, Bitset>();
  private readonly offerings: OfferingBits[] = [];
  private readonly cache = new Map<string, Bitset>();
  private readonly domainCache = new Map<string, ReadonlySet<string>>();
  private readonly maxCache = {
    alloc: new WeakMap<Bitset, Float64Array>(),
    capacity: new WeakMap<Bitset, Float64Array>(),
  };
  /** The DaemonSets with host ports, by their view (indexType marks the types each runs on). */
  private readonly daemonPorts = new Map<DaemonSetView, DaemonPorts>();
  /** Every type of the pool. */
  readonly all: Bitset;
  /** Each type's cheapest available offering under the pool's requirements ($/h), ascending. */
  readonly prices: Float64Array;
  /** Per resource slot, the pool's lowest price per unit of allocatable (Infinity when no type has any). */
  readonly unitPrices: Float64Array;
  /** Types that are not exotic (isExotic); undefined when every type is one, or none is. */
  readonly ordinary: Bitset | undefined;
  /** Types with an available spot offering; undefined when the pool does not allow spot. */
  readonly spot: Bitset | undefined;
  private readonly offeringPrices = new Map<string, Float64Array>();
  /** Per type, the best price per unit of value it can offer: its price ÷ the value of its whole allocatable. */
  readonly efficiencyBound: Float64Array;
  /** Type indexes by efficiencyBound, ascending (sizing.ts stops scanning once the bound cannot win). */
  readonly byEfficiency: Int32Array;
  /** Per type, the value (value()) of its whole allocatable. */
  readonly capacityValue: Float64Array;
  /** Type indexes by capacityValue, descending (sizing.ts: the largest fill). */
  readonly byCapacity: Int32Array;

  constructor(pool: NodePoolView, space: ResourceSpace, daemonSets: readonly DaemonSetView[]) {
    this.pool = pool;
    const labels = Object.entries(pool.labels).map(([k, v]) => Requirement.in(k, [v]));
    this.requirements = Requirements.fromSelectors(pool.requirements).intersect(
      new Requirements([...labels, Requirement.in(Label.nodePool, [pool.name])]),
    );
    const typeKeys = new Set(pool.instanceTypes.flatMap((t) => Object.keys(t.labels)));
    // Keys no instance type carries (template labels, custom keys, the nodepool label) become node labels, not filters.
    const typeFilter = new Requirements(
      [...this.requirements].filter(
        (r) =>
          r.key !== Label.nodePool &&
          pool.labels[r.key] === undefined &&
          (typeKeys.has(r.key) || WELL_KNOWN_LABELS.has(r.key)),
      ),
    );
    const priced = pool.instanceTypes
      .filter((t) => labelsMismatch(t, typeFilter) === undefined)
      .map((t) => ({ t, price: cheapestOffering(t, this.requirements)?.pricePerHour }))
      .filter((x): x is { t: InstanceType; price: number } => x.price !== undefined)
      .sort((a, b) => a.price - b.price || a.t.name.localeCompare(b.t.name));
    this.types = priced.map((x) => x.t);
    this.width = space.size;
    this.alloc = new Float64Array(this.types.length * this.width);
    this.capacity = new Float64Array(this.types.length * this.width);
    this.prices = Float64Array.from(priced, (x) => x.price);
    this.types.forEach((t, i) => this.indexType(t, i, space, daemonSets));
    this.all = fullBits(this.types.length);
    this.unitPrices = new Float64Array(this.width).fill(Infinity);
    for (let i = 0; i < this.types.length; i++) {
      for (let r = 0; r < this.width; r++) {
        const a = this.alloc[i * this.width + r]!;
        if (a > 0) this.unitPrices[r] = Math.min(this.unitPrices[r]!, this.prices[i]! / a);
      }
    }
    const w = this.width;
    const values = Float64Array.from(this.types, (_, i) => this.value(this.alloc.subarray(i * w, (i + 1) * w)));
    ({
      efficiencyBound: this.efficiencyBound,
      byEfficiency: this.byEfficiency,
      capacityValue: this.capacityValue,
      byCapacity: this.byCapacity,
      ordinary: this.ordinary,
    } = sizingIndex(this.types, this.prices, values));
    const ct = this.requirements.get(Label.capacityType);
    const spot = emptyBits(this.types.length);
    for (const e of this.offerings) if (e.capacityType === "spot") orInto(spot, e.bits);
    this.spot = (ct === undefined || ct.has("spot")) && !isEmptyBits(spot) ? spot : undefined;
  }

  /**
   * The types that can attach `counts` volumes per CSI driver (their volumeLimits); undefined when no
   * type of the pool declares a limit for any of those drivers (all fit).
   */
  volumesFit(counts: ReadonlyMap<string, number>): Bitset | undefined {
    let out: Bitset | undefined;
    for (const [driver, n] of counts) {
      if (!this.types.some((t) => t.volumeLimits?.[driver] !== undefined)) continue;
      const fit = emptyBits(this.types.length);
      this.types.forEach((t, i) => {
        const limit = t.volumeLimits?.[driver];
        if (limit === undefined || n <= limit) setBit(fit, i);
      });
      out = out === undefined ? fit : andBits(out, fit);
    }
    return out;
  }

  /**
   * What the pods using `used` are worth at the pool's best unit prices: the largest of
   * used[r] × unitPrice[r]. No node holding `used` costs less, so price ÷ value ≥ 1 measures how
   * much a NodeClaim overpays per unit of what its pods use.
   */
  value(used: Float64Array): number {
    let v = 0;
    for (let r = 0; r < this.width; r++) {
      const u = used[r]!;
      if (u > 0 && Number.isFinite(this.unitPrices[r]!)) v = Math.max(v, u * this.unitPrices[r]!);
    }
    return v;
  }

  /** Type `i`'s cheapest available offering under `reqs` (Infinity when none). */
  priceUnder(i: number, reqs: Requirements): number {
    const zone = reqs.get(Label.zone);
    const ct = reqs.get(Label.capacityType);
    const zoneId = reqs.get(Label.zoneId);
    const own = this.requirements;
    if (zone === own.get(Label.zone) && ct === own.get(Label.capacityType) && zoneId === own.get(Label.zoneId))
      return this.prices[i]!;
    const key = [zone, ct, zoneId].map((r) => r?.toString()).join("|");
    let prices = this.offeringPrices.get(key);
    if (prices === undefined) this.offeringPrices.set(key, (prices = new Float64Array(this.types.length).fill(NaN)));
    if (Number.isNaN(prices[i]!)) prices[i] = cheapestOffering(this.types[i]!, reqs)?.pricePerHour ?? Infinity;
    return prices[i]!;
  }

  /**
   * The cheapest option among `bits` under `reqs`, ordinary ones first (isExotic: the launch drops exotic
   * types while an ordinary one is left): scans in pool price order and stops once the pool-level price
   * (a lower bound of the price under narrower requirements) cannot win.
   */
  cheapest(bits: Bitset, reqs: Requirements): { readonly index: number; readonly price: number } | undefined {
    const mask = this.ordinary !== undefined && intersects(bits, this.ordinary) ? this.ordinary : undefined;
    let index = -1;
    let price = Infinity;
    for (let w = 0; w < bits.length; w++) {
      let word = mask === undefined ? bits[w]! : bits[w]! & mask[w]!;
      while (word !== 0) {
        const low = word & -word;
        const i = (w << 5) + 31 - Math.clz32(low);
        if (this.prices[i]! >= price) return { index, price };
        const p = this.priceUnder(i, reqs);
        if (p < price) [index, price] = [i, p];
        word ^= low;
      }
    }
    return index < 0 ? undefined : { index, price };
  }

  /**
   * Where a pod's host ports are free of the DaemonSets that would run beside it: Karpenter books a
   * NodeClaim's DaemonSet host ports before any pod (scheduler.go buildDaemonOverheadGroups, per
   * instance type the DaemonSets compatible with it), so a pod whose host port such a DaemonSet uses
   * cannot go to a node of those types. Undefined when no DaemonSet of the pool holds one of `ports`
   * (always for a pod without host ports: one length check on the hot path).
   */
  portsFree(ports: readonly HostPort[]): PortsFree | undefined {
    if (ports.length === 0 || this.daemonPorts.size === 0) return undefined;
    let out: { bits: Bitset; daemonSet: string; port: HostPort } | undefined;
    for (const d of this.daemonPorts.values()) {
      const port = d.ports.conflict(ports);
      if (port === undefined) continue;
      out ??= { bits: Uint32Array.from(this.all), daemonSet: d.name, port };
      for (let w = 0; w < out.bits.length; w++) out.bits[w]! &= ~d.bits[w]!;
    }
    return out;
  }

  /** The ordinary (not exotic) types among `bits`, or `bits` when it has none. */
  preferOrdinary(bits: Bitset): Bitset {
    return this.ordinary !== undefined && intersects(bits, this.ordinary) ? andBits(bits, this.ordinary) : bits;
  }

  /** Whether type `i`'s allocatable holds `used`. */
  holds(i: number, used: Float64Array): boolean {
    const w = this.width;
    for (let r = 0; r < w; r++) if (used[r]! > this.alloc[i * w + r]!) return false;
    return true;
  }

  /** The cheapest type among `bits` whose allocatable holds `used` (pool-level price), or undefined. */
  firstFitting(bits: Bitset, used: Float64Array): number | undefined {
    let found: number | undefined;
    for (let word = 0; word < bits.length && found === undefined; word++) {
      let x = bits[word]!;
      while (x !== 0 && found === undefined) {
        const low = x & -x;
        const i = (word << 5) + 31 - Math.clz32(low);
        if (this.holds(i, used)) found = i;
        x ^= low;
      }
    }
    return found;
  }

  private indexType(t: InstanceType, i: number, space: ResourceSpace, daemonSets: readonly DaemonSetView[]): void {
    const alloc = space.vector(t.allocatable);
    for (const ds of daemonSets) {
      if (!daemonRuns(ds.pod, this.pool, this.requirements, t)) continue;
      if (ds.pod.hostPorts.length > 0) this.markDaemonPorts(ds, i);
      const overhead = space.vector(ds.pod.requests);
      for (let r = 0; r < alloc.length; r++) alloc[r]! -= overhead[r]!;
    }
    this.alloc.set(alloc, i * this.width);
    this.capacity.set(space.vector(t.capacity), i * this.width);
    for (const [key, value] of Object.entries(t.labels)) {
      let byValue = this.labelIndex.get(key);
      if (byValue === undefined) this.labelIndex.set(key, (byValue = new Map()));
      let bits = byValue.get(value);
      if (bits === undefined) byValue.set(value, (bits = emptyBits(this.types.length)));
      setBit(bits, i);
    }
    for (const o of t.offerings) {
      if (!o.available) continue;
      let entry = this.offerings.find(
        (e) => e.zone === o.zone && e.capacityType === o.capacityType && e.reservation?.id === o.reservation?.id,
      );
      if (entry === undefined) {
        const bits = emptyBits(this.types.length);
        this.offerings.push(
          (entry = { zone: o.zone, zoneId: o.zoneId, capacityType: o.capacityType, reservation: o.reservation, bits }),
        );
      }
      setBit(entry.bits, i);
    }
  }

  /** Records that DaemonSet `ds`, which has host ports, runs on type `i`. */
  private markDaemonPorts(ds: DaemonSetView, i: number): void {
    let entry = this.daemonPorts.get(ds);
    if (entry === undefined) {
      const ports = new HostPorts();
      ports.add(ds.pod.hostPorts);
      this.daemonPorts.set(ds, (entry = { name: ds.name, ports, bits: emptyBits(this.types.length) }));
    }
    setBit(entry.bits, i);
  }

  private missingBits(key: string): Bitset {
    let bits = this.missing.get(key);
    if (bits === undefined) {
      bits = fullBits(this.types.length);
      for (const set of this.labelIndex.get(key)?.values() ?? [])
        for (let w = 0; w < bits.length; w++) bits[w]! &= ~set[w]!;
      this.missing.set(key, bits);
    }
    return bits;
  }

  private bitsFor(r: Requirement): Bitset {
    const out = emptyBits(this.types.length);
    for (const [value, bits] of this.labelIndex.get(r.key) ?? []) if (r.has(value)) orInto(out, bits);
    if (r.allowsAbsent()) orInto(out, this.missingBits(r.key));
    return out;
  }

  private offeringBits(reqs: Requirements): Bitset {
    const zone = reqs.get(Label.zone);
    const ct = reqs.get(Label.capacityType);
    const zoneId = reqs.get(Label.zoneId);
    const out = emptyBits(this.types.length);
    const byReservation = RESERVATION_LABELS.some((k) => reqs.get(k) !== undefined);
    for (const e of this.offerings) {
      if (zone !== undefined && !zone.has(e.zone)) continue;
      if (ct !== undefined && !ct.has(e.capacityType)) continue;
      if (zoneId !== undefined && (e.zoneId === undefined || !zoneId.has(e.zoneId))) continue;
      if (
        byReservation &&
        !offeringMatches({ ...e, capacityType: e.capacityType as CapacityType, pricePerHour: 0, available: true }, reqs)
      )
        continue;
      orInto(out, e.bits);
    }
    return out;
  }

  /** The types whose labels and offerings satisfy `reqs` (cached by signature). */
  typesFor(reqs: Requirements): Bitset {
    const key = reqs.signature();
    let bits = this.cache.get(key);
    if (bits !== undefined) return bits;
    bits = this.offeringBits(reqs);
    for (const r of reqs) {
      if (
        OFFERING_LABELS.has(r.key) ||
        (!this.labelIndex.has(r.key) && !WELL_KNOWN_LABELS.has(r.key)) ||
        r.key === Label.nodePool ||
        this.pool.labels[r.key] !== undefined
      )
        continue;
      bits = andBits(bits, this.bitsFor(r));
    }
    this.cache.set(key, bits);
    return bits;
  }

  /** The subset of `bits` whose allocatable holds `used`. */
  fitting(bits: Bitset, used: Float64Array): Bitset {
    const out = emptyBits(this.types.length);
    forEachBit(bits, (i) => {
      if (this.holds(i, used)) setBit(out, i);
    });
    return out;
  }

  /** The subset of `bits` whose capacity is nowhere larger than the largest capacity among `than`. */
  noLarger(bits: Bitset, than: Bitset): Bitset {
    const bound = this.maxOf(than, "capacity");
    const out = emptyBits(this.types.length);
    forEachBit(bits, (i) => {
      for (let r = 0; r < this.width; r++) if (this.capacity[i * this.width + r]! > bound[r]!) return;
      setBit(out, i);
    });
    return out;
  }

  /** The subset of `bits` whose capacity in `slots` is nowhere larger than type `i`'s. */
  noLargerThan(bits: Bitset, i: number, slots: readonly number[]): Bitset {
    const w = this.width;
    const out = emptyBits(this.types.length);
    forEachBit(bits, (t) => {
      for (const r of slots) if (this.capacity[t * w + r]! > this.capacity[i * w + r]!) return;
      setBit(out, t);
    });
    return out;
  }

  /**
   * The domains of `key` this pool can launch into: its requirement's values, offering
   * values or type labels (cached).
   */
  domains(key: string): ReadonlySet<string> {
    let out = this.domainCache.get(key);
    if (out !== undefined) return out;
    const r = this.requirements.get(key);
    const values = new Set<string>();
    const add = (v: string | undefined): void => {
      if (v !== undefined && (r === undefined || r.has(v))) values.add(v);
    };
    if (r !== undefined && !r.complement) r.values.forEach(add);
    else if (OFFERING_LABELS.has(key))
      this.types.forEach((t) => t.offerings.filter((o) => o.available).forEach((o) => add(offeringValue(o, key))));
    else this.types.forEach((t) => add(t.labels[key]));
    this.domainCache.set(key, (out = values));
    return out;
  }

  /** Slot-wise maximum of allocatable (or capacity) over `bits` (cached per bitset: bitsets are never mutated). */
  maxOf(bits: Bitset, of: "alloc" | "capacity" = "alloc"): Float64Array {
    const cached = this.maxCache[of].get(bits);
    if (cached !== undefined) return cached;
    const source = of === "alloc" ? this.alloc : this.capacity;
    const out = new Float64Array(this.width).fill(-Infinity);
    this.maxCache[of].set(bits, out);
    forEachBit(bits, (i) => {
      for (let r = 0; r < this.width; r++) out[r] = Math.max(out[r]!, source[i * this.width + r]!);
    });
    return out;
  }
}

/** What sizing.ts scans: types by best possible price per unit of value, by capacity, and the ordinary ones. */
interface SizingIndex {
  efficiencyBound: Float64Array;
  byEfficiency: Int32Array;
  capacityValue: Float64Array;
  byCapacity: Int32Array;
  ordinary: Bitset | undefined;
}

function sizingIndex(types: readonly InstanceType[], prices: Float64Array, values: Float64Array): SizingIndex {
  const efficiencyBound = Float64Array.from(prices, (price, i) => (values[i]! > 0 ? price / values[i]! : Infinity));
  const ordinary = emptyBits(types.length);
  types.forEach((t, i) => {
    if (!isExotic(t)) setBit(ordinary, i);
  });
  return {
    efficiencyBound,
    capacityValue: values,
    byEfficiency: Int32Array.from(types.keys()).sort((a, b) => efficiencyBound[a]! - efficiencyBound[b]! || a - b),
    byCapacity: Int32Array.from(types.keys()).sort((a, b) => values[b]! - values[a]! || a - b),
    ordinary: !isEmptyBits(ordinary) && types.some((t) => isExotic(t)) ? ordinary : undefined,
  };
}

function offeringValue(o: InstanceType["offerings"][number], key: string): string | undefined {
  return offeringLabel(o, key);
}

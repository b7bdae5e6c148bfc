/**
 * Topology spread and pod (anti-)affinity counting. A group counts, per domain of one topology
 * key, the pods a selector matches (or, for "owner" groups, the pods carrying an anti-affinity term,
 * which forbids matching pods from joining them: the inverse rule). Counts include pods already on
 * nodes. Domains of non-hostname keys come from the NodePools and nodes (the universe).
 */
import { Label } from "../../../policies/domain/labels.ts";
import type { Requirements } from "../../../policies/domain/requirements.ts";
import { selectorKey, selectorMatches } from "./selector.ts";
import type { LabelSelector, PodAffinityTerm, SimPod, SpreadConstraint } from "./types.ts";

export interface Group {
  readonly id: number;
  readonly owner: boolean;
  readonly key: string;
  readonly namespaces: ReadonlySet<string>;
  readonly selector: LabelSelector;
  readonly counts: Map<string, number>;
  total: number;
}

export type ConstraintKind = "spread" | "affinity" | "anti" | "inverse";

export interface TopologyConstraint {
  readonly kind: ConstraintKind;
  readonly group: Group;
  readonly maxSkew: number;
  readonly minDomains: number;
  /** Whether the pod matches the group itself (counts towards its own skew / may seed its own affinity). */
  readonly self: boolean;
}

/** What the topology needs to know of a place: a unique hostname and the domain of a key if decided. */
export interface Place {
  readonly hostname: string;
  domainOf(key: string): string | undefined;
}

/** A failed check: the reason, and whether it can never succeed again for this place (counts only grow). */
export interface TopologyFailure {
  readonly reason: string;
  readonly permanent: boolean;
}

/** Where a place's undecided domains may go (`possible`) and which domains the pod could reach at all (`eligible`). */
export interface DomainSources {
  readonly possible: (key: string) => string[];
  readonly eligible: (key: string) => ReadonlySet<string>;
}

export class Topology {
  private readonly groups = new Map<string, Group>();
  private readonly universes = new Map<string, ReadonlySet<string>>();

  setUniverse(key: string, domains: ReadonlySet<string>): void {
    this.universes.set(key, domains);
  }

  universe(key: string): ReadonlySet<string> {
    return this.universes.get(key) ?? new Set();
  }

  /** Keys other than hostname that some group counts by. */
  keys(): Set<string> {
    return new Set([...this.groups.values()].map((g) => g.key).filter((k) => k !== Label.hostname));
  }

  private group(owner: boolean, key: string, namespaces: readonly string[], selector: LabelSelector): Group {
    const ns = [...namespaces].sort();
    const id = `${owner}|${key}|${ns.join(",")}|${selectorKey(selector)}`;
    let g = this.groups.get(id);
    if (g === undefined) this.groups.set(id, (g = { id: this.groups.size, owner, key, namespaces: new Set(ns), selector, counts: new Map(), total: 0 }));
    return g;
  }

  private matches(g: Group, pod: SimPod): boolean {
    return g.namespaces.has(pod.namespace) && selectorMatches(g.selector, pod.labels);
  }

  /** Constraints of a pod for the given (possibly relaxed) terms; registers groups as needed. */
  constraints(pod: SimPod, terms: { spread: readonly SpreadConstraint[]; affinity: readonly PodAffinityTerm[]; anti: readonly PodAffinityTerm[] }): TopologyConstraint[] {
    const out: TopologyConstraint[] = [];
    const add = (kind: ConstraintKind, g: Group, maxSkew = 0, minDomains = 0): void => {
      out.push({ kind, group: g, maxSkew, minDomains, self: this.matches(g, pod) });
    };
    for (const s of terms.spread) add("spread", this.group(false, s.topologyKey, [pod.namespace], s.selector), s.maxSkew, s.minDomains ?? 0);
    for (const t of terms.affinity) add("affinity", this.group(false, t.topologyKey, t.namespaces, t.selector));
    for (const t of terms.anti) add("anti", this.group(false, t.topologyKey, t.namespaces, t.selector));
    return out;
  }

  /** Registers the owner groups of a pod's required anti-affinity (only required terms bind other pods). */
  registerOwner(pod: SimPod): void {
    for (const t of pod.antiAffinity) this.group(true, t.topologyKey, t.namespaces, t.selector);
  }

  /** Inverse anti-affinity: owner groups whose selector matches this pod (it may not join their domains). */
  inverse(pod: SimPod): TopologyConstraint[] {
    return [...this.groups.values()].filter((g) => g.owner && this.matches(g, pod))
      .map((g) => ({ kind: "inverse" as const, group: g, maxSkew: 0, minDomains: 0, self: false }));
  }

  /** Groups a pod counts in: selector groups it matches, owner groups whose term it carries. */
  countedIn(pod: SimPod, ownedTerms: readonly PodAffinityTerm[]): Group[] {
    const owned = new Set(ownedTerms.map((t) => `${t.topologyKey}|${[...t.namespaces].sort().join(",")}|${selectorKey(t.selector)}`));
    return [...this.groups.values()].filter((g) => (g.owner
      ? owned.has(`${g.key}|${[...g.namespaces].join(",")}|${selectorKey(g.selector)}`)
      : this.matches(g, pod)));
  }

  /** Adds one pod to group `g` in `domain`. */
  count(g: Group, domain: string): void {
    g.counts.set(domain, (g.counts.get(domain) ?? 0) + 1);
    g.total++;
  }

  /** Takes one pod out of group `g` in `domain` (a pod moved by the improvement pass). */
  uncount(g: Group, domain: string): void {
    g.counts.set(domain, (g.counts.get(domain) ?? 0) - 1);
    g.total--;
  }

  private minCount(c: TopologyConstraint, podReqs: Requirements, domains: ReadonlySet<string>): number {
    const req = podReqs.get(c.group.key);
    let eligible = 0;
    let min = Infinity;
    for (const d of domains) {
      if (req !== undefined && !req.has(d)) continue;
      eligible++;
      min = Math.min(min, c.group.counts.get(d) ?? 0);
    }
    return eligible === 0 || eligible < c.minDomains ? 0 : min;
  }

  /** Whether one domain is allowed for the constraint (`min` is the global minimum for spreads). */
  allowed(c: TopologyConstraint, domain: string, min: number): boolean {
    const n = c.group.counts.get(domain) ?? 0;
    switch (c.kind) {
      case "spread": return n + (c.self ? 1 : 0) - min <= c.maxSkew;
      case "affinity": return c.group.total === 0 ? c.self : n > 0;
      case "anti":
      case "inverse": return n === 0;
    }
  }

  /**
   * Checks a place against the constraints. Undecided domains (a planned claim not yet pinned to a
   * zone) are narrowed: the answer lists, per key, the domains still allowed, best first
   * (least-loaded for spreads). Hostname is always decided (every place is its own domain).
   * `eligible(key)` is the set of domains the pod could reach (pools it tolerates and matches, and
   * nodes): only those count for a spread's minimum, so a zone only another pool serves is not a domain.
   */
  check(constraints: readonly TopologyConstraint[], place: Place, podReqs: Requirements, domains: DomainSources): TopologyFailure | Map<string, string[]> {
    const { possible, eligible } = domains;
    const narrowed = new Map<string, string[]>();
    for (const c of constraints) {
      const key = c.group.key;
      const decided = key === Label.hostname ? place.hostname : place.domainOf(key);
      const options = narrowed.get(key) ?? (decided !== undefined ? [decided] : possible(key));
      const min = c.kind === "spread" && key !== Label.hostname ? this.minCount(c, podReqs, eligible(key)) : 0;
      const kept = options.filter((d) => this.allowed(c, d, min));
      if (kept.length === 0) return { reason: describe(c), permanent: decided !== undefined && c.kind !== "affinity" && !(c.kind === "spread" && key !== Label.hostname) };
      if (c.kind === "spread") kept.sort((a, b) => (c.group.counts.get(a) ?? 0) - (c.group.counts.get(b) ?? 0));
      narrowed.set(key, kept);
    }
    return narrowed;
  }
}

function describe(c: TopologyConstraint): string {
  switch (c.kind) {
    case "spread": return `topology spread constraint on ${c.group.key} (maxSkew ${c.maxSkew}) would be violated`;
    case "affinity": return `pod affinity on ${c.group.key} has no domain with a matching pod`;
    case "anti": return `pod anti-affinity on ${c.group.key} conflicts with pods already there`;
    case "inverse": return `anti-affinity of pods already on ${c.group.key} excludes this pod`;
  }
}

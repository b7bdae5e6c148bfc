/**
 * Topology spread and pod (anti-)affinity counting. A group counts, per domain of one topology
 * key, the pods a selector matches (or, for "owner" groups, the pods carrying an anti-affinity term,
 * which forbids matching pods from joining them: the inverse rule). Counts include pods already on
 * nodes. Domains of non-hostname keys come from the nodes and NodePools (DomainSource).
 *
 * A spread group also has a node filter (Kubernetes' nodeTaintsPolicy, default Ignore, and
 * nodeAffinityPolicy, default Honor): only nodes and NodePools it admits are domains for the
 * spread's minimum, and only pods on places it admits count. Honor taints admits what the owner's
 * tolerations tolerate; Honor affinity admits what matches the owner's nodeSelector and one of its
 * required node-affinity terms (never its preferred ones). Affinity groups have no filter.
 */
import { Label } from "../../../policies/domain/labels.ts";
import { RequirementError, type Requirements } from "../../../policies/domain/requirements.ts";
import { untoleratedTaint, type Taint, type Toleration } from "../../../policies/domain/taints.ts";
import { nodeSelectorRequirements } from "./pool-types.ts";
import { namespacesKey, selectorKey, selectorMatches, termNamespaceMatches } from "./selector.ts";
import type { LabelSelector, PodAffinityTerm, SimPod, Snapshot, SpreadConstraint } from "./types.ts";

/** Which places a spread counts (see the file comment); a group without one counts every place. */
export class NodeFilter {
  readonly id: string;
  /** Honor taints: the owner's tolerations. */
  private readonly tolerations: readonly Toleration[] | undefined;
  /** Honor affinity: the owner's nodeSelector with each required term (ORed). */
  private readonly terms: readonly Requirements[] | undefined;

  constructor(id: string, tolerations: readonly Toleration[] | undefined, terms: readonly Requirements[] | undefined) {
    this.id = id;
    this.tolerations = tolerations;
    this.terms = terms;
  }

  /**
   * NoSchedule and NoExecute taints only, as kube-scheduler's Honor (DoNotScheduleTaintsFilterFunc):
   * a PreferNoSchedule taint never excludes a node (Karpenter's Taints.Tolerates would count it).
   */
  private tolerates(taints: readonly Taint[]): boolean {
    return this.tolerations === undefined || untoleratedTaint(taints, this.tolerations) === undefined;
  }

  /** Whether an existing node counts. */
  admitsNode(labels: Readonly<Record<string, string>>, taints: readonly Taint[]): boolean {
    if (!this.tolerates(taints)) return false;
    return this.terms === undefined || this.terms.some((t) => t.matchLabels(labels) === undefined);
  }

  /** Whether a NodeClaim (planned, with these requirements) counts. */
  admitsClaim(requirements: Requirements, taints: readonly Taint[]): boolean {
    if (!this.tolerates(taints)) return false;
    return this.terms === undefined || this.terms.some((t) => requirements.compatible(t) === undefined);
  }

  /** The domains of `key` a NodePool contributes: none if not admitted, else those some matching term allows. */
  poolDomains(pool: PoolDomains, key: string): string[] {
    const all = pool.domains(key);
    if (!this.tolerates(pool.taints)) return [];
    if (this.terms === undefined) return [...all];
    const terms = this.terms.filter((t) => pool.requirements.compatible(t) === undefined);
    return [...all].filter((d) => terms.some((t) => t.get(key)?.has(d) ?? true));
  }
}

/** A NodePool as a source of domains. */
export interface PoolDomains {
  readonly taints: readonly Taint[];
  readonly requirements: Requirements;
  domains(key: string): ReadonlySet<string>;
}

/** Where domains come from: the existing nodes and the NodePools. */
export interface DomainSource {
  readonly nodes: readonly { readonly labels: Readonly<Record<string, string>>; readonly taints: readonly Taint[] }[];
  readonly pools: readonly PoolDomains[];
}

export interface Group {
  readonly id: number;
  readonly owner: boolean;
  readonly key: string;
  readonly namespaces: readonly string[];
  readonly namespaceSelector: LabelSelector | undefined;
  readonly selector: LabelSelector;
  /** Spread groups with a nodeTaintsPolicy/nodeAffinityPolicy that excludes places. */
  readonly filter: NodeFilter | undefined;
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

/** A pod's topology terms in force (PodState.terms). */
export interface PodTerms {
  readonly spread: readonly SpreadConstraint[];
  readonly affinity: readonly PodAffinityTerm[];
  readonly anti: readonly PodAffinityTerm[];
}

interface GroupSpec {
  readonly owner: boolean;
  readonly key: string;
  readonly term: Pick<PodAffinityTerm, "namespaces" | "namespaceSelector">;
  readonly selector: LabelSelector;
  readonly filter?: NodeFilter | undefined;
}

const NO_SOURCE: DomainSource = { nodes: [], pools: [] };

/** A label set as a string, cached by object (a memoized SimPod keeps its labels object, pod-spec.ts). */
const labelKeys = new WeakMap<Readonly<Record<string, string>>, string>();
function labelsKey(labels: Readonly<Record<string, string>>): string {
  let key = labelKeys.get(labels);
  if (key === undefined) {
    key = JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    labelKeys.set(labels, key);
  }
  return key;
}

export class Topology {
  private readonly groups = new Map<string, Group>();
  private readonly namespaces: Snapshot["namespaces"];
  private readonly filters = new Map<string, NodeFilter>();
  private readonly domainCache = new Map<string, ReadonlySet<string>>();
  /** domainCache by group (the hot path: every spread check reads it). */
  private readonly groupDomains = new Map<Group, ReadonlySet<string>>();
  private source: DomainSource = NO_SOURCE;
  /** countedIn's answers by pod class, with the number of groups they were computed over. */
  private readonly counted = new Map<string, { readonly groupCount: number; readonly groups: readonly Group[] }>();

  constructor(namespaces?: Snapshot["namespaces"]) {
    this.namespaces = namespaces;
  }

  /** Sets where domains come from (before the first check). */
  setDomainSource(source: DomainSource): void {
    this.source = source;
    this.domainCache.clear();
    this.groupDomains.clear();
  }

  /** Keys other than hostname that some group counts by. */
  keys(): Set<string> {
    return new Set([...this.groups.values()].map((g) => g.key).filter((k) => k !== Label.hostname));
  }

  private group(spec: GroupSpec): Group {
    const { owner, key, term, selector, filter } = spec;
    const id = `${owner}|${key}|${namespacesKey(term)}|${selectorKey(selector)}|${filter?.id ?? ""}`;
    let g = this.groups.get(id);
    if (g === undefined) {
      const { namespaces, namespaceSelector } = term;
      const counts = new Map<string, number>();
      g = { id: this.groups.size, owner, key, namespaces, namespaceSelector, selector, filter, counts, total: 0 };
      this.groups.set(id, g);
    }
    return g;
  }

  private matches(g: Group, pod: SimPod): boolean {
    return termNamespaceMatches(g, pod.namespace, this.namespaces) && selectorMatches(g.selector, pod.labels);
  }

  /** The node filter of a pod's spread (undefined when it admits every place); cached by what decides it. */
  private filterOf(pod: SimPod, s: SpreadConstraint): NodeFilter | undefined {
    const taints = s.nodeTaintsPolicy === "Honor";
    const constrained = pod.requiredTerms.length > 0 || Object.keys(pod.nodeSelector).length > 0;
    const affinity = (s.nodeAffinityPolicy ?? "Honor") === "Honor" && constrained;
    if (!taints && !affinity) return undefined;
    const id = JSON.stringify([
      taints ? pod.tolerations : null,
      affinity ? [pod.nodeSelector, pod.requiredTerms] : null,
    ]);
    let filter = this.filters.get(id);
    if (filter === undefined) {
      filter = new NodeFilter(id, taints ? pod.tolerations : undefined, affinity ? requiredNodeTerms(pod) : undefined);
      this.filters.set(id, filter);
    }
    return filter;
  }

  /** Constraints of a pod for the given (possibly relaxed) terms; registers groups as needed. */
  constraints(pod: SimPod, terms: PodTerms): TopologyConstraint[] {
    const out: TopologyConstraint[] = [];
    const add = (kind: ConstraintKind, g: Group, maxSkew = 0, minDomains = 0): void => {
      out.push({ kind, group: g, maxSkew, minDomains, self: this.matches(g, pod) });
    };
    const own = { namespaces: [pod.namespace] };
    for (const s of terms.spread) {
      const filter = this.filterOf(pod, s);
      const g = this.group({ owner: false, key: s.topologyKey, term: own, selector: s.selector, filter });
      add("spread", g, s.maxSkew, s.minDomains ?? 0);
    }
    const termGroup = (t: PodAffinityTerm): Group =>
      this.group({ owner: false, key: t.topologyKey, term: t, selector: t.selector });
    for (const t of terms.affinity) add("affinity", termGroup(t));
    for (const t of terms.anti) add("anti", termGroup(t));
    return out;
  }

  /** Registers the owner groups of a pod's required anti-affinity (only required terms bind other pods). */
  registerOwner(pod: SimPod): void {
    for (const t of pod.antiAffinity) this.group({ owner: true, key: t.topologyKey, term: t, selector: t.selector });
  }

  /** Inverse anti-affinity: owner groups whose selector matches this pod (it may not join their domains). */
  inverse(pod: SimPod): TopologyConstraint[] {
    return [...this.groups.values()]
      .filter((g) => g.owner && this.matches(g, pod))
      .map((g) => ({ kind: "inverse" as const, group: g, maxSkew: 0, minDomains: 0, self: false }));
  }

  /**
   * Groups a pod counts in: selector groups it matches, owner groups whose term it carries. A group
   * with a filter counts it only where the filter admits the place (the place checks, targets.ts).
   */
  countedIn(pod: SimPod, ownedTerms: readonly PodAffinityTerm[]): readonly Group[] {
    const owned = ownedTerms.map((t) => `${t.topologyKey}|${namespacesKey(t)}|${selectorKey(t.selector)}`);
    // What decides the answer is the namespace, the labels and the owned terms: a Deployment's replicas share it.
    // Groups are only ever added, so their number tells whether a cached answer is still whole.
    const id = `${pod.namespace}\u0000${labelsKey(pod.labels)}\u0000${owned.join("\u0001")}`;
    const hit = this.counted.get(id);
    if (hit !== undefined && hit.groupCount === this.groups.size) return hit.groups;
    const ownedSet = new Set(owned);
    const groups = [...this.groups.values()].filter((g) =>
      g.owner ? ownedSet.has(`${g.key}|${namespacesKey(g)}|${selectorKey(g.selector)}`) : this.matches(g, pod),
    );
    this.counted.set(id, { groupCount: this.groups.size, groups });
    return groups;
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

  /**
   * The domains of a group's key that count for a spread's minimum: those of the nodes and
   * NodePools its filter admits (all of them without a filter). Cached per key and filter.
   */
  domains(g: Group): ReadonlySet<string> {
    const known = this.groupDomains.get(g);
    if (known !== undefined) return known;
    const id = `${g.key}|${g.filter?.id ?? ""}`;
    let out = this.domainCache.get(id);
    if (out === undefined) {
      const f = g.filter;
      const set = new Set<string>();
      for (const n of this.source.nodes) {
        const d = n.labels[g.key];
        if (d !== undefined && (f === undefined || f.admitsNode(n.labels, n.taints))) set.add(d);
      }
      for (const pool of this.source.pools) {
        for (const d of f === undefined ? pool.domains(g.key) : f.poolDomains(pool, g.key)) set.add(d);
      }
      this.domainCache.set(id, (out = set));
    }
    this.groupDomains.set(g, out);
    return out;
  }

  private minCount(c: TopologyConstraint): number {
    const domains = this.domains(c.group);
    if (domains.size === 0 || domains.size < c.minDomains) return 0;
    let min = Infinity;
    for (const d of domains) min = Math.min(min, c.group.counts.get(d) ?? 0);
    return min;
  }

  /**
   * Whether a pod with a self-matching affinity may open a domain with no matching pod: when no
   * matching pod is in a domain the pod's required node constraints allow (Karpenter's
   * nextDomainAffinity: none at all, or all where the pod cannot go).
   */
  private mayOpen(c: TopologyConstraint, podReqs: Requirements): boolean {
    if (!c.self || c.group.total === 0) return c.self;
    const req = podReqs.get(c.group.key);
    if (req === undefined) return false;
    for (const [d, n] of c.group.counts) if (n > 0 && req.has(d)) return false;
    return true;
  }

  /** Whether one domain is allowed for the constraint (`min`: the spread's global minimum; `open`: mayOpen). */
  allowed(c: TopologyConstraint, domain: string, min: number, open: boolean): boolean {
    const n = c.group.counts.get(domain) ?? 0;
    switch (c.kind) {
      case "spread":
        return n + (c.self ? 1 : 0) - min <= c.maxSkew;
      case "affinity":
        return n > 0 || open;
      case "anti":
      case "inverse":
        return n === 0;
    }
  }

  /**
   * Checks a place against the constraints. Undecided domains (a planned claim not yet pinned to a
   * zone) are narrowed: the answer lists, per key, the domains still allowed, best first
   * (least-loaded for spreads). Hostname is always decided (every place is its own domain).
   * `possible(key)` lists where an undecided domain may go; `podReqs` are the pod's required node
   * constraints (nodeSelector and its required term in force, never a preferred one).
   */
  check(
    constraints: readonly TopologyConstraint[],
    place: Place,
    podReqs: Requirements,
    possible: (key: string) => string[],
  ): TopologyFailure | Map<string, string[]> {
    const narrowed = new Map<string, string[]>();
    for (const c of constraints) {
      const key = c.group.key;
      const decided = key === Label.hostname ? place.hostname : place.domainOf(key);
      const kept = this.keep(c, narrowed.get(key) ?? (decided !== undefined ? [decided] : possible(key)), podReqs);
      if (kept.length === 0) {
        const permanent =
          decided !== undefined && c.kind !== "affinity" && !(c.kind === "spread" && key !== Label.hostname);
        return { reason: describe(c), permanent };
      }
      narrowed.set(key, kept);
    }
    return narrowed;
  }

  /** The options the constraint allows, least-loaded first for spreads. */
  private keep(c: TopologyConstraint, options: readonly string[], podReqs: Requirements): string[] {
    const min = c.kind === "spread" && c.group.key !== Label.hostname ? this.minCount(c) : 0;
    const open = c.kind === "affinity" && this.mayOpen(c, podReqs);
    const kept = options.filter((d) => this.allowed(c, d, min, open));
    if (c.kind === "spread") kept.sort((a, b) => (c.group.counts.get(a) ?? 0) - (c.group.counts.get(b) ?? 0));
    return kept;
  }
}

/** The pod's nodeSelector with each required node-affinity term (ORed); none if they cannot be parsed. */
function requiredNodeTerms(pod: SimPod): Requirements[] {
  try {
    return (pod.requiredTerms.length === 0 ? [[]] : pod.requiredTerms).map((t) => nodeSelectorRequirements(pod, t));
  } catch (error) {
    if (!(error instanceof RequirementError)) throw error;
    return []; // the pod fails on its own requirements; its spread admits no node
  }
}

function describe(c: TopologyConstraint): string {
  switch (c.kind) {
    case "spread":
      return `topology spread constraint on ${c.group.key} (maxSkew ${c.maxSkew}) would be violated`;
    case "affinity":
      return `pod affinity on ${c.group.key} has no domain with a matching pod`;
    case "anti":
      return `pod anti-affinity on ${c.group.key} conflicts with pods already there`;
    case "inverse":
      return `anti-affinity of pods already on ${c.group.key} excludes this pod`;
  }
}

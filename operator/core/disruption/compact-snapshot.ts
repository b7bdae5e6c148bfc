/**
 * The scheduling snapshot a consolidation question needs, made small once per pass (the scale
 * target: a pass over 1,000 nodes / 10,000 pods asks hundreds of questions, and each simulation
 * used to register every bound pod's topology again).
 *
 * On the nodes that stay, a bound pod only matters to the simulation through its requests, unless
 * it holds host ports, uses volume claims (counted against the node's attachment limit), carries a
 * required anti-affinity (which binds the pods placed next to it),
 * or is selected by a topology term (spread, affinity, anti-affinity, required or preferred) of a
 * pod that moves. So each staying node keeps those pods and folds the rest into one "reserved" pod
 * with their summed requests, in a namespace no term can name (""), which no selector counts. The
 * node's allocatable, labels and taints are untouched (NodePool limits read the allocatable), so
 * every fit, topology and limit check gives the answer the full snapshot gives.
 *
 * A staying node that shows only its reserved pod and has no room for any moving pod (some request
 * exceeds what is free) is left out altogether: the solver would never place a pod there, and it
 * counts nothing in any topology group. What it still contributes — its domains (zone, …) to the
 * topology keys of the question, and its allocatable to its NodePool's limits — is kept: one node per
 * key and domain stays, and nodes of a NodePool with limits stay.
 */
import { Label } from "../../../policies/domain/labels.ts";
import { addResources, type ResourceList } from "../../../policies/domain/quantity.ts";
import { selectorMatches, termNamespaceMatches } from "../scheduling/selector.ts";
import type { ExistingNode, LabelSelector, SimPod, Snapshot } from "../scheduling/types.ts";

interface Term {
  readonly namespaces: readonly string[];
  readonly namespaceSelector?: LabelSelector | undefined;
  readonly selector: LabelSelector;
}

interface NodeParts {
  readonly node: ExistingNode;
  /** Pods kept whatever moves: host ports, required anti-affinity, volume claims. */
  readonly kept: readonly SimPod[];
  /** Pods that are only resources unless a moving pod's term selects them. */
  readonly folded: readonly SimPod[];
  /** The node with `folded` replaced by one reserved pod. */
  readonly compact: ExistingNode;
  /** Allocatable less the requests of every bound pod. */
  readonly free: ResourceList;
}

const RESERVED_NAMESPACE = "";

function reserved(node: string, pods: readonly SimPod[]): SimPod[] {
  if (pods.length === 0) return [];
  return [
    {
      uid: `kerf.dev/reserved/${node}`,
      name: `${node}-reserved`,
      namespace: RESERVED_NAMESPACE,
      labels: {},
      requests: addResources(...pods.map((p) => p.requests)),
      nodeSelector: {},
      requiredTerms: [],
      preferredTerms: [],
      tolerations: [],
      spread: [],
      affinity: [],
      antiAffinity: [],
      preferredAffinity: [],
      preferredAntiAffinity: [],
      hostPorts: [],
    },
  ];
}

/**
 * Pods kept as they are: host ports, required anti-affinity, and volume claims (they count
 * against the node's attachment limit).
 */
const keptPod = (p: SimPod): boolean => p.hostPorts.length > 0 || p.antiAffinity.length > 0 || p.claims !== undefined;

function partsOf(node: ExistingNode): NodeParts {
  const kept = node.pods.filter(keptPod);
  const folded = node.pods.filter((p) => !keptPod(p));
  const used = addResources(...node.pods.map((p) => p.requests));
  const free = addResources(node.allocatable, Object.fromEntries(Object.entries(used).map(([k, v]) => [k, -v])));
  return { node, kept, folded, compact: { ...node, pods: [...kept, ...reserved(node.name, folded)] }, free };
}

type Requests = readonly (readonly [string, number])[];

/** Whether some request exceeds what is free (the solver's fit check then fails whatever else holds). */
function noRoom(requests: Requests, free: ResourceList): boolean {
  for (const [k, v] of requests) if (v > (free[k] ?? 0)) return true;
  return false;
}

/**
 * The moving pods' requests, and per resource the smallest request among them (if one
 * exceeds what is free, none fits).
 */
function requestsOf(pods: readonly SimPod[]): { each: Requests[]; least: Requests } {
  const each = pods.map((p) => Object.entries(p.requests));
  const keys = [...new Set(each.flatMap((r) => r.map(([k]) => k)))];
  const least = keys.map((k) => [k, Math.min(...pods.map((p) => p.requests[k] ?? 0))] as const);
  return { each, least };
}

/** Topology keys of the pods' terms, required and preferred (the solver registers all of them). */
function keysOf(pods: Iterable<SimPod>): Set<string> {
  const out = new Set<string>();
  for (const p of pods) {
    for (const s of p.spread) out.add(s.topologyKey);
    for (const t of [
      ...p.affinity,
      ...p.antiAffinity,
      ...p.preferredAffinity.map((w) => w.term),
      ...p.preferredAntiAffinity.map((w) => w.term),
    ])
      out.add(t.topologyKey);
  }
  out.delete(Label.hostname);
  return out;
}

/** Every topology term of the moving pods: the groups whose members must stay visible. */
function termsOf(pods: readonly SimPod[]): Term[] {
  return pods.flatMap((p) => [
    ...p.spread.map((s) => ({ namespaces: [p.namespace], selector: s.selector })),
    ...[
      ...p.affinity,
      ...p.antiAffinity,
      ...p.preferredAffinity.map((w) => w.term),
      ...p.preferredAntiAffinity.map((w) => w.term),
    ],
  ]);
}

const labelKey = (namespace: string, key: string, value: string): string => `${namespace}\u0000${key}\u0000${value}`;

export class CompactSnapshot {
  private readonly snapshot: Snapshot;
  private readonly parts: readonly NodeParts[];
  /** Node indexes holding a folded pod with this namespace and label (to find a term's members without a scan). */
  private readonly byLabel = new Map<string, Set<number>>();
  private readonly byNamespace = new Map<string, Set<number>>();
  /** Topology keys of the pods every question keeps visible. */
  private readonly keptKeys: ReadonlySet<string>;
  private readonly limitedPools: ReadonlySet<string>;
  /** Per node, its domain string per topology key asked so far (domainBase). */
  private readonly bases: (Map<string, string | undefined> | undefined)[] = [];

  constructor(snapshot: Snapshot) {
    this.snapshot = snapshot;
    this.parts = snapshot.nodes.map(partsOf);
    this.keptKeys = keysOf(this.parts.flatMap((p) => p.kept));
    this.limitedPools = new Set(snapshot.nodePools.filter((p) => p.limits !== undefined).map((p) => p.name));
    this.parts.forEach((part, i) => {
      for (const pod of part.folded) {
        addTo(this.byNamespace, pod.namespace, i);
        for (const [k, v] of Object.entries(pod.labels)) addTo(this.byLabel, labelKey(pod.namespace, k, v), i);
      }
    });
  }

  /** Namespaces of folded pods `term` looks at (a namespaceSelector's matched against the snapshot's namespaces). */
  private namespacesOf(term: Term): readonly string[] {
    if (term.namespaceSelector === undefined) return term.namespaces;
    return [...this.byNamespace.keys()].filter((ns) => termNamespaceMatches(term, ns, this.snapshot.namespaces));
  }

  /** Nodes that may hold a folded pod `term` selects. */
  private reach(term: Term): Iterable<number> {
    const first = Object.entries(term.selector.matchLabels ?? {})[0];
    const sets = this.namespacesOf(term).map((ns) =>
      first === undefined ? this.byNamespace.get(ns) : this.byLabel.get(labelKey(ns, first[0], first[1])),
    );
    return new Set(sets.flatMap((s) => [...(s ?? [])]));
  }

  /** The snapshot for moving the pods of `candidates`: their nodes whole, the others compact. */
  forCandidates(candidates: ReadonlySet<string>, moving: readonly SimPod[]): Snapshot {
    const terms = termsOf(moving);
    const selected = new Map<number, Set<SimPod>>();
    for (const term of terms) {
      for (const i of this.reach(term)) {
        const namespaces = this.snapshot.namespaces;
        const selects = (pod: SimPod): boolean =>
          termNamespaceMatches(term, pod.namespace, namespaces) && selectorMatches(term.selector, pod.labels);
        const members = this.parts[i]!.folded.filter(selects);
        for (const pod of members) addTo(selected, i, pod);
      }
    }
    const nodes = this.parts.map((part, i) => {
      if (candidates.has(part.node.name)) return part.node;
      const visible = selected.get(i);
      if (visible === undefined) return part.compact;
      const rest = part.folded.filter((p) => !visible.has(p));
      return { ...part.node, pods: [...part.kept, ...visible, ...reserved(part.node.name, rest)] };
    });
    const keys = new Set([
      ...this.keptKeys,
      ...keysOf(moving),
      ...keysOf([...selected.values()].flatMap((v) => [...v])),
    ]);
    const out = this.withoutUnreachable(nodes, { candidates, selected, moving, keys });
    return { ...this.snapshot, nodes: out };
  }

  /** `nodes` less the staying nodes no moving pod fits on, except one per topology key and domain. */
  private withoutUnreachable(nodes: readonly ExistingNode[], q: Question): ExistingNode[] {
    const requests = requestsOf(q.moving);
    const noneFits = (free: ResourceList): boolean =>
      noRoom(requests.least, free) || requests.each.every((r) => noRoom(r, free));
    const droppable = this.parts.map(
      (part, i) =>
        !q.candidates.has(part.node.name) &&
        part.kept.length === 0 &&
        !q.selected.has(i) &&
        !this.limitedPools.has(part.node.nodePool ?? "") &&
        noneFits(part.free),
    );
    const view = filterView(q.moving);
    const keys = [...q.keys];
    // Hundreds of questions per pass each look at every node: a node's domains are computed at most once
    // per question, from its "key\0value\0" strings built once per pass.
    const domains = (i: number): string[] => {
      const bases = keys.flatMap((k) => this.domainBase(i, k) ?? []);
      if (bases.length === 0) return bases;
      const seen = view(nodes[i]!);
      return seen === "" ? bases : bases.map((b) => `${b}${seen}`);
    };
    const covered = new Set<string>();
    nodes.forEach((n, i) => {
      if (!droppable[i] && !q.candidates.has(n.name)) for (const d of domains(i)) covered.add(d);
    });
    return nodes.filter((_, i) => {
      if (!droppable[i]) return true;
      const missing = domains(i).filter((d) => !covered.has(d));
      for (const d of missing) covered.add(d);
      return missing.length > 0;
    });
  }

  /** "key\0value\0" of node `i` for topology key `key` (undefined when the node lacks the label), memoized. */
  private domainBase(i: number, key: string): string | undefined {
    let bases = this.bases[i];
    if (bases === undefined) this.bases[i] = bases = new Map();
    if (bases.has(key)) return bases.get(key);
    const value = this.parts[i]!.node.labels[key];
    const base = value === undefined ? undefined : `${key}\u0000${value}\u0000`;
    bases.set(key, base);
    return base;
  }
}

/**
 * What a spread's node filter reads of a node (topology.ts NodeFilter: its taints, and the labels the
 * moving pods' nodeSelector and required node terms name), so that of the nodes of one domain one of
 * each kind stays; "" when no moving pod spreads.
 */
function filterView(moving: readonly SimPod[]): (n: ExistingNode) => string {
  if (!moving.some((p) => p.spread.length > 0)) return () => "";
  const named = (p: SimPod): string[] => [...Object.keys(p.nodeSelector), ...p.requiredTerms.flat().map((r) => r.key)];
  const keys = [...new Set(moving.flatMap(named))];
  return (n) => JSON.stringify([n.taints, keys.map((k) => n.labels[k] ?? null)]);
}

interface Question {
  readonly candidates: ReadonlySet<string>;
  readonly selected: ReadonlyMap<number, ReadonlySet<SimPod>>;
  readonly moving: readonly SimPod[];
  readonly keys: ReadonlySet<string>;
}

function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  let set = map.get(key);
  if (set === undefined) map.set(key, (set = new Set()));
  set.add(value);
}

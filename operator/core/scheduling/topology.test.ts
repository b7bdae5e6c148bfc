// Topology spread domains and pod affinity (issue 22 causes 3 and 4), ported from Karpenter's scheduling tests
// (sigs.k8s.io/karpenter v1.15.0 pkg/controllers/provisioning/scheduling/topology_test.go): each case names
// the `It` it comes from. Karpenter's test-zone-1..3 are us-east-1a..c here; its fake types, the real catalog.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { toInstanceTypes } from "../../../policies/domain/catalog/catalog.ts";
import { simPodFromSpec } from "./pod-spec.ts";
import { buildScenario } from "./scenario.ts";
import { simulate } from "./simulate.ts";
import type { ExistingNode, NodePoolView, SimPod, SimulationResult, Snapshot } from "./types.ts";

type Spec = Record<string, unknown>;
type Requirements = NodePoolView["requirements"];
type Labels = Record<string, string>;

const types = toInstanceTypes(builtinCatalog());
const ZONE = "topology.kubernetes.io/zone";
const HOSTNAME = "kubernetes.io/hostname";
const SPREAD_LABEL = "fake-label";
const ZONES = ["us-east-1a", "us-east-1b", "us-east-1c"];
const LABELS = { test: "test" };

/** Where a case comes from: a Karpenter topology_test.go `It`. */
const karpenter = (title: string): string => `Karpenter: topology_test.go '${title}'`;

/** Karpenter's test NodePool: any capacity type, three zones; `extra` requirements and overrides on top. */
function pool(name = "default", overrides: Partial<NodePoolView> = {}, extra: Requirements = []): NodePoolView {
  return {
    name,
    weight: 0,
    labels: {},
    taints: [],
    startupTaints: [],
    instanceTypes: types,
    ...overrides,
    requirements: [
      { key: "karpenter.sh/capacity-type", operator: "Exists", values: [] },
      { key: ZONE, operator: "In", values: ZONES },
      { key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["m5", "c5"] },
      ...extra,
    ],
  };
}

let uid = 0;
/** `n` pending pods of one template (metadata, spec as in a manifest); 1 CPU each unless the spec says otherwise. */
function pods(n: number, metadata: Spec, spec: Spec = {}): SimPod[] {
  const base = { containers: [{ resources: { requests: { cpu: "1" } } }] };
  const namespace = String(metadata["namespace"] ?? "default");
  return Array.from({ length: n }, () => {
    const id = `pod-${++uid}`;
    return simPodFromSpec(metadata, { ...base, ...spec }, { name: id, namespace, uid: id, creationOrder: uid });
  });
}

/** Karpenter's test pods request next to nothing: many share a node unless a constraint keeps them apart. */
const SMALL = { containers: [{ resources: { requests: { cpu: "100m" } } }] };

/** An existing node with 100m CPU allocatable (no pending pod fits it), as in Karpenter's policy tests. */
function node(name: string, labels: Record<string, string>, extra: Partial<ExistingNode> = {}): ExistingNode {
  const allocatable = { cpu: 100, memory: 2 ** 30, pods: 110 };
  return { name, labels: { [HOSTNAME]: name, ...labels }, taints: [], allocatable, pods: [], ...extra };
}

const TAINT = { key: "taintname", value: "taintvalue", effect: "NoSchedule" as const };

/** A maxSkew 1 DoNotSchedule spread over `key` selecting LABELS, with `extra` fields. */
function spread(key: string, extra: Spec = {}): Spec {
  const constraint = { maxSkew: 1, topologyKey: key, whenUnsatisfiable: "DoNotSchedule" };
  return { topologySpreadConstraints: [{ ...constraint, labelSelector: { matchLabels: LABELS }, ...extra }] };
}

/** A spread like `spread` but without a labelSelector. */
function spreadWithoutSelector(key: string): Spec {
  const constraint = { maxSkew: 1, topologyKey: key, whenUnsatisfiable: "DoNotSchedule" };
  return { topologySpreadConstraints: [constraint] };
}

const inZones = (zones: string[]): Spec => ({ matchExpressions: [{ key: ZONE, operator: "In", values: zones }] });

/** A required node affinity (one term) keeping the pod in `zones`. */
const zoneIn = (zones: string[]): Spec => ({
  affinity: {
    nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [inZones(zones)] } },
  },
});

/** A preferred node affinity (weight 1) for `zones`. */
const preferZones = (zones: string[]): Spec => ({
  affinity: {
    nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: inZones(zones) }] },
  },
});

/** The domain of `key` a planned NodeClaim launches into (its single-valued requirement, or its launch zone). */
function claimDomain(claim: SimulationResult["newClaims"][number], key: string, index: number): string {
  if (key === HOSTNAME) return `claim-${index}`;
  const req = claim.requirements.find((r) => r.key === key && r.operator === "In" && r.values?.length === 1);
  return req?.values?.[0] ?? (key === ZONE ? claim.launch.zone : "?");
}

/** Newly scheduled LABELS pods per domain of `key` (Karpenter's ExpectSkew), largest first. */
function skew(r: SimulationResult, snapshot: Snapshot, key: string): number[] {
  const selected = (p: SimPod): boolean => p.labels["test"] === "test";
  const counts = new Map<string, number>();
  const add = (d: string, n: number): void => {
    if (n > 0) counts.set(d, (counts.get(d) ?? 0) + n);
  };
  r.newClaims.forEach((c, i) => add(claimDomain(c, key, i), c.pods.filter(selected).length));
  for (const p of r.existingPlacements.filter((e) => selected(e.pod))) {
    add(snapshot.nodes.find((n) => n.name === p.node)?.labels[key] ?? "?", 1);
  }
  return [...counts.values()].sort((a, b) => b - a);
}

interface SpreadCase {
  readonly name: string;
  /** The test it ports (`karpenter(...)`), or "kerf: <why>" for a case of kerf's own. */
  readonly from: string;
  readonly snapshot: Snapshot;
  readonly pending: readonly SimPod[];
  readonly key: string;
  readonly want: readonly number[];
}

/** Karpenter's NodeTaintsPolicy / NodeAffinityPolicy tests: nodes foo and bar no pod fits, a NodePool for baz. */
function twoNodes(nodeExtra: Partial<ExistingNode>, nodeLabels: Labels, poolLabels: Labels): Snapshot {
  const at = (name: string, domain: string): ExistingNode =>
    node(name, { [SPREAD_LABEL]: domain, ...nodeLabels }, nodeExtra);
  const labels = { [SPREAD_LABEL]: "baz", ...poolLabels };
  return { nodes: [at("n-foo", "foo"), at("n-bar", "bar")], nodePools: [pool("default", { labels })], daemonSets: [] };
}

/** A NodePool for `domains` of fake-label, tainted taint-key=`value` when given. */
function labelPool(name: string, domains: string[], value?: string): NodePoolView {
  const taints = value === undefined ? [] : [{ key: "taint-key", value, effect: "NoSchedule" as const }];
  return pool(name, { taints }, [{ key: SPREAD_LABEL, operator: "In", values: domains }]);
}

const pools = (...nodePools: NodePoolView[]): Snapshot => ({ nodes: [], nodePools, daemonSets: [] });
const tolerating = (value: string): Spec => ({ tolerations: [{ key: "taint-key", effect: "NoSchedule", value }] });
const honorTaints = spread(SPREAD_LABEL, { nodeTaintsPolicy: "Honor" });
const selectValue = { nodeSelector: { selector: "value" } };

describe("topology spread domains (issue 22 cause 3)", () => {
  const cases: SpreadCase[] = [
    {
      name: "a spread without a labelSelector selects no pod, so two pods share one zone",
      from: karpenter("should not spread when a nil label selector is defined"),
      snapshot: pools(pool()),
      pending: pods(2, { labels: LABELS }, spreadWithoutSelector(ZONE)),
      key: ZONE,
      want: [2],
    },
    {
      name: "tainted nodes count as domains under nodeTaintsPolicy Ignore, so one pod schedules",
      from: karpenter("should balance pods across a label (NodeTaintsPolicy=ignore)"),
      snapshot: twoNodes({ taints: [TAINT] }, {}, {}),
      pending: pods(5, { labels: LABELS }, spread(SPREAD_LABEL, { nodeTaintsPolicy: "Ignore" })),
      key: SPREAD_LABEL,
      want: [1],
    },
    {
      name: "tainted nodes are no domains under nodeTaintsPolicy Honor, so all pods go to the NodePool's domain",
      from: karpenter("should balance pods across a label (NodeTaintsPolicy=honor)"),
      snapshot: twoNodes({ taints: [TAINT] }, {}, {}),
      pending: pods(5, { labels: LABELS }, honorTaints),
      key: SPREAD_LABEL,
      want: [5],
    },
    {
      name: "a tainted NodePool's domain counts by default (nodeTaintsPolicy Ignore): the second pod cannot schedule",
      from: karpenter("should balance pods across a label when discovered from the nodepool (NodeTaintsPolicy=ignore)"),
      snapshot: pools(labelPool("default", ["foo"]), labelPool("tainted", ["bar"], "taint-value")),
      pending: pods(2, { labels: LABELS }, spread(SPREAD_LABEL)),
      key: SPREAD_LABEL,
      want: [1],
    },
    {
      name: "a NodePool whose taint the pod does not tolerate is no domain under nodeTaintsPolicy Honor",
      from: karpenter("should balance pods across a label when discovered from the nodepool (NodeTaintsPolicy=honor)"),
      snapshot: pools(labelPool("default", ["foo"]), labelPool("tainted", ["bar"], "taint-value")),
      pending: pods(2, { labels: LABELS }, honorTaints),
      key: SPREAD_LABEL,
      want: [2],
    },
    {
      name: "each workload spreads over the domains of the NodePool it tolerates, counting only pods there",
      from: karpenter(
        "should balance pods across a label when mutually exclusive NodePools (by taints) share domains" +
          " (NodeTaintsPolicy=honor)",
      ),
      snapshot: pools(labelPool("np-0", ["foo", "bar"], "nodepool-0"), labelPool("np-1", ["foo", "baz"], "nodepool-1")),
      pending: [
        ...pods(2, { labels: LABELS }, { ...honorTaints, ...tolerating("nodepool-0") }),
        ...pods(4, { labels: LABELS }, { ...honorTaints, ...tolerating("nodepool-1") }),
      ],
      key: SPREAD_LABEL,
      want: [3, 2, 1],
    },
    {
      name: "nodes the pod's nodeSelector excludes count under nodeAffinityPolicy Ignore",
      from: karpenter("should balance pods across a label (NodeAffinityPolicy=ignore)"),
      snapshot: twoNodes({}, { selector: "mismatch" }, { selector: "value" }),
      pending: pods(
        5,
        { labels: LABELS },
        {
          ...spread(SPREAD_LABEL, { nodeAffinityPolicy: "Ignore" }),
          ...selectValue,
        },
      ),
      key: SPREAD_LABEL,
      want: [1],
    },
    {
      name: "nodes the pod's nodeSelector excludes are no domains by default (nodeAffinityPolicy Honor)",
      from: karpenter("should balance pods across a label (NodeAffinityPolicy=honor)"),
      snapshot: twoNodes({}, { selector: "mismatch" }, { selector: "value" }),
      pending: pods(5, { labels: LABELS }, { ...spread(SPREAD_LABEL), ...selectValue }),
      key: SPREAD_LABEL,
      want: [5],
    },
    {
      name: "each workload's nodeSelector zone is its only domain, so both fill their zone",
      from: karpenter("should limit spread options by nodeSelector"),
      snapshot: pools(pool()),
      pending: [
        ...pods(5, { labels: LABELS }, { ...SMALL, ...spread(ZONE), nodeSelector: { [ZONE]: ZONES[0] } }),
        ...pods(10, { labels: LABELS }, { ...SMALL, ...spread(ZONE), nodeSelector: { [ZONE]: ZONES[1] } }),
      ],
      key: ZONE,
      want: [10, 5],
    },
    {
      name: "pods on a node the pod's nodeSelector excludes are not counted by default",
      from: "kerf: Karpenter's countDomains skips nodes the spread's node filter rejects (topology.go)",
      snapshot: {
        nodes: [node("n-x", { [ZONE]: ZONES[0]!, selector: "mismatch" }, { pods: pods(2, { labels: LABELS }, SMALL) })],
        nodePools: [pool("default", { labels: { selector: "value" } })],
        daemonSets: [],
      },
      pending: pods(3, { labels: LABELS }, { ...spread(ZONE), ...selectValue }),
      key: ZONE,
      want: [1, 1, 1],
    },
    {
      name: "a required node affinity limits the zones counted",
      from: karpenter("should limit spread options by required node affinity"),
      snapshot: pools(pool()),
      pending: pods(6, { labels: LABELS }, { ...spread(ZONE), ...zoneIn(ZONES.slice(0, 2)) }),
      key: ZONE,
      want: [3, 3],
    },
    {
      name: "a preferred node affinity does not limit the zones counted",
      from: karpenter("should not limit spread options by preferred node affinity"),
      snapshot: pools(pool()),
      pending: pods(6, { labels: LABELS }, { ...spread(ZONE), ...preferZones(ZONES.slice(0, 2)) }),
      key: ZONE,
      want: [2, 2, 2],
    },
    {
      name: "matchLabelKeys spreads each value of the key on its own, so two workloads share two nodes",
      from: karpenter("should support matchLabelKeys"),
      snapshot: pools(pool()),
      pending: ["value-a", "value-b"].flatMap((value) =>
        pods(
          2,
          { labels: { ...LABELS, "test-label": value } },
          { ...SMALL, ...spread(HOSTNAME, { matchLabelKeys: ["test-label"] }) },
        ),
      ),
      key: HOSTNAME,
      want: [2, 2],
    },
    {
      name: "a matchLabelKeys key the pod does not carry is ignored",
      from: karpenter("should ignore unknown labels specified in matchLabelKeys"),
      snapshot: pools(pool()),
      pending: pods(4, { labels: LABELS }, { ...SMALL, ...spread(HOSTNAME, { matchLabelKeys: ["test-label"] }) }),
      key: HOSTNAME,
      want: [1, 1, 1, 1],
    },
  ];
  for (const c of cases) {
    it(`${c.name} (${c.from})`, () => {
      assert.deepEqual(skew(simulate(c.snapshot, c.pending), c.snapshot, c.key), c.want);
    });
  }
});

const AFF = { security: "s2" };
/** A required pod affinity to AFF pods over `topologyKey`, with `term` fields (namespaces, namespaceSelector). */
const affinity = (topologyKey: string, term: Spec = {}): Spec => ({
  affinity: {
    podAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: AFF }, topologyKey, ...term }],
    },
  },
});
/** Pod specs' `affinity` fields merged into one (pod affinity with node affinity). */
const both = (...specs: Spec[]): Spec => ({ affinity: Object.assign({}, ...specs.map((s) => s["affinity"] as Spec)) });

interface AffinityCase {
  readonly name: string;
  readonly from: string;
  readonly snapshot: Snapshot;
  readonly pending: readonly SimPod[];
  readonly expect: (r: SimulationResult, pending: readonly SimPod[]) => void;
}

/** The NodeClaim (index) or node (name) a pod landed on, undefined when it did not schedule. */
function placeOf(r: SimulationResult, pod: SimPod): string | undefined {
  const i = r.newClaims.findIndex((c) => c.pods.includes(pod));
  return i >= 0 ? `claim-${i}` : r.existingPlacements.find((p) => p.pod === pod)?.node;
}

/** Ten pods one per host (Karpenter's filler: nodes to miss the target on), the target, the affine pod. */
function namespaceCase(target: Spec, term: Spec): SimPod[] {
  const filler = pods(10, { labels: LABELS }, spread(HOSTNAME));
  return [...filler, ...pods(1, { labels: AFF, ...target }), ...pods(1, {}, affinity(HOSTNAME, term))];
}
const together = (r: SimulationResult, p: readonly SimPod[]): void => {
  const [target, affine] = [placeOf(r, p[10]!), placeOf(r, p[11]!)];
  assert.notEqual(target, undefined);
  assert.equal(affine, target);
};
const apart = (r: SimulationResult, p: readonly SimPod[]): void => {
  assert.notEqual(placeOf(r, p[10]!), undefined);
  assert.equal(placeOf(r, p[11]!), undefined);
};

/** A node in zone a running one AFF pod with hostname self-affinity, with room for more. */
const affineNode = node(
  "n-1",
  { [ZONE]: ZONES[0]! },
  {
    allocatable: { cpu: 4000, memory: 2 ** 33, pods: 110 },
    pods: pods(1, { labels: AFF }, affinity(HOSTNAME)),
  },
);
const withNamespaces = (entries: [string, Labels][]): Snapshot => ({ ...pools(pool()), namespaces: new Map(entries) });
const selecting = (labels: Labels): Spec => ({ namespaceSelector: { matchLabels: labels } });

describe("pod affinity (issue 22 cause 4)", () => {
  const cases: AffinityCase[] = [
    {
      name: "a self-affine pod opens its own zone when the matching pods are only in zones it cannot use",
      from: karpenter(
        "should allow two nodes to be created when two pods with matching affinities have" + " incompatible selectors",
      ),
      snapshot: pools(pool()),
      pending: [ZONES[1]!, ZONES[2]!].flatMap((zone) => pods(1, { labels: AFF }, both(affinity(ZONE), zoneIn([zone])))),
      expect: (r, p) => {
        assert.equal(r.podErrors.length, 0);
        assert.deepEqual(r.newClaims.map((c) => [c.launch.zone, c.pods.length]).sort(), [
          [ZONES[1], 1],
          [ZONES[2], 1],
        ]);
        assert.notEqual(placeOf(r, p[0]!), placeOf(r, p[1]!));
      },
    },
    {
      name: "a hostname self-affinity opens no node while a matching pod runs elsewhere, even in a zone it cannot use",
      from: karpenter(
        "should respect self pod affinity for first empty topology domain only" + " (hostname/constrained zones)",
      ),
      snapshot: { nodes: [affineNode], nodePools: [pool()], daemonSets: [] },
      pending: pods(10, { labels: AFF }, both(affinity(HOSTNAME), zoneIn(ZONES.slice(1)))),
      expect: (r) =>
        assert.deepEqual([r.newClaims.length, r.existingPlacements.length, r.podErrors.length], [0, 0, 10]),
    },
    {
      name: "an affinity term sees only pods of the pod's own namespace by default",
      from: karpenter("should filter pod affinity topologies by namespace, no matching pods"),
      snapshot: pools(pool()),
      pending: namespaceCase({ namespace: "other-ns-no-match" }, {}),
      expect: apart,
    },
    {
      name: "an affinity term sees pods of the namespaces it lists",
      from: karpenter("should filter pod affinity topologies by namespace, matching pods namespace list"),
      snapshot: pools(pool()),
      expect: together,
      pending: namespaceCase({ namespace: "other-ns-list" }, { namespaces: ["other-ns-list"] }),
    },
    {
      name: "an empty namespaceSelector selects pods of every namespace",
      from: karpenter("should filter pod affinity topologies by namespace, empty namespace selector"),
      snapshot: withNamespaces([["empty-ns-selector", { foo: "bar" }]]),
      pending: namespaceCase({ namespace: "empty-ns-selector" }, { namespaceSelector: {} }),
      expect: together,
    },
    {
      name: "a namespaceSelector selects pods of the namespaces whose labels it matches",
      from: "kerf: Karpenter lists the Namespaces the selector matches (topology.go buildNamespaceList)",
      snapshot: withNamespaces([["team-a", { team: "a" }]]),
      pending: namespaceCase({ namespace: "team-a" }, selecting({ team: "a" })),
      expect: together,
    },
    {
      name: "a namespaceSelector does not select pods of a namespace whose labels it does not match",
      from: "kerf: topology.go buildNamespaceList",
      snapshot: withNamespaces([["team-b", { team: "b" }]]),
      pending: namespaceCase({ namespace: "team-b" }, selecting({ team: "a" })),
      expect: apart,
    },
    {
      name: "a namespaceSelector on the name label needs no Namespace object",
      from: "kerf: the apiserver labels every Namespace kubernetes.io/metadata.name",
      snapshot: pools(pool()),
      pending: namespaceCase({ namespace: "team-c" }, selecting({ "kubernetes.io/metadata.name": "team-c" })),
      expect: together,
    },
  ];
  for (const c of cases) it(`${c.name} (${c.from})`, () => c.expect(simulate(c.snapshot, c.pending), c.pending));
});

describe("namespaces in the scheduling input", () => {
  it("kerf simulate reads the labels of Namespace documents into the snapshot", () => {
    const namespace = { apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a", labels: { team: "a" } } };
    assert.deepEqual(buildScenario([namespace], builtinCatalog()).snapshot.namespaces?.get("team-a"), { team: "a" });
  });
});

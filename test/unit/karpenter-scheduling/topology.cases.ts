// Topology spread and pod (anti-)affinity (Karpenter scheduling/topology_test.go). The NodeTaintsPolicy,
// NodeAffinityPolicy, matchLabelKeys, namespace and nil-selector cases of that file are ported in
// operator/core/scheduling/topology.test.ts; these are the rest. Karpenter's multi-round tests (provision, then
// provision again) become one round whose existing Nodes and bound pods are what the earlier rounds left.
import {
  ARCH,
  CAPACITY_TYPE,
  HOSTNAME,
  ZONE,
  ZONES,
  nodeClass,
  nodePool,
  deployment,
  node,
  pod,
  req,
  spread,
  term,
  weighted,
  type Doc,
  type Labels,
  type ParityCase,
  type PodOptions,
  type PoolSpec,
  type Source,
} from "./harness.ts";

const topo = (it: string): Source => ({ file: "scheduling/topology_test.go", it });
const [Z1, Z2, Z3] = ZONES;
const L = { test: "test" };
const AFF = { security: "s2" };
/** Why kerf places in one round what Karpenter's zonal anti-affinity tests place over several. */
const PINNED_ZONES =
  "Karpenter leaves a new NodeClaim's zone open, so a zonal anti-affinity to its pods cannot be" +
  " decided until it launches and the other pod waits a round; kerf pins the NodeClaims to distinct zones and places" +
  " both in one round (the end state Karpenter reaches a round later)";

const withPool = (spec: PoolSpec, ...docs: Doc[]): Doc[] => [nodeClass(), nodePool("default", spec), ...docs];
/** `n` L-labelled pods spread over `key` (constraint fields `extra`, other pod options in `extra.pod`). */
const spreadPods = (name: string, n: number, key: string, extra: Doc & { pod?: PodOptions } = {}): Doc => {
  const { pod: o, ...fields } = extra;
  return deployment(name, n, { labels: L, spread: [spread(key, L, fields)], ...o });
};
/** A full existing node (no pending pod fits) in `zone`, with `pods` L-labelled pods bound to it. */
const fullNode = (name: string, labels: Labels, pods: number): Doc[] => [
  node(name, { instanceType: "m5.large", labels, allocatable: { cpu: "100m", memory: "1Gi", pods: "110" } }),
  ...Array.from({ length: pods }, (_, i) => pod(`${name}-pod-${i}`, { labels: L, cpu: null, nodeName: name })),
];

export const cases: ParityCase[] = [
  {
    name: "a spread over a key no node or NodePool has cannot be met, while an unconstrained pod schedules",
    from: topo("should ignore unknown topology keys"),
    scenario: withPool({}, pod("spread", { labels: L, spread: [spread("unknown", L)] }), pod("plain")),
    expect: { unschedulable: ["spread"], scheduled: ["plain"] },
  },
  {
    name: "a zonal spread (matchLabels) puts 4 pods 2-1-1 over three zones",
    from: [topo("should balance pods across zones (match labels)"), topo("should respect NodePool zonal constraints")],
    scenario: withPool({}, spreadPods("p", 4, ZONE)),
    expect: { scheduled: "all", skew: { key: ZONE, counts: [2, 1, 1] } },
  },
  {
    name: "a zonal spread (matchExpressions) puts 4 pods 2-1-1 over three zones",
    from: topo("should balance pods across zones (match expressions)"),
    scenario: withPool(
      {},
      deployment("p", 4, {
        labels: L,
        spread: [
          {
            maxSkew: 1,
            topologyKey: ZONE,
            whenUnsatisfiable: "DoNotSchedule",
            labelSelector: { matchExpressions: [{ key: "test", operator: "In", values: ["test"] }] },
          },
        ],
      }),
    ),
    expect: { skew: { key: ZONE, counts: [2, 1, 1] } },
  },
  {
    name: "a zonal spread only counts the NodePool's two zones",
    from: topo("should respect NodePool zonal constraints (subset) with requirements"),
    scenario: withPool({ requirements: [req(ZONE, "In", Z1, Z2)] }, spreadPods("p", 4, ZONE)),
    expect: { skew: { key: ZONE, counts: [2, 2] } },
  },
  {
    name: "a NodePool whose template label fixes the zone has one zonal domain",
    from: topo("should respect NodePool zonal constraints (subset) with labels"),
    scenario: withPool({ labels: { [ZONE]: Z1 } }, spreadPods("p", 4, ZONE)),
    expect: { scheduled: "all", skew: { key: ZONE, counts: [4] } },
  },
  {
    name: "a template zone label inside the zone requirement is the only domain",
    from: topo("should respect NodePool zonal constraints (subset) with requirements and labels"),
    scenario: withPool({ requirements: [req(ZONE, "In", Z1, Z2)], labels: { [ZONE]: Z1 } }, spreadPods("p", 4, ZONE)),
    expect: { scheduled: "all", skew: { key: ZONE, counts: [4] } },
  },
  {
    name: "two NodePools whose template labels fix different zones spread pods over both",
    from: topo("should respect NodePool zonal constraints (subset) with labels across NodePools"),
    scenario: [
      nodeClass(),
      nodePool("a", { requirements: [req(ZONE, "In", Z1, Z2)], labels: { [ZONE]: Z1 } }),
      nodePool("b", { labels: { [ZONE]: Z2 } }),
      spreadPods("p", 4, ZONE),
    ],
    expect: { scheduled: "all", skew: { key: ZONE, counts: [2, 2] } },
  },
  {
    name: "a pod running in a zone the NodePool no longer offers still counts: zones 1-2 take 2 each, 2 of 6 wait",
    from: topo("should respect NodePool zonal constraints (existing pod)"),
    scenario: withPool(
      { requirements: [req(ZONE, "In", Z1, Z2)] },
      ...fullNode("n3", { [ZONE]: Z3 }, 1),
      spreadPods("p", 6, ZONE, { pod: { cpu: "1100m" } }),
    ),
    expect: { skew: { key: ZONE, counts: [2, 2, 1] } },
  },
  {
    name: "with maxSkew 5 and only one zone left, pods fill it up to the skew",
    from: topo("should schedule to the non-minimum domain if its all that's available"),
    scenario: withPool(
      { requirements: [req(ZONE, "In", Z3)] },
      ...fullNode("n1", { [ZONE]: Z1 }, 1),
      ...fullNode("n2", { [ZONE]: Z2 }, 1),
      spreadPods("p", 10, ZONE, { maxSkew: 5, pod: { cpu: "1100m" } }),
    ),
    expect: { scheduled: ["p-0", "p-5"], skew: { key: ZONE, counts: [6, 1, 1] } },
  },
  {
    name: "when the spread is already skewed, new pods go only to the emptiest zones",
    from: topo("should only schedule to minimum domains if already violating max skew"),
    scenario: withPool({}, ...fullNode("n1", { [ZONE]: Z1 }, 3), spreadPods("p", 3, ZONE, { pod: { cpu: "1100m" } })),
    expect: { scheduled: "all", skew: { key: ZONE, counts: [3, 2, 1] } },
  },
  {
    name:
      "DoNotSchedule never exceeds maxSkew: with one pod in zone 1 and a NodePool for zones 2-3, only 4 of 10 " +
      "schedule",
    from: [
      topo("should not violate max-skew when unsat = do not schedule"),
      topo("should not violate max-skew when unsat = do not schedule (discover domains)"),
    ],
    scenario: withPool(
      { requirements: [req(ZONE, "In", Z2, Z3)] },
      ...fullNode("n1", { [ZONE]: Z1 }, 1),
      spreadPods("p", 10, ZONE, { pod: { cpu: "1100m" } }),
    ),
    expect: { skew: { key: ZONE, counts: [2, 2, 1] } },
  },
  {
    name: "only bound pods of the pod's namespace with matching labels on nodes with the domain count",
    from: topo(
      "should only count running/scheduled pods with matching labels scheduled to nodes with a " +
        "corresponding domain",
    ),
    scenario: withPool(
      {},
      node("first", { labels: { [ZONE]: Z1 }, allocatable: { cpu: "100m", memory: "1Gi", pods: "110" } }),
      node("second", { labels: { [ZONE]: Z2 }, allocatable: { cpu: "100m", memory: "1Gi", pods: "110" } }),
      node("third", { allocatable: { cpu: "100m", memory: "1Gi", pods: "110" } }),
      pod("unlabelled", { cpu: null, nodeName: "first" }),
      pod("no-domain", { labels: L, cpu: null, nodeName: "third" }),
      pod("other-ns", { labels: L, namespace: "elsewhere", cpu: null, nodeName: "first" }),
      pod("a", { labels: L, cpu: null, nodeName: "first" }),
      pod("b", { labels: L, cpu: null, nodeName: "first" }),
      pod("c", { labels: L, cpu: null, nodeName: "second" }),
      spreadPods("p", 2, ZONE),
    ),
    expect: { scheduled: "all", skew: { key: ZONE, counts: [2, 2, 1], select: L } },
  },
  {
    name: "a pod whose spread selects nothing it carries is not held back by it",
    from: [
      topo("should match all pods when labelSelector is not specified"),
      topo("should match all pods when labelSelector is not specified"),
    ],
    scenario: withPool({}, pod("p")),
    expect: { scheduled: ["p"] },
  },
  {
    name: "a hostname spread selecting labels the pods do not carry does not spread them",
    from: [topo("should handle interdependent selectors"), topo("should handle interdependent selectors")],
    scenario: withPool({}, deployment("p", 5, { spread: [spread(HOSTNAME, L)] })),
    expect: { scheduled: "all", newNodes: 1 },
  },
  {
    name: "minDomains 3 with two zones lets only one pod per zone schedule",
    from: topo("should respect minDomains constraints"),
    scenario: withPool({ requirements: [req(ZONE, "In", Z1, Z2)] }, spreadPods("p", 3, ZONE, { minDomains: 3 })),
    expect: { skew: { key: ZONE, counts: [1, 1] } },
  },
  {
    name: "minDomains equal to the zones available spreads 11 pods 4-4-3",
    from: topo("satisfied minDomains constraints (equal) should allow expected pod scheduling"),
    scenario: withPool({}, spreadPods("p", 11, ZONE, { minDomains: 3 })),
    expect: { scheduled: "all", skew: { key: ZONE, counts: [4, 4, 3] } },
  },
  {
    name: "minDomains below the zones available spreads 11 pods 4-4-3",
    from: topo("satisfied minDomains constraints (greater than minimum) should allow expected pod scheduling"),
    scenario: withPool({}, spreadPods("p", 11, ZONE, { minDomains: 2 })),
    expect: { scheduled: "all", skew: { key: ZONE, counts: [4, 4, 3] } },
  },
  // Hostname
  {
    name: "a hostname spread gives each of 4 pods its own node",
    from: topo("should balance pods across nodes"),
    scenario: withPool({}, spreadPods("p", 4, HOSTNAME)),
    expect: { skew: { key: HOSTNAME, counts: [1, 1, 1, 1] } },
  },
  {
    name: "a hostname spread of maxSkew 4 puts 4 pods on one node",
    from: topo("should balance pods on the same hostname up to maxskew"),
    scenario: withPool({}, spreadPods("p", 4, HOSTNAME, { maxSkew: 4 })),
    expect: { skew: { key: HOSTNAME, counts: [4] } },
  },
  {
    name: "two deployments each spread by hostname share two nodes",
    from: topo("balance multiple deployments with hostname topology spread"),
    scenario: withPool(
      {},
      ...["app1", "app2"].map((app) => deployment(app, 2, { labels: { app }, spread: [spread(HOSTNAME, { app })] })),
    ),
    expect: { scheduled: "all", newNodes: 2 },
  },
  {
    name: "two deployments spread by hostname but of different architectures need four nodes",
    from: topo("balance multiple deployments with hostname topology spread & varying arch"),
    scenario: withPool(
      {},
      ...[
        ["app1", "amd64"],
        ["app2", "arm64"],
      ].map(([app, arch]) =>
        deployment(app!, 2, {
          labels: { app: app! },
          spread: [spread(HOSTNAME, { app: app! })],
          required: [[req(ARCH, "In", arch!)]],
        }),
      ),
    ),
    expect: { scheduled: "all", newNodes: 4 },
  },
  // CapacityType
  {
    name: "a capacity-type spread puts 4 pods 2-2 on spot and on-demand",
    from: [
      topo("should balance pods across capacity types"),
      topo("should respect NodePool capacity type constraints"),
    ],
    scenario: withPool({}, spreadPods("p", 4, CAPACITY_TYPE)),
    expect: { scheduled: "all", skew: { key: CAPACITY_TYPE, counts: [2, 2] } },
  },
  {
    name: "DoNotSchedule over capacity type: with one spot pod and an on-demand-only NodePool, 2 of 5 schedule",
    from: topo("should not violate max-skew when unsat = do not schedule (capacity type)"),
    scenario: withPool(
      {
        onlyRequirements: [
          req(CAPACITY_TYPE, "In", "on-demand"),
          req(ZONE, "In", ...ZONES),
          req("karpenter.k8s.aws/instance-family", "In", "m5"),
        ],
      },
      ...fullNode("spot", { [CAPACITY_TYPE]: "spot", [ZONE]: Z1 }, 1),
      spreadPods("p", 5, CAPACITY_TYPE, { pod: { cpu: "1100m" } }),
    ),
    expect: { skew: { key: CAPACITY_TYPE, counts: [2, 1] } },
  },
  {
    name: "ScheduleAnyway over capacity type lets all 5 pods go on-demand past the skew",
    from: topo("should violate max-skew when unsat = schedule anyway (capacity type)"),
    scenario: withPool(
      {
        onlyRequirements: [
          req(CAPACITY_TYPE, "In", "on-demand"),
          req(ZONE, "In", ...ZONES),
          req("karpenter.k8s.aws/instance-family", "In", "m5"),
        ],
      },
      ...fullNode("spot", { [CAPACITY_TYPE]: "spot", [ZONE]: Z1 }, 1),
      spreadPods("p", 5, CAPACITY_TYPE, { whenUnsatisfiable: "ScheduleAnyway", pod: { cpu: "1100m" } }),
    ),
    expect: { scheduled: "all", skew: { key: CAPACITY_TYPE, counts: [5, 1] } },
  },
  {
    name: "only bound pods with matching labels on nodes with a capacity type count in its spread",
    from: topo(
      "should only count running/scheduled pods with matching labels scheduled to nodes with a " +
        "corresponding domain",
    ),
    scenario: withPool(
      {},
      node("first", { labels: { [CAPACITY_TYPE]: "spot" }, allocatable: { cpu: "100m", memory: "1Gi", pods: "110" } }),
      node("second", {
        labels: { [CAPACITY_TYPE]: "on-demand" },
        allocatable: { cpu: "100m", memory: "1Gi", pods: "110" },
      }),
      node("third", { allocatable: { cpu: "100m", memory: "1Gi", pods: "110" } }),
      pod("unlabelled", { cpu: null, nodeName: "first" }),
      pod("no-domain", { labels: L, cpu: null, nodeName: "third" }),
      pod("other-ns", { labels: L, namespace: "elsewhere", cpu: null, nodeName: "first" }),
      pod("a", { labels: L, cpu: null, nodeName: "first" }),
      pod("b", { labels: L, cpu: null, nodeName: "first" }),
      pod("c", { labels: L, cpu: null, nodeName: "second" }),
      spreadPods("p", 2, CAPACITY_TYPE),
    ),
    expect: { scheduled: "all", skew: { key: CAPACITY_TYPE, counts: [3, 2], select: L } },
  },
  {
    name: "an on-demand pod in zone 1 counts for spot pods pinned to zone 2: 1 on-demand then 2 spot of 5",
    from: topo("should balance pods across capacity-types (node required affinity constrained)"),
    scenario: withPool(
      {},
      ...fullNode("od", { [CAPACITY_TYPE]: "on-demand", [ZONE]: Z1 }, 1),
      spreadPods("p", 5, CAPACITY_TYPE, {
        pod: { required: [[req(ZONE, "In", Z2), req(CAPACITY_TYPE, "In", "spot")]] },
      }),
    ),
    expect: { skew: { key: CAPACITY_TYPE, counts: [5, 1] } },
  },
  {
    name: "with one on-demand pod running and a spot-only NodePool, 2 of 5 spread pods schedule",
    from: topo("should balance pods across capacity-types (no constraints)"),
    scenario: withPool(
      {
        onlyRequirements: [
          req(CAPACITY_TYPE, "In", "spot"),
          req(ZONE, "In", ...ZONES),
          req("karpenter.k8s.aws/instance-family", "In", "m5"),
        ],
      },
      ...fullNode("od", { [CAPACITY_TYPE]: "on-demand", [ZONE]: Z1 }, 1),
      spreadPods("p", 5, CAPACITY_TYPE, { pod: { cpu: "2" } }),
    ),
    expect: { skew: { key: CAPACITY_TYPE, counts: [2, 1] } },
  },
  {
    name: "with one amd64 pod running and an arm64-only NodePool, 2 of 5 arch-spread pods schedule",
    from: topo("should balance pods across arch (no constraints)"),
    scenario: withPool(
      { requirements: [req(ARCH, "In", "arm64")] },
      ...fullNode("amd", { [ARCH]: "amd64", [ZONE]: Z1 }, 1),
      spreadPods("p", 5, ARCH, { pod: { cpu: "2" } }),
    ),
    expect: { skew: { key: ARCH, counts: [2, 1] } },
  },
  // Combined
  {
    name: "zonal maxSkew 1 with hostname maxSkew 3: 2 pods go 1-1 over zones",
    from: topo("should spread pods while respecting both constraints (hostname and zonal)"),
    scenario: withPool(
      {},
      deployment("p", 2, { labels: L, spread: [spread(ZONE, L), spread(HOSTNAME, L, { maxSkew: 3 })] }),
    ),
    expect: { scheduled: "all", skew: { key: ZONE, counts: [1, 1] }, maxPerDomain: { key: HOSTNAME, max: 3 } },
  },
  {
    name: "zonal maxSkew 1 with hostname maxSkew 3: 21 pods go 7-7-7, at most 3 per node",
    from: topo("should spread pods while respecting both constraints (hostname and zonal)"),
    scenario: withPool(
      {},
      deployment("p", 21, { labels: L, spread: [spread(ZONE, L), spread(HOSTNAME, L, { maxSkew: 3 })] }),
    ),
    expect: { scheduled: "all", skew: { key: ZONE, counts: [7, 7, 7] }, maxPerDomain: { key: HOSTNAME, max: 3 } },
  },
  {
    name: "a spread over a custom label balances across two NodePools' values (spot 4 values, on-demand 1)",
    from: topo("should balance pods across NodePool requirements"),
    scenario: [
      nodeClass(),
      nodePool("spot", {
        onlyRequirements: [
          req(CAPACITY_TYPE, "In", "spot"),
          req("capacity.spread.4-1", "In", "2", "3", "4", "5"),
          req(ZONE, "In", ...ZONES),
          req("karpenter.k8s.aws/instance-family", "In", "m5"),
        ],
      }),
      nodePool("od", {
        onlyRequirements: [
          req(CAPACITY_TYPE, "In", "on-demand"),
          req("capacity.spread.4-1", "In", "1"),
          req(ZONE, "In", ...ZONES),
          req("karpenter.k8s.aws/instance-family", "In", "m5"),
        ],
      }),
      spreadPods("p", 20, "capacity.spread.4-1"),
    ],
    expect: { scheduled: "all", skew: { key: "capacity.spread.4-1", counts: [4, 4, 4, 4, 4] } },
  },
  {
    name: "a zonal DoNotSchedule spread with a NodePool for zone 3 limited to nothing keeps zones 1-2 at one pod each",
    from: topo("should spread pods while respecting both constraints"),
    scenario: [
      nodeClass(),
      nodePool("default", { requirements: [req(ZONE, "In", Z1, Z2)] }),
      nodePool("b", { requirements: [req(ZONE, "In", Z3)], limits: { cpu: "0" } }),
      deployment("p", 10, {
        labels: L,
        spread: [spread(ZONE, L), spread(HOSTNAME, L, { whenUnsatisfiable: "ScheduleAnyway" })],
      }),
    ],
    expect: { skew: { key: ZONE, counts: [1, 1] } },
  },
  {
    name: "capacity-type maxSkew 1 with hostname maxSkew 3: 21 pods go 11-10, at most 3 per node",
    from: topo("should spread pods while respecting both constraints"),
    scenario: withPool(
      {},
      deployment("p", 21, { labels: L, spread: [spread(CAPACITY_TYPE, L), spread(HOSTNAME, L, { maxSkew: 3 })] }),
    ),
    expect: {
      scheduled: "all",
      skew: { key: CAPACITY_TYPE, counts: [11, 10] },
      maxPerDomain: { key: HOSTNAME, max: 3 },
    },
  },
  {
    name: "capacity type and zone spreads together hold 11 pods within their skews",
    from: topo("should spread pods while respecting both constraints"),
    scenario: withPool({}, deployment("p", 11, { labels: L, spread: [spread(CAPACITY_TYPE, L), spread(ZONE, L)] })),
    expect: { scheduled: "all", maxPerDomain: { key: ZONE, max: 4 } },
  },
  {
    name: "capacity type, zone (maxSkew 2) and hostname (maxSkew 3) spreads together schedule 14 pods",
    from: topo("should spread pods while respecting all constraints"),
    scenario: withPool(
      {},
      deployment("p", 14, {
        labels: L,
        spread: [spread(CAPACITY_TYPE, L), spread(ZONE, L, { maxSkew: 2 }), spread(HOSTNAME, L, { maxSkew: 3 })],
      }),
    ),
    expect: { scheduled: "all", maxPerDomain: { key: HOSTNAME, max: 3 }, skew: { key: CAPACITY_TYPE, counts: [7, 7] } },
  },
  {
    name: "required node affinity to two zones spreads 10 pods 5-5",
    from: topo("should limit spread options by node requirements"),
    scenario: withPool({}, spreadPods("p", 10, ZONE, { pod: { required: [[req(ZONE, "In", Z1, Z2)]] } })),
    expect: { scheduled: "all", skew: { key: ZONE, counts: [5, 5] } },
  },
  {
    name: "after 3-3 in zones 1-2, an unconstrained batch of 5 evens out to 4-4-4 with one more in zone 3",
    from: topo("should limit spread options by required node affinity"),
    scenario: withPool(
      {},
      ...fullNode("a", { [ZONE]: Z1 }, 3),
      ...fullNode("b", { [ZONE]: Z2 }, 3),
      ...fullNode("c", { [ZONE]: Z3 }, 1),
      spreadPods("p", 5, ZONE),
    ),
    expect: { scheduled: "all", skew: { key: ZONE, counts: [4, 4, 4] } },
  },
  {
    name: "capacity-type node selectors with a ScheduleAnyway spread put 5 on spot and 5 on on-demand",
    from: topo("should limit spread options by nodeSelector"),
    scenario: withPool(
      {},
      spreadPods("spot", 5, CAPACITY_TYPE, {
        whenUnsatisfiable: "ScheduleAnyway",
        pod: { nodeSelector: { [CAPACITY_TYPE]: "spot" } },
      }),
      spreadPods("od", 5, CAPACITY_TYPE, {
        whenUnsatisfiable: "ScheduleAnyway",
        pod: { nodeSelector: { [CAPACITY_TYPE]: "on-demand" } },
      }),
    ),
    expect: { scheduled: "all", skew: { key: CAPACITY_TYPE, counts: [5, 5] } },
  },
  {
    name: "spot-only required affinity makes spot the only capacity-type domain: 3 pods all spot",
    from: topo("should limit spread options by node affinity (capacity type)"),
    scenario: withPool(
      {},
      spreadPods("p", 3, CAPACITY_TYPE, { pod: { required: [[req(CAPACITY_TYPE, "In", "spot")]] } }),
    ),
    expect: { scheduled: "all", skew: { key: CAPACITY_TYPE, counts: [3] } },
  },
  {
    name: "after 3 spot pods, an unconstrained batch of 5 goes 1 spot, 4 on-demand (5-4)",
    from: topo("should limit spread options by node affinity (capacity type)"),
    scenario: withPool(
      {},
      ...fullNode("s", { [CAPACITY_TYPE]: "spot", [ZONE]: Z1 }, 3),
      ...fullNode("o", { [CAPACITY_TYPE]: "on-demand", [ZONE]: Z1 }, 1),
      spreadPods("p", 5, CAPACITY_TYPE),
    ),
    expect: { scheduled: "all", skew: { key: CAPACITY_TYPE, counts: [5, 4] } },
  },
  // Pod Affinity/Anti-Affinity
  {
    name: "empty pod affinity and anti-affinity lists do not constrain a pod",
    from: topo("should schedule a pod with empty pod affinity and anti-affinity"),
    scenario: withPool({}, pod("p", { podAffinity: [], podAntiAffinity: [] })),
    expect: { scheduled: ["p"] },
  },
  {
    name: "a pod with hostname affinity to another lands on its node, among pods spread one per node",
    from: topo("should respect pod affinity (hostname)"),
    scenario: withPool(
      {},
      spreadPods("filler", 10, HOSTNAME),
      pod("target", { labels: AFF }),
      pod("affine", { podAffinity: [term(HOSTNAME, AFF)] }),
    ),
    expect: { together: [["target", "affine"]] },
  },
  {
    name: "an arch affinity puts the pod on the target's architecture while a hostname spread keeps them apart",
    from: topo("should respect pod affinity (arch)"),
    scenario: withPool(
      {},
      pod("target", { labels: AFF, cpu: "2", nodeSelector: { [ARCH]: "arm64" }, spread: [spread(HOSTNAME, AFF)] }),
      pod("affine", { labels: AFF, cpu: "1", spread: [spread(HOSTNAME, AFF)], podAffinity: [term(ARCH, AFF)] }),
    ),
    expect: { apart: ["target", "affine"], nodeLabels: { affine: { [ARCH]: "arm64" } } },
  },
  {
    name: "self hostname affinity puts 3 pods on one node",
    from: topo("should respect self pod affinity (hostname)"),
    scenario: withPool({}, deployment("p", 3, { labels: AFF, podAffinity: [term(HOSTNAME, AFF)] })),
    expect: { scheduled: "all", together: [["p"]] },
  },
  {
    name: "self hostname affinity fills only the first node: pods that do not fit it stay pending",
    from: topo("should respect self pod affinity for first empty topology domain only (hostname)"),
    scenario: withPool(
      { onlyRequirements: [req("node.kubernetes.io/instance-type", "In", "m5.large")] },
      deployment("p", 10, { labels: AFF, cpu: "350m", podAffinity: [term(HOSTNAME, AFF)] }),
    ),
    expect: { newNodes: 1, together: [["p-0", "p-4"]], unschedulable: ["p-5", "p-6", "p-7", "p-8", "p-9"] },
  },
  {
    name: "self zone affinity puts 3 pods in one zone (one node)",
    from: topo("should respect self pod affinity (zone)"),
    scenario: withPool({}, deployment("p", 3, { labels: AFF, podAffinity: [term(ZONE, AFF)] })),
    expect: { scheduled: "all", together: [["p"]] },
  },
  {
    name: "self zone affinity with a zone 3 requirement puts 3 pods on one node in zone 3",
    from: topo("should respect self pod affinity (zone w/ constraint)"),
    scenario: withPool(
      {},
      deployment("p", 3, { labels: AFF, podAffinity: [term(ZONE, AFF)], required: [[req(ZONE, "In", Z3)]] }),
    ),
    expect: { together: [["p"]], nodeLabels: { "p-0": { [ZONE]: Z3 } } },
  },
  {
    name: "a preferred hostname affinity to a pod that does not exist is dropped",
    from: topo("should allow violation of preferred pod affinity"),
    scenario: withPool(
      {},
      spreadPods("filler", 10, HOSTNAME),
      pod("affine", { preferredPodAffinity: [weighted(50, term(HOSTNAME, AFF))] }),
    ),
    expect: { scheduled: ["affine"] },
  },
  {
    name: "a preferred zonal anti-affinity to pods in every zone is dropped",
    from: topo("should allow violation of preferred pod anti-affinity"),
    scenario: withPool(
      {},
      spreadPods("spread", 3, ZONE),
      deployment("anti", 10, { preferredPodAntiAffinity: [weighted(50, term(ZONE, L))] }),
    ),
    expect: { scheduled: "all" },
  },
  {
    name: "hostname anti-affinity keeps a pod off its target's node",
    from: topo("should separate nodes using simple pod anti-affinity on hostname"),
    scenario: withPool({}, pod("anti", { podAntiAffinity: [term(HOSTNAME, AFF)] }), pod("target", { labels: AFF })),
    expect: { apart: ["anti", "target"] },
  },
  {
    name: "zonal anti-affinity to pods pinned to every zone leaves the pod unschedulable",
    from: topo("should not violate pod anti-affinity on zone"),
    scenario: withPool(
      {},
      ...ZONES.map((z, i) => pod(`z${i + 1}`, { labels: AFF, cpu: "2", nodeSelector: { [ZONE]: z } })),
      pod("anti", { podAntiAffinity: [term(ZONE, AFF)] }),
    ),
    expect: { scheduled: ["z1", "z2", "z3"], unschedulable: ["anti"] },
  },
  {
    // Deliberate difference: Karpenter leaves the new NodeClaim's zone open, so a zonal anti-affinity to its pod
    // cannot be decided until it launches (the pod waits a round); kerf pins the NodeClaim's zone instead.
    name: "zonal anti-affinity to a pod on a new node pins the two NodeClaims to different zones in one round",
    from: topo("should not violate pod anti-affinity on zone (other schedules first)"),
    scenario: withPool(
      {},
      pod("target", { labels: AFF, cpu: "2" }),
      pod("anti", { podAntiAffinity: [term(ZONE, AFF)] }),
    ),
    deliberate: PINNED_ZONES,
    expect: { scheduled: "all", skew: { key: ZONE, counts: [1, 1] } },
  },
  {
    name: "arch anti-affinity puts the pod on the other architecture",
    from: topo("should not violate pod anti-affinity (arch)"),
    scenario: withPool(
      {},
      pod("target", { labels: AFF, cpu: "2", nodeSelector: { [ARCH]: "arm64" }, spread: [spread(HOSTNAME, AFF)] }),
      pod("anti", { labels: AFF, cpu: "1", spread: [spread(HOSTNAME, AFF)], podAntiAffinity: [term(ARCH, AFF)] }),
    ),
    expect: { scheduled: "all", nodeLabels: { target: { [ARCH]: "arm64" }, anti: { [ARCH]: "amd64" } } },
  },
  {
    name: "a pod the others only prefer to avoid still schedules",
    from: topo("should violate preferred pod anti-affinity on zone (inverse)"),
    scenario: withPool(
      {},
      ...ZONES.map((z, i) =>
        pod(`z${i + 1}`, {
          cpu: "2",
          nodeSelector: { [ZONE]: z },
          preferredPodAntiAffinity: [weighted(10, term(ZONE, AFF))],
        }),
      ),
      pod("target", { labels: AFF }),
    ),
    expect: { scheduled: "all" },
  },
  {
    name: "a pod that pods in every zone require to avoid cannot schedule (anti-affinity is symmetric)",
    from: topo("should not violate pod anti-affinity on zone (inverse)"),
    scenario: withPool(
      {},
      ...ZONES.map((z, i) =>
        pod(`z${i + 1}`, { cpu: "2", nodeSelector: { [ZONE]: z }, podAntiAffinity: [term(ZONE, AFF)] }),
      ),
      pod("target", { labels: AFF }),
    ),
    expect: { scheduled: ["z1", "z2", "z3"], unschedulable: ["target"] },
  },
  {
    // Deliberate difference (as above): kerf pins the avoiding pod's NodeClaim to a zone and places its target
    // elsewhere in the same round, where Karpenter needs a second round.
    name: "a pod that a pod on a new node requires to avoid goes to another zone in the same round",
    from: topo("should not violate pod anti-affinity on zone (Schrödinger)"),
    scenario: withPool(
      {},
      pod("anti", { cpu: "2", podAntiAffinity: [term(ZONE, AFF)] }),
      pod("target", { labels: AFF }),
    ),
    deliberate: PINNED_ZONES,
    expect: { scheduled: "all", skew: { key: ZONE, counts: [1, 1] } },
  },
  {
    name: "once the avoiding pod runs in a zone, its target schedules in another zone",
    from: topo("should not violate pod anti-affinity on zone (Schrödinger)"),
    scenario: withPool(
      {},
      node("n1", { instanceType: "m5.large", labels: { [ZONE]: Z1 } }),
      pod("anti", { cpu: "2", podAntiAffinity: [term(ZONE, AFF)], nodeName: "n1" }),
      pod("target", { labels: AFF }),
    ),
    expect: { scheduled: ["target"], nodeLabelsNot: { target: { [ZONE]: Z1 } } },
  },
  {
    name: "running pods in every zone that require avoiding the pod leave it unschedulable",
    from: topo("should not violate pod anti-affinity on zone (inverse w/existing nodes)"),
    scenario: withPool(
      {},
      ...ZONES.flatMap((z, i) => [
        node(`n${i}`, { instanceType: "m5.large", labels: { [ZONE]: z } }),
        pod(`z${i}`, { cpu: "1", podAntiAffinity: [term(ZONE, AFF)], nodeName: `n${i}` }),
      ]),
      pod("target", { labels: AFF }),
    ),
    expect: { unschedulable: ["target"] },
  },
  {
    name: "running pods in every zone that only prefer avoiding the pod let it schedule",
    from: topo("should violate preferred pod anti-affinity on zone (inverse w/existing nodes)"),
    scenario: withPool(
      {},
      ...ZONES.flatMap((z, i) => [
        node(`n${i}`, { instanceType: "m5.large", labels: { [ZONE]: z } }),
        pod(`z${i}`, { cpu: "1", preferredPodAntiAffinity: [weighted(10, term(ZONE, AFF))], nodeName: `n${i}` }),
      ]),
      pod("target", { labels: AFF }),
    ),
    expect: { scheduled: ["target"] },
  },
  {
    name: "a preferred hostname affinity conflicting with a one-per-node spread is dropped for the extra pods",
    from: topo("should allow violation of a pod affinity preference with a conflicting required constraint"),
    scenario: withPool(
      {},
      pod("target", { labels: AFF }),
      deployment("p", 3, {
        labels: L,
        spread: [spread(HOSTNAME, L)],
        preferredPodAffinity: [weighted(50, term(HOSTNAME, AFF))],
      }),
    ),
    expect: { scheduled: "all", skew: { key: HOSTNAME, counts: [1, 1, 1], select: L } },
  },
  {
    // Deliberate difference (as above): Karpenter schedules one pod per round; kerf pins each NodeClaim's zone.
    name: "zonal self anti-affinity puts a batch of 3 in three zones in one round",
    from: topo("should support pod anti-affinity with a zone topology"),
    scenario: withPool({}, deployment("p", 3, { labels: AFF, podAntiAffinity: [term(ZONE, AFF)] })),
    deliberate: PINNED_ZONES,
    expect: { scheduled: "all", newNodes: 3, skew: { key: ZONE, counts: [1, 1, 1], select: AFF } },
  },
  {
    name: "zonal self anti-affinity with pods running in two zones puts the next in the third and no more",
    from: topo("should support pod anti-affinity with a zone topology"),
    scenario: withPool(
      {},
      ...[Z1, Z2].flatMap((z, i) => [
        node(`n${i}`, { instanceType: "m5.large", labels: { [ZONE]: z } }),
        pod(`run${i}`, { labels: AFF, podAntiAffinity: [term(ZONE, AFF)], nodeName: `n${i}` }),
      ]),
      deployment("p", 3, { labels: AFF, podAntiAffinity: [term(ZONE, AFF)] }),
    ),
    expect: { skew: { key: ZONE, counts: [1, 1, 1], select: AFF } },
  },
  {
    name: "a zonal affinity to a pod that does not exist leaves every pod unschedulable",
    from: topo("should not schedule pods with affinity to a non-existent pod"),
    scenario: withPool({}, deployment("p", 10, { podAffinity: [term(ZONE, AFF)] })),
    expect: { unschedulable: "all" },
  },
  {
    name: "a zonal affinity to a target whose zone is undecided waits: only the target schedules",
    from: topo("should support pod affinity with zone topology (unconstrained target)"),
    scenario: withPool({}, deployment("p", 10, { podAffinity: [term(ZONE, AFF)] }), pod("target", { labels: AFF })),
    expect: { scheduled: ["target"], unschedulable: ["p"] },
  },
  {
    name: "once the target runs, pods with zonal affinity to it all go to its zone",
    from: topo("should support pod affinity with zone topology (unconstrained target)"),
    scenario: withPool(
      {},
      node("n1", { instanceType: "m5.large", labels: { [ZONE]: Z2 } }),
      pod("target", { labels: AFF, nodeName: "n1" }),
      deployment("p", 10, { podAffinity: [term(ZONE, AFF)] }),
    ),
    expect: { scheduled: "all", skew: { key: ZONE, counts: [11] } },
  },
  {
    name: "a zonal affinity to a target pinned to a zone schedules everything in that zone",
    from: topo("should support pod affinity with zone topology (constrained target)"),
    scenario: withPool(
      {},
      deployment("p", 10, { podAffinity: [term(ZONE, AFF)] }),
      pod("target", { labels: AFF, required: [[req(ZONE, "In", Z1)]] }),
    ),
    expect: { scheduled: "all", skew: { key: ZONE, counts: [11] } },
  },
  {
    name: "a chain of hostname affinities (db, web, cache, ui) all schedules",
    from: topo("should handle multiple dependent affinities"),
    scenario: withPool(
      {},
      pod("db", { labels: { type: "db" } }),
      pod("web", { labels: { type: "web" }, podAffinity: [term(HOSTNAME, { type: "db" })] }),
      pod("cache", { labels: { type: "cache" }, podAffinity: [term(HOSTNAME, { type: "web" })] }),
      pod("ui", { labels: { type: "ui" }, podAffinity: [term(HOSTNAME, { type: "cache" })] }),
    ),
    expect: { scheduled: "all", together: [["db", "web", "cache", "ui"]] },
  },
  {
    name: "an affinity to a pod that never comes fails without looping",
    from: topo("should fail to schedule pods with unsatisfiable dependencies"),
    scenario: withPool({}, pod("db", { labels: { type: "db" }, podAffinity: [term(HOSTNAME, { type: "web" })] })),
    expect: { unschedulable: ["db"] },
  },
];

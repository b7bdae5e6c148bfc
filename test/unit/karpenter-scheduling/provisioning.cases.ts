// Bin packing, existing nodes, DaemonSets, NodePool limits, labels, taints and weights (Karpenter
// scheduling/suite_test.go "Binpacking", "In-Flight Nodes", "Existing Nodes", and provisioning/suite_test.go
// "Resource Limits", "Daemonsets", "Labels", "Taints", "Multiple NodePools"). Karpenter's fake types become the
// default NodePool's real families: a 1 CPU / 1 GiB pod alone is cheapest on c6g.large; with a 2 CPU / 2 GiB
// DaemonSet beside it the cheapest option is m6g.xlarge. Karpenter's "in-flight" nodes left by an earlier
// round are existing Nodes here (the scenario's view of a launched NodeClaim once its Node registered).
import {
  ARCH,
  INSTANCE_TYPE,
  ZONE,
  ZONES,
  daemonSet,
  deployment,
  node,
  nodeClass,
  nodePool,
  pod,
  req,
  spread,
  taint,
  term,
  toleration,
  weighted,
  type Doc,
  type ParityCase,
  type PoolSpec,
  type Source,
} from "./harness.ts";

const suite = (it: string): Source => ({ file: "scheduling/suite_test.go", it });
const prov = (it: string): Source => ({ file: "suite_test.go", it });
const [Z1, Z2, Z3] = ZONES;
const withPool = (spec: PoolSpec, ...docs: Doc[]): Doc[] => [nodeClass(), nodePool("default", spec), ...docs];
/** The cheapest type for a 1 CPU / 1 GiB pod alone, and for it beside a 2 CPU / 2 GiB DaemonSet pod. */
const POD_ONLY = "c6g.large";
const WITH_DS = "m6g.xlarge";
const small = { cpu: "1", memory: "1Gi" };
const ds = (extra: Parameters<typeof daemonSet>[1] = {}): Doc => daemonSet("ds", { cpu: "2", memory: "2Gi", ...extra });
const anti = {
  labels: { app: "foo" },
  podAntiAffinity: [term("kubernetes.io/hostname", { app: "foo" })],
  cpu: "1500m",
};
const room = { cpu: "10", memory: "10Gi", pods: "110" };
/** Why the ignored-preference cases pack differently from Karpenter's. */
const PACKING_ORDER =
  "Karpenter tries the planned NodeClaim with the fewest pods first, so its ignored preference " +
  "shows" +
  " as the pod joining the lone zone 1 pod; kerf tries NodeClaims in the order it opened them (the zone 2 pods'," +
  " same price here), so the case shows the preference ignored in kerf's terms: the pod prefers zone 1 and still" +
  " packs with the zone 2 pods, where it joins zone 1 when preferences are respected";

export const cases: ParityCase[] = [
  // Binpacking
  {
    name: "a small pod goes on the cheapest instance type",
    from: [
      suite("should schedule a small pod on the smallest instance"),
      suite("should schedule a small pod on the smallest possible instance type"),
    ],
    scenario: withPool({}, pod("p", { cpu: null, memory: "100M" })),
    expect: { launches: { p: "c6g.medium" } },
  },
  {
    name: "five small pods share one node of the cheapest type",
    from: suite("should schedule multiple small pods on the smallest possible instance type"),
    scenario: withPool({}, deployment("p", 5, { cpu: null, memory: "10M" })),
    expect: { newNodes: 1, launches: { "p-0": "c6g.medium" } },
  },
  {
    name: "pods of one instance type fill a node before the next one is planned (40 pods of 1.8G, 4 per m5.large)",
    from: suite("should create new nodes when a node is at capacity"),
    scenario: withPool(
      {},
      deployment("p", 40, { cpu: null, memory: "1.8G", nodeSelector: { [INSTANCE_TYPE]: "m5.large" } }),
    ),
    expect: { scheduled: "all", newNodes: 10 },
  },
  {
    name: "small pods fill the room large pods leave before new nodes are planned",
    from: suite("should pack small and large pods together"),
    scenario: withPool(
      {},
      deployment("large", 40, { cpu: null, memory: "1.8G", nodeSelector: { [INSTANCE_TYPE]: "m5.large" } }),
      deployment("small", 20, { cpu: null, memory: "400M", nodeSelector: { [INSTANCE_TYPE]: "m5.large" } }),
    ),
    expect: { scheduled: "all", newNodes: 12 },
  },
  {
    name: "a zero quantity of an extended resource no type has does not block the pod",
    from: suite("should handle zero-quantity resource requests"),
    scenario: withPool(
      {},
      pod("p", { requests: { "foo.com/weird-resources": "0" }, limits: { "foo.com/weird-resources": "0" } }),
    ),
    expect: { scheduled: ["p"] },
  },
  {
    name: "a pod asking for more memory than any instance type has is unschedulable",
    from: suite("should not schedule pods that exceed every instance type's capacity"),
    scenario: withPool({}, pod("p", { memory: "2Ti" })),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "the pods-per-node capacity opens new nodes (25 tiny pods, 8 per c6g.medium)",
    from: suite("should create new nodes when a node is at capacity due to pod limits per node"),
    scenario: withPool(
      {},
      deployment("p", 25, { cpu: "1m", memory: "1Mi", nodeSelector: { [INSTANCE_TYPE]: "c6g.medium" } }),
    ),
    expect: { scheduled: "all", newNodes: 4 },
  },
  {
    name: "an init container's larger request sizes the node",
    from: suite("should take into account initContainer resource requests when binpacking"),
    scenario: withPool(
      {},
      pod("p", {
        cpu: "1",
        memory: "1Gi",
        spec: {
          initContainers: [{ name: "init", image: "init", resources: { requests: { cpu: "2", memory: "1Gi" } } }],
        },
      }),
    ),
    expect: { claimRequests: { p: { cpu: 2000 } }, optionsExclude: ["c6g.large", "c5.large", "m6g.large"] },
  },
  {
    name: "an init container larger than every instance type makes the pod unschedulable",
    from: suite(
      "should not schedule pods when initContainer resource requests are greater than available instance " + "types",
    ),
    scenario: withPool(
      {},
      pod("p", {
        cpu: "1",
        memory: "1Gi",
        spec: {
          initContainers: [{ name: "init", image: "init", resources: { requests: { cpu: "2", memory: "1Ti" } } }],
        },
      }),
    ),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "pods with the same host port get different nodes",
    from: suite("should schedule pods with the same host port to different nodes"),
    scenario: withPool({}, pod("a", { hostPorts: [8080] }), pod("b", { hostPorts: [8080] })),
    expect: { apart: ["a", "b"] },
  },
  // Nodes left by an earlier round, and nodes Karpenter does not own
  {
    name: "a pod that fits a node already launched goes there instead of a new node",
    from: [
      suite("should not launch a second node if there is an in-flight node that can support the pod"),
      suite("should not launch a second node if there is an in-flight node that can support the pod (#2011)"),
    ],
    scenario: withPool(
      {},
      node("n1", { instanceType: "m5.large", labels: { [ZONE]: Z2 } }),
      pod("p", { cpu: null, limits: { cpu: "10m" } }),
    ),
    expect: { newNodes: 0, onNode: { p: "n1" } },
  },
  {
    name: "a launched node in zone 2 takes pods allowing zone 2, not pods that exclude it",
    from: suite(
      "should not launch a second node if there is an in-flight node that can support the pod (node " + "selectors)",
    ),
    scenario: withPool(
      {},
      node("n1", { instanceType: "m5.large", labels: { [ZONE]: Z2 } }),
      pod("second", { required: [[req(ZONE, "In", Z1, Z2)]] }),
      pod("third", { required: [[req(ZONE, "In", Z1, Z3)]] }),
    ),
    expect: { onNode: { second: "n1" }, newNodes: 1, nodeLabelsNot: { third: { [ZONE]: Z2 } } },
  },
  {
    name: "a pod that does not fit the launched node gets a new one",
    from: suite("should launch a second node if a pod won't fit on the existingNodes node"),
    scenario: withPool(
      {},
      node("n1", { labels: { [ZONE]: Z1, [ARCH]: "amd64" }, allocatable: { cpu: "2", memory: "4Gi", pods: "110" } }),
      pod("first", { cpu: "1001m", nodeName: "n1" }),
      pod("second", { cpu: "1" }),
    ),
    expect: { newNodes: 1, onExisting: 0 },
  },
  {
    name: "a pod whose node selector the launched node does not match gets a new one",
    from: suite("should launch a second node if a pod isn't compatible with the existingNodes node (node selector)"),
    scenario: withPool(
      {},
      node("n1", { instanceType: "m5.large", labels: { [ZONE]: Z1 } }),
      pod("p", { nodeSelector: { [ARCH]: "arm64" } }),
    ),
    expect: { newNodes: 1, nodeLabels: { p: { [ARCH]: "arm64" } } },
  },
  {
    name: "a zonal spread counts pods on nodes launched earlier and fills them before planning more",
    from: suite("should balance pods across zones with in-flight nodes"),
    scenario: withPool(
      {},
      ...ZONES.flatMap((z, i) => [
        node(`n${i}`, { instanceType: "m5.2xlarge", labels: { [ZONE]: z } }),
        pod(`run${i}`, { labels: { foo: "bar" }, nodeName: `n${i}` }),
      ]),
      pod("run3", { labels: { foo: "bar" }, nodeName: "n0" }),
      deployment("p", 5, { labels: { foo: "bar" }, spread: [spread(ZONE, { foo: "bar" })] }),
    ),
    expect: { scheduled: "all", newNodes: 0, skew: { key: ZONE, counts: [3, 3, 3], select: { foo: "bar" } } },
  },
  {
    name: "a hostname spread over nodes launched earlier puts each new pod on a new node",
    from: suite("should balance pods across hostnames with in-flight nodes"),
    scenario: withPool(
      {},
      ...[0, 1, 2, 3].flatMap((i) => [
        node(`n${i}`, { instanceType: "m5.large", labels: { [ZONE]: Z1 } }),
        pod(`run${i}`, { labels: { foo: "bar" }, nodeName: `n${i}` }),
      ]),
      deployment("p", 5, { labels: { foo: "bar" }, spread: [spread("kubernetes.io/hostname", { foo: "bar" })] }),
    ),
    expect: {
      newNodes: 5,
      skew: { key: "kubernetes.io/hostname", counts: [1, 1, 1, 1, 1, 1, 1, 1, 1], select: { foo: "bar" } },
    },
  },
  {
    name: "a pod goes to an existing node Karpenter does not own",
    from: suite("should schedule a pod to an existing node unowned by Karpenter"),
    scenario: withPool({}, node("byo", { labels: { [ZONE]: Z1 }, allocatable: room }), pod("p", { cpu: "10m" })),
    expect: { onNode: { p: "byo" }, newNodes: 0 },
  },
  {
    name: "100 small pods all go to an existing node Karpenter does not own",
    from: suite("should schedule multiple pods to an existing node unowned by Karpenter"),
    scenario: withPool(
      {},
      node("byo", { labels: { [ZONE]: Z1 }, allocatable: { ...room, memory: "100Gi" } }),
      deployment("p", 100, { cpu: "10m" }),
    ),
    expect: { onExisting: 100, newNodes: 0 },
  },
  {
    name: "a pod requiring a zone the existing node is not in gets a new node from the NodePool",
    from: suite("should consider a pod incompatible with an existing node but compatible with NodePool"),
    scenario: withPool(
      {},
      node("n1", { labels: { [ZONE]: Z2 }, allocatable: room }),
      pod("p", { required: [[req(ZONE, "In", Z1)]] }),
    ),
    expect: { onExisting: 0, newNodes: 1, nodeLabels: { p: { [ZONE]: Z1 } } },
  },
  // Resource Limits
  {
    name: "a NodePool whose CPU limit is already used up launches nothing",
    from: prov("should not schedule when limits are exceeded"),
    scenario: withPool(
      { limits: { cpu: "20" } },
      node("big", {
        instanceType: "m5.24xlarge",
        labels: { "karpenter.sh/nodepool": "default", [ZONE]: Z1 },
        taints: [taint("full", "true")],
      }),
      pod("p"),
    ),
    expect: { unschedulable: ["p"], reason: { p: /limits/ } },
  },
  {
    name: "a pod whose node fits the NodePool's CPU limit schedules",
    from: prov("should schedule if limits would be met"),
    scenario: withPool({ limits: { cpu: "2" } }, pod("p", { cpu: "1750m" })),
    expect: { scheduled: ["p"] },
  },
  {
    name: "a CPU limit room for one node schedules one of two pods that need a node each",
    from: prov("should partially schedule if limits would be exceeded"),
    scenario: withPool({ limits: { cpu: "3" } }, pod("a", anti), pod("b", anti)),
    expect: { newNodes: 1 },
  },
  {
    name: "a pod only a node larger than the CPU limit could hold is unschedulable",
    from: prov("should not schedule if limits would be exceeded"),
    scenario: withPool({ limits: { cpu: "2" } }, pod("p", { cpu: "2100m" })),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a GPU pod is unschedulable when the NodePool's limit leaves no room for a GPU node",
    from: prov("should not schedule if limits would be exceeded (GPU)"),
    scenario: withPool(
      { onlyRequirements: [req("karpenter.k8s.aws/instance-family", "In", "g4dn")], limits: { pods: "1" } },
      pod("p", { cpu: null, limits: { "nvidia.com/gpu": "1" } }),
    ),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "after a round used the CPU limit, a second pod of the NodePool is unschedulable",
    from: prov("should not schedule to a nodepool after a scheduling round if limits would be exceeded"),
    scenario: withPool(
      { limits: { cpu: "2" } },
      node("n1", { instanceType: "c5.large", labels: { "karpenter.sh/nodepool": "default", [ZONE]: Z1 } }),
      pod("first", { cpu: "1750m", nodeName: "n1" }),
      pod("p", { cpu: "1750m" }),
    ),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a node-count limit of 2 launches two of three pods that need a node each",
    from: prov("should not schedule if limits would be exceeded (node)"),
    scenario: withPool({ limits: { nodes: "2" } }, pod("a", anti), pod("b", anti), pod("c", anti)),
    expect: { newNodes: 2 },
  },
  // Daemonsets
  {
    name: "a DaemonSet's requests size the new node beside the pod",
    from: [
      prov("should account for daemonsets"),
      prov("should account daemonsets with NotIn operator and unspecified key"),
    ],
    scenario: withPool({}, ds(), pod("p", small)),
    expect: { launches: { p: WITH_DS } },
  },
  {
    name: "a pod whose host port a DaemonSet on every node uses is unschedulable",
    from: prov("should account for daemonset hostports"),
    scenario: withPool({}, ds({ hostPorts: [8080] }), pod("p", { ...small, hostPorts: [8080] })),
    expect: { unschedulable: ["p"], newNodes: 0 },
  },
  {
    name: "a DaemonSet counts on a NodePool with startup taints it does not tolerate",
    from: prov("should account for daemonsets (with startup taint)"),
    scenario: withPool({ startupTaints: [taint("foo.com/taint", undefined)] }, ds(), pod("p", small)),
    expect: { launches: { p: WITH_DS } },
  },
  {
    name: "a DaemonSet larger than every node leaves the pod unschedulable",
    from: prov("should not schedule if daemonset overhead is too large"),
    scenario: withPool({}, ds({ cpu: "10000", memory: "10000Gi" }), pod("p")),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a DaemonSet whose limits (standing in for requests) exceed every node leaves the pod unschedulable",
    from: prov("should not schedule if resource requests are not defined and limits (requests) are too large"),
    scenario: withPool({}, daemonSet("ds", { cpu: "1", limits: { cpu: "10000", memory: "10000Gi" } }), pod("p")),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a DaemonSet's init container larger than its containers sizes the node",
    from: prov("should schedule based on the max resource requests of containers and initContainers"),
    scenario: withPool(
      {},
      daemonSet("ds", {
        cpu: "1",
        limits: { memory: "1Gi" },
        spec: { initContainers: [{ name: "i", image: "i", resources: { requests: { cpu: "3", memory: "3Gi" } } }] },
      }),
      pod("p", { cpu: "100m" }),
    ),
    expect: { scheduled: ["p"], optionsExclude: ["c6g.medium", "c6g.large", "m6g.large", "c5.large", "m5.large"] },
  },
  {
    name: "a DaemonSet's init container larger than every node leaves the pod unschedulable",
    from: [
      prov("should not schedule if combined max resources are too large for any node"),
      prov("should not schedule if initContainer resources are too large"),
    ],
    scenario: withPool(
      {},
      daemonSet("ds", {
        cpu: "1",
        spec: {
          initContainers: [{ name: "i", image: "i", resources: { requests: { cpu: "10000", memory: "10000Gi" } } }],
        },
      }),
      pod("p"),
    ),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a DaemonSet without requests or limits does not block the pod",
    from: prov("should be able to schedule pods if resource requests and limits are not defined"),
    scenario: withPool({}, daemonSet("ds"), pod("p")),
    expect: { scheduled: ["p"] },
  },
  {
    name: "a DaemonSet that does not tolerate the NodePool's taint is not counted",
    from: prov("should ignore daemonsets without matching tolerations"),
    scenario: withPool(
      { taints: [taint("foo", "bar")] },
      ds(),
      pod("p", { ...small, tolerations: [toleration("foo", "Equal", "bar")] }),
    ),
    expect: { launches: { p: POD_ONLY } },
  },
  {
    name: "a DaemonSet whose node selector no NodePool matches is not counted",
    from: prov("should ignore daemonsets with an invalid selector"),
    scenario: withPool({}, ds({ nodeSelector: { node: "invalid" } }), pod("p", small)),
    expect: { launches: { p: POD_ONLY } },
  },
  {
    name: "a DaemonSet whose node selector matches the NodePool's template label is counted",
    from: prov("should account for daemonsets with a custom label nodeSelector that matches the nodepool"),
    scenario: withPool(
      { labels: { purpose: "monitoring" } },
      ds({ nodeSelector: { purpose: "monitoring" } }),
      pod("p", small),
    ),
    expect: { launches: { p: WITH_DS } },
  },
  {
    name: "a DaemonSet requiring a NodePool label counts only on that NodePool's nodes",
    from: prov("should ignore daemonsets when no instance types meet the daemonset requirements"),
    scenario: withPool({}, ds({ required: [[req("karpenter.sh/nodepool", "In", "other")]] }), pod("p", small)),
    expect: { launches: { p: POD_ONLY } },
  },
  {
    name:
      "DaemonSets count only on the instance types they run on: a type whose DaemonSets leave no room is not an " +
      "option",
    from: prov("should filter out daemonsets based on instance type requirements"),
    scenario: withPool(
      {},
      daemonSet("on-large", { cpu: "1", required: [[req("karpenter.k8s.aws/instance-size", "In", "large")]] }),
      daemonSet("on-xlarge", { cpu: "10", required: [[req("karpenter.k8s.aws/instance-size", "In", "xlarge")]] }),
      pod("p", small),
    ),
    expect: { launches: { p: "c6g.2xlarge" }, optionsExclude: ["c6g.large", "m6g.large", "c6g.xlarge", "m6g.xlarge"] },
  },
  {
    name: "a DaemonSet with several required node-affinity terms counts when one matches",
    from: prov("should consider a daemonset schedulable with multiple node affinity terms"),
    scenario: withPool(
      { labels: { foo: "bar" } },
      ds({ required: [[req("foo", "In", "nope")], [req("foo", "In", "bar")]] }),
      pod("p", small),
    ),
    expect: { launches: { p: WITH_DS } },
  },
  {
    name: "a DaemonSet's unmet node-affinity preference does not stop it counting",
    from: prov("should consider a daemonset schedulable with an incompatible node affinity preference"),
    scenario: withPool({}, ds({ preferred: [[1, [req(ZONE, "In", "invalid")]]] }), pod("p", small)),
    expect: { launches: { p: WITH_DS } },
  },
  {
    name: "a DaemonSet counts on a NodePool with a PreferNoSchedule taint",
    from: prov("should consider a daemonset schedulable with a PreferNoSchedule taint"),
    scenario: withPool({ taints: [taint("foo", "bar", "PreferNoSchedule")] }, ds(), pod("p", small)),
    expect: { launches: { p: WITH_DS } },
  },
  {
    name: "a DaemonSet's host port blocks the pod only on types the DaemonSet runs on",
    from: prov("should not account for daemonset hostports when daemonset would not schedule on selected node"),
    scenario: withPool(
      {},
      daemonSet("big-ds", {
        cpu: "4",
        memory: "4Gi",
        hostPorts: [8080],
        required: [[req(INSTANCE_TYPE, "In", "m5.4xlarge")]],
      }),
      pod("p", { ...small, hostPorts: [8080] }),
    ),
    expect: { scheduled: ["p"], optionsExclude: ["m5.4xlarge"] },
  },
  // Labels
  {
    name: "a new node carries the NodePool name, template labels and single-valued requirement labels",
    from: prov("should label nodes"),
    scenario: withPool(
      {
        labels: { "test-key-1": "test-value-1" },
        requirements: [req("test-key-2", "In", "test-value-2"), req("test-key-7", "DoesNotExist")],
      },
      pod("p"),
    ),
    expect: {
      nodeLabels: {
        p: {
          "karpenter.sh/nodepool": "default",
          "test-key-1": "test-value-1",
          "test-key-2": "test-value-2",
          "test-key-7": null,
        },
      },
    },
  },
  {
    name: "template labels in the kubernetes.io and k8s.io domains and their subdomains are honoured",
    from: [
      prov("should label nodes with labels in the kubernetes domains"),
      prov("should label nodes with labels in the subdomain from kubernetes domains"),
    ],
    scenario: withPool(
      { labels: { "kubernetes.io/test": "v", "k8s.io/test": "v", "subdomain.k8s.io/test": "v" } },
      pod("p", { required: [[req("kubernetes.io/test", "In", "v"), req("subdomain.k8s.io/test", "In", "v")]] }),
    ),
    expect: { nodeLabels: { p: { "kubernetes.io/test": "v", "k8s.io/test": "v", "subdomain.k8s.io/test": "v" } } },
  },
  // Taints and NodePools
  {
    name: "pods tolerating the NodePool's taint (by value or Exists) schedule",
    from: [
      prov("should schedule pods that tolerate taints"),
      { file: "scheduling/topology_test.go", it: "should schedule pods that tolerate NodePool constraints" },
    ],
    scenario: withPool(
      { taints: [taint("test-key", "test-value")] },
      pod("equal", { tolerations: [toleration("test-key", "Equal", "test-value")] }),
      pod("exists", { tolerations: [toleration("test-key", "Exists")] }),
      pod("effect", { tolerations: [toleration("test-key", "Exists", undefined, "NoSchedule")] }),
      pod("none"),
    ),
    expect: { scheduled: ["equal", "exists", "effect"], unschedulable: ["none"] },
  },
  {
    name: "a NodePool's startup taint does not stop pods that do not tolerate it",
    from: {
      file: "scheduling/topology_test.go",
      it: "should provision nodes with taints and schedule pods if the taint is only a startup taint",
    },
    scenario: withPool({ startupTaints: [taint("ignore-me", "nothing-to-see-here")] }, pod("p")),
    expect: { scheduled: ["p"] },
  },
  {
    name: "a PreferNoSchedule taint is tolerated once the preferences that could be relaxed are",
    from: prov("should tolerate PreferNoSchedule taint only after trying to relax Affinity terms"),
    scenario: withPool(
      { taints: [taint("foo", "bar", "PreferNoSchedule")] },
      pod("p", {
        preferred: [
          [1, [req(ZONE, "In", "invalid")]],
          [1, [req(INSTANCE_TYPE, "In", "invalid")]],
        ],
      }),
    ),
    expect: { scheduled: ["p"] },
  },
  {
    name: "a NodePool selected by name takes the pod",
    from: prov("should schedule to an explicitly selected NodePool"),
    scenario: [
      nodeClass(),
      nodePool("default"),
      nodePool("chosen"),
      pod("p", { nodeSelector: { "karpenter.sh/nodepool": "chosen" } }),
    ],
    expect: { nodeLabels: { p: { "karpenter.sh/nodepool": "chosen" } } },
  },
  {
    name: "a NodePool selected by its template label takes the pod",
    from: prov("should schedule to a NodePool by labels"),
    scenario: [
      nodeClass(),
      nodePool("default"),
      nodePool("labelled", { labels: { foo: "bar" } }),
      pod("p", { nodeSelector: { foo: "bar" } }),
    ],
    expect: { nodeLabels: { p: { "karpenter.sh/nodepool": "labelled" } } },
  },
  {
    name: "a NodePool with a PreferNoSchedule taint is passed over while another matches",
    from: prov("should not match NodePool with PreferNoSchedule taint when other NodePool match"),
    scenario: [
      nodeClass(),
      nodePool("tainted", { taints: [taint("foo", "bar", "PreferNoSchedule")] }),
      nodePool("plain"),
      pod("p"),
    ],
    expect: { nodeLabels: { p: { "karpenter.sh/nodepool": "plain" } } },
  },
  {
    name: "the NodePool with the highest weight takes every pod",
    from: prov("should schedule to the nodepool with the highest priority always"),
    scenario: [
      nodeClass(),
      nodePool("none"),
      nodePool("w20", { weight: 20 }),
      nodePool("w100", { weight: 100 }),
      deployment("p", 3),
    ],
    expect: { nodeLabels: { "p-0": { "karpenter.sh/nodepool": "w100" }, "p-2": { "karpenter.sh/nodepool": "w100" } } },
  },
  {
    name: "a NodePool selected by name wins over heavier NodePools",
    from: prov("should schedule to explicitly selected nodepool even if other nodePools are higher priority"),
    scenario: [
      nodeClass(),
      nodePool("target"),
      nodePool("w20", { weight: 20 }),
      nodePool("w100", { weight: 100 }),
      pod("p", { nodeSelector: { "karpenter.sh/nodepool": "target" } }),
    ],
    expect: { nodeLabels: { p: { "karpenter.sh/nodepool": "target" } } },
  },
  // Static NodePools (spec.replicas): the provisioner leaves them out; their own controller keeps their count.
  {
    name: "a static NodePool gets no NodeClaim for a pending pod",
    from: prov("should not create NodeClaims for StaticNodePool"),
    scenario: [nodeClass(), nodePool("static", { replicas: 2 }), pod("p")],
    expect: { unschedulable: ["p"], newNodes: 0 },
  },
  {
    name: "beside a static NodePool, the dynamic NodePool takes the pending pod",
    from: prov("should still provision dynamic NodeClaims when there are both Static and Dynamic NodePools"),
    scenario: [nodeClass(), nodePool("default"), nodePool("static", { replicas: 1 }), pod("p")],
    expect: { newNodes: 1, nodeLabels: { p: { "karpenter.sh/nodepool": "default" } } },
  },
  ...[
    ["LabelTopologyZone, LabelTopologyZone", ZONE],
    ["LabelHostname, LabelHostname", "kubernetes.io/hostname"],
  ].map(([entry, key]) => ({
    name: `an unsatisfiable node-affinity preference on ${key} is dropped and the pod shares the first pod's node`,
    from: prov(`should ignore node preferredDuringSchedulingIgnoredDuringExecution affinity / ${entry!}`),
    scenario: withPool(
      {},
      pod("first", { labels: { app: "foo" }, cpu: "2" }),
      pod("pref", { labels: { app: "baz" }, cpu: "1", preferred: [[1, [req(key!, "In", "value-1")]]] }),
    ),
    expect: { together: [["first", "pref"]] },
  })),
  // Deliberate difference (packing order): Karpenter tries the planned NodeClaim with the fewest pods first, so its
  // ignored preference shows as the pod joining the lone zone 1 pod; kerf tries NodeClaims in the order it opened
  // them, so the pod joins the zone 2 pods (same price here). The cases show the preference ignored in kerf's
  // terms: the pod prefers zone 1 and still packs with the zone 2 pods, unlike when preferences are respected.
  ...(
    [
      ["Ignore", "z2-0"],
      ["Respect", "z1"],
    ] as const
  ).map(([policy, mate]) => ({
    name:
      `with preferences ${policy === "Ignore" ? "ignored" : "respected"}, a pod preferring zone 1 packs with ` +
      `${mate}`,
    from: prov("should ignore node affinity preferences"),
    scenario: withPool(
      {},
      pod("z1", { labels: { app: "foo" }, cpu: "2", nodeSelector: { [ZONE]: Z1 } }),
      deployment("z2", 2, { labels: { app: "bar" }, cpu: "3", nodeSelector: { [ZONE]: Z2 } }),
      pod("pref", { labels: { app: "baz" }, cpu: "1", preferred: [[1, [req(ZONE, "In", Z1)]]] }),
    ),
    expect: { together: [[mate, "pref"]] },
    options: { preferencePolicy: policy },
    deliberate: PACKING_ORDER,
  })),
  ...["LabelTopologyZone, LabelTopologyZone", "LabelTopologyZone, LabelHostname"].flatMap((entry) => {
    const key = entry.endsWith("Hostname") ? "kubernetes.io/hostname" : ZONE;
    const foo = { app: "foo" };
    return [
      {
        name: `with preferences ignored, a ScheduleAnyway spread over ${key} does not keep 5 pods apart`,
        from: prov(`should ignore topologySpreadConstraint preferences / ${entry}`),
        scenario: withPool(
          {},
          deployment("p", 5, { labels: foo, spread: [spread(key, foo, { whenUnsatisfiable: "ScheduleAnyway" })] }),
        ),
        expect: { newNodes: 1, scheduled: "all" as const },
        options: { preferencePolicy: "Ignore" as const },
      },
      {
        name: `with preferences ignored, a preferred anti-affinity over ${key} does not keep 5 pods apart`,
        from: prov(`should ignore pod anti-affinity preferences / ${entry}`),
        scenario: withPool(
          {},
          deployment("p", 5, { labels: foo, preferredPodAntiAffinity: [weighted(1, term(key, foo))] }),
        ),
        expect: { newNodes: 1, scheduled: "all" as const },
        options: { preferencePolicy: "Ignore" as const },
      },
      // Deliberate difference (packing order, as for node affinity preferences above): the pod prefers the lone
      // zone 1 pod and, with preferences ignored, still packs with the zone 2 pods.
      ...(["Ignore", "Respect"] as const).map((policy) => ({
        name:
          `with preferences ${policy === "Ignore" ? "ignored" : "respected"}, a pod preferring affinity over ` +
          `${key} ` +
          `to the zone 1 pod packs with ${policy === "Ignore" ? "z2-0" : "z1"}`,
        from: prov(`should ignore pod affinity preferences / ${entry}`),
        scenario: withPool(
          {},
          pod("z1", { labels: foo, cpu: "2", nodeSelector: { [ZONE]: Z1 } }),
          deployment("z2", 2, { labels: { app: "bar" }, cpu: "3", nodeSelector: { [ZONE]: Z2 } }),
          pod("pref", { labels: { app: "baz" }, cpu: "1", preferredPodAffinity: [weighted(1, term(key, foo))] }),
        ),
        expect: { together: [[policy === "Ignore" ? "z2-0" : "z1", "pref"]] },
        options: { preferencePolicy: policy },
        deliberate: PACKING_ORDER,
      })),
    ];
  }),
  {
    name: "pods asking for different accelerators each get a node that has theirs",
    from: prov("should provision nodes for accelerators"),
    scenario: withPool(
      { onlyRequirements: [req("karpenter.k8s.aws/instance-family", "In", "g4dn", "inf1")] },
      pod("gpu", { cpu: null, limits: { "nvidia.com/gpu": "1" } }),
      pod("neuron", { cpu: null, limits: { "aws.amazon.com/neuron": "1" } }),
    ),
    expect: {
      scheduled: "all",
      nodeLabels: {
        gpu: { "karpenter.k8s.aws/instance-family": "g4dn" },
        neuron: { "karpenter.k8s.aws/instance-family": "inf1" },
      },
    },
  },
  {
    name: "a kubelet maxPods of 1 in the EC2NodeClass gives each of three pods its own node",
    from: prov("should provision multiple nodes when maxPods is set"),
    scenario: [nodeClass("default", { kubelet: { maxPods: 1 } }), nodePool(), deployment("p", 3)],
    expect: { scheduled: "all", newNodes: 3 },
  },
  {
    name: "a NotIn requirement on a well-known label adds no label; an In requirement on a custom key does",
    from: prov("should not label nodes with well-known labels from requirements"),
    scenario: withPool(
      { requirements: [req("foo", "In", "bar"), req("node.kubernetes.io/windows-build", "NotIn", "test-value")] },
      pod("p"),
    ),
    expect: { nodeLabels: { p: { foo: "bar", "node.kubernetes.io/windows-build": null } } },
  },
  {
    name: "required node-affinity terms are relaxed in order, the last never",
    from: [prov("should relax multiple terms"), prov("should not relax the final term")],
    scenario: withPool(
      {},
      pod("relaxed", { required: [[req(ZONE, "In", "invalid")], [req(ZONE, "In", Z1)], [req(ZONE, "In", Z2)]] }),
      pod("final", { required: [[req(ZONE, "In", "invalid")]] }),
    ),
    expect: { nodeLabels: { relaxed: { [ZONE]: Z1 } }, unschedulable: ["final"] },
  },
  {
    name: "unsatisfiable preferences are dropped, the heaviest satisfiable one kept",
    from: [prov("should relax all node affinity terms"), prov("should relax to use lighter weights")],
    scenario: withPool(
      { requirements: [req(ZONE, "In", Z1, Z2)] },
      pod("all", {
        preferred: [
          [1, [req(ZONE, "In", "invalid")]],
          [1, [req(INSTANCE_TYPE, "In", "invalid")]],
        ],
      }),
      pod("lighter", {
        preferred: [
          [100, [req(INSTANCE_TYPE, "In", Z3)]],
          [50, [req(ZONE, "In", Z2)]],
          [1, [req(ZONE, "In", Z1)]],
        ],
      }),
    ),
    expect: { scheduled: ["all"], nodeLabels: { lighter: { [ZONE]: Z2 } } },
  },
];

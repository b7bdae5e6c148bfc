// The cluster as the operator reads it (issue 22 cause 2, now the scenario builder's too): in-flight NodeClaims and
// uninitialized Nodes, startup and ephemeral taints, deleting Nodes and their pods, NodePools not Ready or being
// deleted, Windows EC2NodeClasses, DRA pods (Karpenter scheduling/suite_test.go "In-Flight Nodes", "Deleting Nodes",
// "Dynamic Resource Allocation (DRA)", "Custom Constraints"; instance_selection_test.go's Windows cases;
// provisioning/suite_test.go's NodePool cases).
import {
  CAPACITY_TYPE,
  DELETED,
  INSTANCE_TYPE,
  OS,
  ZONE,
  ZONES,
  daemonSet,
  node,
  nodeClaim,
  nodeClass,
  nodePool,
  pod,
  req,
  taint,
  type Doc,
  type ParityCase,
  type PoolSpec,
  type Source,
} from "./harness.ts";

const suite = (it: string): Source => ({ file: "scheduling/suite_test.go", it });
const sel = (it: string): Source => ({ file: "scheduling/instance_selection_test.go", it });
const prov = (it: string): Source => ({ file: "suite_test.go", it });
const [Z1, Z2] = ZONES;
const withPool = (spec: PoolSpec, ...docs: Doc[]): Doc[] => [nodeClass(), nodePool("default", spec), ...docs];
/** A Node launched for the default NodePool (an m5.2xlarge in zone 1) whose NodeClaim is `initialized` or not. */
const launched = (
  name: string,
  initialized: boolean,
  taints: readonly Doc[] = [],
  startupTaints?: readonly Doc[],
): Doc[] => [
  node(name, { instanceType: "m5.2xlarge", labels: { "karpenter.sh/nodepool": "default", [ZONE]: Z1 }, taints }),
  nodeClaim(name, { nodeName: name, initialized, ...(startupTaints ? { startupTaints } : {}) }),
];
const windowsClass = nodeClass("windows", { amiSelectorTerms: [{ alias: "windows2022@latest" }] });
const STARTUP = taint("foo.com/taint", "tainted");
/** Pod options of a pod marked for deletion (evicted) owned by a `kind` controller. */
const evicted = (kind: string): { metadata: Doc } => ({
  metadata: {
    deletionTimestamp: DELETED.deletionTimestamp,
    ownerReferences: [{ apiVersion: "apps/v1", kind, name: "owner", uid: "owner-uid", controller: true }],
  },
});
const daemonOwned = {
  ownerReferences: [{ apiVersion: "apps/v1", kind: "DaemonSet", name: "ds", uid: "ds-uid", controller: true }],
};
const BLOCKED = { app: "guarded" };
const pdb = (name: string, spec: Doc): Doc => ({
  apiVersion: "policy/v1",
  kind: "PodDisruptionBudget",
  metadata: { name, namespace: "default" },
  spec: { selector: { matchLabels: BLOCKED }, ...spec },
});
const claimOf = (o: { containers?: boolean; init?: boolean }): Doc => ({
  resourceClaims: [{ name: "gpu", resourceClaimName: "gpu-claim" }],
  containers: [
    {
      name: "app",
      image: "app",
      resources: { requests: { cpu: "1" }, ...(o.containers ? { claims: [{ name: "gpu" }] } : {}) },
    },
  ],
  ...(o.init ? { initContainers: [{ name: "init", image: "init", resources: { claims: [{ name: "gpu" }] } }] } : {}),
});

export const cases: ParityCase[] = [
  // In-Flight Nodes
  {
    name: "a pod goes to a NodeClaim still in flight (no Node yet) that has room",
    from: suite("should not launch a second node if there is an in-flight node that can support the pod"),
    scenario: withPool(
      {},
      nodeClaim("inflight", { requirements: [req(INSTANCE_TYPE, "In", "m5.large"), req(ZONE, "In", Z2)] }),
      pod("p", { cpu: null, limits: { cpu: "10m" } }),
    ),
    expect: { newNodes: 0, onNode: { p: "inflight" } },
  },
  {
    name: "a NodeClaim being deleted takes no pod: a new one is planned",
    from: suite("should launch a second node if an in-flight node is terminating"),
    scenario: withPool(
      {},
      nodeClaim("going", { deleting: true, requirements: [req(INSTANCE_TYPE, "In", "m5.large"), req(ZONE, "In", Z2)] }),
      pod("p", { cpu: null, limits: { cpu: "10m" } }),
    ),
    expect: { newNodes: 1, onExisting: 0 },
  },
  {
    name: "a pod goes to an uninitialized Node without taints",
    from: suite("should assume pod will schedule to a tainted node with no taints"),
    scenario: withPool({}, ...launched("n1", false), pod("p")),
    expect: { onNode: { p: "n1" }, newNodes: 0 },
  },
  {
    name: "the not-ready NoExecute taint of an uninitialized Node is ignored: the pod goes there",
    from: suite(
      "should assume pod will schedule to a node with ephemeral taint " +
        "node.kubernetes.io/not-ready:NoExecute when the node is uninitialized",
    ),
    scenario: withPool(
      {},
      ...launched("n1", false, [taint("node.kubernetes.io/not-ready", undefined, "NoExecute")]),
      pod("p"),
    ),
    expect: { onNode: { p: "n1" } },
  },
  {
    name: "once the Node is initialized its not-ready NoExecute taint holds: the pod gets a new node",
    from: suite(
      "should assume pod will schedule to a node with ephemeral taint " +
        "node.kubernetes.io/not-ready:NoExecute when the node is uninitialized",
    ),
    scenario: withPool(
      {},
      ...launched("n1", true, [taint("node.kubernetes.io/not-ready", undefined, "NoExecute")]),
      pod("p"),
    ),
    expect: { onExisting: 0, newNodes: 1 },
  },
  {
    name: "an initialized Node with a taint the pod does not tolerate takes no pod",
    from: suite("should not assume pod will schedule to a tainted node"),
    scenario: withPool({}, ...launched("n1", true, [STARTUP]), pod("p")),
    expect: { onExisting: 0, newNodes: 1 },
  },
  {
    name: "an uninitialized Node's startup taint is ignored: the pod goes there",
    from: suite("should assume pod will schedule to a tainted node with a custom startup taint"),
    scenario: withPool({ startupTaints: [STARTUP] }, ...launched("n1", false, [STARTUP], [STARTUP]), pod("p")),
    expect: { onNode: { p: "n1" } },
  },
  {
    name: "an initialized Node's startup taint holds: the pod gets a new node",
    from: suite("should not assume pod will schedule to a node with startup taints after initialization"),
    scenario: withPool({ startupTaints: [STARTUP] }, ...launched("n1", true, [STARTUP], [STARTUP]), pod("p")),
    expect: { onExisting: 0, newNodes: 1 },
  },
  {
    // Karpenter's test labels the Node initialized after its cluster state last read the Node, so what it checks is
    // a Node still uninitialized in that state: its well-known ephemeral taints are ignored.
    name: "an uninitialized Node tainted not-ready, unreachable and cloud-provider-uninitialized still takes the pod",
    from: suite("should consider a tainted NotReady node as in-flight even if initialized"),
    scenario: withPool(
      {},
      ...launched("n1", false, [
        taint("node.kubernetes.io/not-ready", undefined),
        taint("node.kubernetes.io/unreachable", undefined),
        taint("node.cloudprovider.kubernetes.io/uninitialized", "true"),
      ]),
      pod("p", { cpu: "10m" }),
    ),
    expect: { onNode: { p: "n1" } },
  },
  {
    name: "of many in-flight NodeClaims and one initialized Node, the pod goes to the initialized Node",
    from: [
      suite("should order initialized nodes for scheduling uninitialized nodes when all other nodes are inflight"),
      suite("should order initialized nodes for scheduling uninitialized nodes"),
    ],
    scenario: withPool(
      {},
      ...[0, 1, 2, 3].map((i) =>
        nodeClaim(`inflight-${i}`, { requirements: [req(INSTANCE_TYPE, "In", "m5.2xlarge"), req(ZONE, "In", Z1)] }),
      ),
      ...launched("ready", true),
      ...[4, 5].flatMap((i) => launched(`booting-${i}`, false)),
      pod("p"),
    ),
    expect: { onNode: { p: "ready" } },
  },
  // Deleting Nodes
  {
    name: "an active pod of a deleting Node is placed again on a new node",
    from: suite("should re-schedule pods from a deleting node when pods are active"),
    scenario: withPool(
      {},
      node("going", {
        instanceType: "m5.large",
        labels: { "karpenter.sh/nodepool": "default", [ZONE]: Z1 },
        deleting: true,
      }),
      pod("resident", { memory: "100M", nodeName: "going" }),
    ),
    expect: { newNodes: 1, scheduled: ["resident"] },
  },
  ...(
    [
      ["should not re-schedule pods from a deleting node when pods are not active", "Job"],
      [
        "should not reschedule pods from a deleting node when pods are not active and they are owned by a ReplicaSet",
        "ReplicaSet",
      ],
      ["should not re-schedule pods from a deleting node when pods are owned by a DaemonSet", "DaemonSet"],
    ] as const
  ).map(([it, kind]) => ({
    name: `an evicted (terminating) ${kind} pod of a deleting Node is not placed again`,
    from: suite(it),
    scenario: withPool(
      {},
      node("going", {
        instanceType: "m5.large",
        labels: { "karpenter.sh/nodepool": "default", [ZONE]: Z1 },
        deleting: true,
      }),
      pod("resident", { memory: "100M", nodeName: "going", ...evicted(kind) }),
    ),
    expect: { newNodes: 0 },
  })),
  {
    name: "a terminating StatefulSet pod of a deleting Node is placed again (its StatefulSet recreates it by name)",
    from: suite(
      "should reschedule pods from a deleting node when pods are not active and they are owned by a StatefulSet",
    ),
    scenario: withPool(
      {},
      node("going", {
        instanceType: "m5.large",
        labels: { "karpenter.sh/nodepool": "default", [ZONE]: Z1 },
        deleting: true,
      }),
      pod("resident", { memory: "100M", nodeName: "going", ...evicted("StatefulSet") }),
    ),
    expect: { newNodes: 1, scheduled: ["resident"] },
  },
  ...(
    [
      ["0 max unavailable", [pdb("pdb", { maxUnavailable: 0 })]],
      ["0% max unavailable", [pdb("pdb", { maxUnavailable: "0%" })]],
      ["100% min available", [pdb("pdb", { minAvailable: "100%" })]],
      [
        "multiple PDBs on the same pod",
        [pdb("pdb-1", { minAvailable: "100%" }), pdb("pdb-2", { minAvailable: "100%" })],
      ],
    ] as const
  ).map(([entry, pdbs]) => ({
    name: `a deleting Node's pod whose eviction PDBs fully block (${entry}) stays: no node is launched for it`,
    from: suite(
      "should not reschedule pods from a deleting node when pods are blocked due to fully blocking PDBs / " + entry,
    ),
    scenario: withPool(
      {},
      node("going", {
        instanceType: "m5.large",
        labels: { "karpenter.sh/nodepool": "default", [ZONE]: Z1 },
        deleting: true,
      }),
      pod("resident", { memory: "100M", nodeName: "going", labels: BLOCKED }),
      ...pdbs,
    ),
    expect: { newNodes: 0 },
  })),
  {
    name: "a deleting Node's pod whose PDB allows some unavailability is placed again",
    from: suite("should re-schedule pods from a deleting node when pods are active"),
    scenario: withPool(
      {},
      node("going", {
        instanceType: "m5.large",
        labels: { "karpenter.sh/nodepool": "default", [ZONE]: Z1 },
        deleting: true,
      }),
      pod("resident", { memory: "100M", nodeName: "going", labels: BLOCKED }),
      pdb("pdb", { maxUnavailable: 1 }),
    ),
    expect: { newNodes: 1, scheduled: ["resident"] },
  },
  {
    name:
      "a DaemonSet's overhead is its live pod's requests (2 CPU), not its template's (4 CPU); " +
      "the pod is not placed",
    from: prov("should account for overhead using daemonset pod spec instead of daemonset spec"),
    scenario: withPool(
      {},
      daemonSet("ds", { cpu: "4", memory: "4Gi" }),
      pod("ds-live", { cpu: "2", memory: "2Gi", metadata: daemonOwned }),
      pod("p", { cpu: "1", memory: "1Gi" }),
    ),
    expect: { newNodes: 1, scheduled: ["p"], claimRequests: { p: { cpu: 3000 } } },
  },
  {
    name: "a live DaemonSet pod's node-name affinity is replaced by its template's required affinity",
    from: prov("should remove daemonset node hostname affinity when considering daemonset schedulability"),
    scenario: withPool(
      { labels: { foo: "bar" } },
      daemonSet("ds", { cpu: "4", memory: "4Gi", required: [[req("foo", "In", "bar")]] }),
      pod("ds-live", {
        cpu: "2",
        memory: "2Gi",
        metadata: daemonOwned,
        spec: {
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: ["node-name"] }] }],
              },
            },
          },
        },
      }),
      pod("p", { cpu: "1", memory: "1Gi" }),
    ),
    expect: { newNodes: 1, scheduled: ["p"], claimRequests: { p: { cpu: 3000 } } },
  },
  {
    name: "the pods of a deleting Node and new pending pods all go to one new node, none to the deleting one",
    from: prov("should schedule all pods on one inflight node when node is in deleting state"),
    scenario: withPool(
      {},
      node("going", {
        instanceType: "m5.large",
        labels: { "karpenter.sh/nodepool": "default", [ZONE]: Z1 },
        deleting: true,
      }),
      ...[0, 1, 2].map((i) => pod(`bound-${i}`, { nodeName: "going" })),
      pod("new-0"),
      pod("new-1"),
    ),
    expect: { newNodes: 1, onExisting: 0, together: [["bound-0", "bound-1", "bound-2", "new-0", "new-1"]] },
  },
  ...[false, true].map((second) => ({
    name: second
      ? "a DaemonSet pinned to zone 1 counts on every new node of a NodePool spanning zone 1: a second pod fits none"
      : "a DaemonSet pinned to a zone an existing node lacks is not subtracted from it: the pod goes there",
    from: suite("should not subtract daemonset overhead that is not strictly compatible with an existing node"),
    scenario: withPool(
      {},
      node("n1", {
        labels: { "karpenter.sh/nodepool": "default" },
        allocatable: { cpu: "1", memory: "1Gi", pods: "110" },
      }),
      daemonSet("big", { cpu: "100", memory: "100Gi", required: [[req(ZONE, "In", Z1)]] }),
      ...(second ? [pod("first", { cpu: "1", memory: "1Gi", nodeName: "n1" })] : []),
      pod("p", { cpu: "1", memory: "1Gi" }),
    ),
    expect: second ? { unschedulable: ["p"] } : { onNode: { p: "n1" } },
  })),
  // NodePools
  {
    name: "a NodePool that states Ready=False launches nothing",
    from: suite("should not schedule pods with nodePool which is not ready "),
    scenario: [
      nodeClass(),
      { ...nodePool(), status: { conditions: [{ type: "Ready", status: "False", reason: "NodeClassNotReady" }] } },
      pod("p"),
    ],
    expect: { unschedulable: ["p"], newNodes: 0 },
  },
  {
    name: "a NodePool being deleted launches nothing; another NodePool takes the pod",
    from: prov("should ignore NodePools that are deleting"),
    scenario: [
      nodeClass(),
      { ...nodePool("going"), metadata: { name: "going", ...DELETED } },
      nodePool("staying"),
      pod("p"),
    ],
    expect: { nodeLabels: { p: { "karpenter.sh/nodepool": "staying" } } },
  },
  {
    name: "with no NodePool able to launch, the pod is unschedulable",
    from: prov("should mark pod as unschedulable if there are no valid nodepools"),
    scenario: [nodeClass(), { ...nodePool("going"), metadata: { name: "going", ...DELETED } }, pod("p")],
    expect: { unschedulable: ["p"] },
  },
  // Windows
  {
    name: "a Windows NodePool launches Windows nodes at the lowest Windows price",
    from: [sel("should schedule on one of the cheapest instances (prov os = windows)")],
    scenario: [
      windowsClass,
      nodePool("default", { nodeClass: "windows", requirements: [req(OS, "In", "windows")] }),
      pod("p"),
    ],
    expect: { everyOption: { [OS]: "windows" }, nodeLabels: { p: { [OS]: "windows" } } },
  },
  {
    name: "a pod requiring Windows goes to the Windows NodePool, not the Linux one",
    from: sel("should schedule on one of the cheapest instances (pod os = windows)"),
    scenario: [
      nodeClass(),
      windowsClass,
      nodePool("linux"),
      nodePool("windows", { nodeClass: "windows" }),
      pod("p", { required: [[req(OS, "In", "windows")]] }),
    ],
    expect: { everyOption: { [OS]: "windows" }, nodeLabels: { p: { "karpenter.sh/nodepool": "windows" } } },
  },
  {
    name: "an on-demand zone 1 Windows arm64 NodePool has no type: the pod is unschedulable",
    from: sel("should schedule on one of the cheapest instances (prov ct = ondemand/test-zone-1/arm64/windows)"),
    scenario: [
      windowsClass,
      nodePool("default", {
        nodeClass: "windows",
        requirements: [
          req(CAPACITY_TYPE, "In", "on-demand"),
          req(ZONE, "In", Z1),
          req("kubernetes.io/arch", "In", "arm64"),
          req(OS, "In", "windows"),
        ],
      }),
      pod("p"),
    ],
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a Linux pod and a Windows pod get different nodes of their operating system",
    from: suite("should launch pods with different operating systems on different instances"),
    scenario: [
      nodeClass(),
      windowsClass,
      nodePool("linux"),
      nodePool("windows", { nodeClass: "windows" }),
      pod("linux", { nodeSelector: { [OS]: "linux" } }),
      pod("windows", { nodeSelector: { [OS]: "windows" } }),
    ],
    expect: { apart: ["linux", "windows"], nodeLabels: { linux: { [OS]: "linux" }, windows: { [OS]: "windows" } } },
  },
  // DRA
  ...(
    [
      ["container with resource claims", { containers: true }],
      ["init container with resource claims", { init: true }],
      ["pod with both container and init container resource claims", { containers: true, init: true }],
    ] as const
  ).map(([entry, where]) => ({
    name: `a pod (${entry}) gets no NodeClaim: DRA is not supported, as in Karpenter v1.15`,
    from: suite(`should handle DRA pods correctly / ${entry}`),
    scenario: withPool({}, pod("dra", { spec: claimOf(where) })),
    expect: { unschedulable: ["dra"], newNodes: 0, reason: { dra: /Dynamic Resource Allocation/ } },
  })),
  {
    name: "a pod without resource claims gets its NodeClaim",
    from: suite("should handle DRA pods correctly / non-DRA pod without resource claims"),
    scenario: withPool({}, pod("plain", { cpu: "1", memory: "1Gi" })),
    expect: { scheduled: ["plain"], newNodes: 1 },
  },
  {
    name: "a DaemonSet whose pods reference a ResourceClaim reserves nothing on new nodes",
    from: suite("should handle DaemonSet pods with DRA requirements based on IgnoreDRARequests flag value"),
    scenario: withPool(
      {},
      daemonSet("dra-ds", {
        spec: {
          ...claimOf({ containers: true }),
          containers: [{ name: "app", image: "app", resources: { requests: { cpu: "3" }, claims: [{ name: "gpu" }] } }],
        },
      }),
      pod("p", { cpu: "1", memory: "1Gi" }),
    ),
    expect: { launches: { p: "c6g.large" } },
  },
];

// Pod requests (sidecars, init containers, pod-level resources), the well-known labels a pod may select, NodePool
// requirements that leave no instance type, minValues under the Strict policy (Karpenter provisioning/suite_test.go
// top-level Its, "MinValuesPolicy"; scheduling/suite_test.go "NodePool requirements instance filtering").
// Karpenter checks the reason's wording ("nodepool requirements filtered out all available instance types"); kerf
// words its reasons its own way, so these cases check the outcome (no NodeClaim, the pod unschedulable).
import {
  ARCH,
  CAPACITY_TYPE,
  INSTANCE_TYPE,
  OS,
  ZONE,
  ZONES,
  daemonSet,
  minValues,
  nodeClass,
  nodePool,
  pod,
  req,
  type Doc,
  type ParityCase,
  type PodOptions,
  type Source,
} from "./harness.ts";

const prov = (it: string): Source => ({ file: "suite_test.go", it });
const suite = (it: string): Source => ({ file: "scheduling/suite_test.go", it });
const [Z1] = ZONES;
const base: Doc[] = [nodeClass(), nodePool()];
const container = (name: string, cpu: string, memory: string, sidecar = false): Doc => ({
  name,
  image: name,
  resources: { requests: { cpu, memory }, limits: { cpu, memory } },
  ...(sidecar ? { restartPolicy: "Always" } : {}),
});
/** A pod with one container and the given init containers (in order). */
const withInits = (main: Doc, inits: readonly Doc[]): PodOptions => ({
  spec: { containers: [main], initContainers: inits },
});
const GI = 2 ** 30;

export const cases: ParityCase[] = [
  {
    name: "an init container before a sidecar: the pod needs the larger of the init phase and sidecar plus containers",
    from: prov(
      "should schedule based on the max resource requests of containers and initContainers with sidecar " +
        "containers when initcontainer comes first",
    ),
    scenario: [
      ...base,
      pod(
        "p",
        withInits(container("app", "6", "2Gi"), [
          container("init", "10", "4Gi"),
          container("side", "4900m", "2900Mi", true),
        ]),
      ),
    ],
    expect: { claimRequests: { p: { cpu: 10900, memory: 2 * GI + 2900 * 2 ** 20 } } },
  },
  {
    name: "a sidecar before a smaller init container: the sidecar runs beside the init container and the containers",
    from: prov(
      "should schedule based on the max resource requests of containers and initContainers with sidecar " +
        "containers when sidecar container comes first and init container resources are smaller than container " +
        "resources",
    ),
    scenario: [
      ...base,
      pod(
        "p",
        withInits(container("app", "6", "2Gi"), [
          container("side", "4900m", "2900Mi", true),
          container("init", "5", "1Gi"),
        ]),
      ),
    ],
    expect: { claimRequests: { p: { cpu: 10900, memory: 2 * GI + 2900 * 2 ** 20 } } },
  },
  {
    name: "a sidecar before a larger init container: the init phase (sidecar plus init) decides",
    from: prov(
      "should schedule based on the max resource requests of containers and initContainers with sidecar " +
        "containers when sidecar container comes first and init container resources are bigger " +
        "than container resources",
    ),
    scenario: [
      ...base,
      pod(
        "p",
        withInits(container("app", "5", "1Gi"), [
          container("side", "4900m", "2900Mi", true),
          container("init", "6", "2Gi"),
        ]),
      ),
    ],
    expect: { claimRequests: { p: { cpu: 10900, memory: 2 * GI + 2900 * 2 ** 20 } } },
  },
  {
    name: "pod-level resource requests replace the containers' sum",
    from: prov("should schedule based on the pod level resources requests"),
    scenario: [
      ...base,
      pod("p", {
        spec: {
          resources: { requests: { cpu: "9900m", memory: "3900Mi" }, limits: { cpu: "10", memory: "4Gi" } },
          containers: [container("app", "5", "1Gi")],
          initContainers: [container("init", "6", "2Gi"), container("side", "4", "2Gi", true)],
        },
      }),
    ],
    expect: { claimRequests: { p: { cpu: 9900, memory: 3900 * 2 ** 20 } } },
  },
  {
    name: "node selectors on the NodePool, zone, instance type, arch and os schedule; unknown values of each do not",
    from: prov("should provision nodes for pods with supported node selectors"),
    scenario: [
      ...base,
      pod("pool", { nodeSelector: { "karpenter.sh/nodepool": "default" } }),
      pod("zone", { nodeSelector: { [ZONE]: Z1 } }),
      pod("type", { nodeSelector: { [INSTANCE_TYPE]: "m5.large" } }),
      pod("arch", { nodeSelector: { [ARCH]: "arm64" } }),
      pod("os", { nodeSelector: { [OS]: "linux" } }),
      ...["karpenter.sh/nodepool", ZONE, INSTANCE_TYPE, ARCH, OS, CAPACITY_TYPE, "foo"].map((key, i) =>
        pod(`bad-${i}`, { nodeSelector: { [key]: key === "foo" ? "bar" : "unknown" } }),
      ),
    ],
    expect: {
      scheduled: ["pool", "zone", "type", "arch", "os"],
      unschedulable: ["bad-0", "bad-1", "bad-2", "bad-3", "bad-4", "bad-5", "bad-6"],
    },
  },
  {
    name:
      "required node affinity on the NodePool, zone, instance type, arch and os schedules; unknown values of " +
      "each do not",
    from: prov("should provision nodes for pods with supported node affinities"),
    scenario: [
      ...base,
      ...(
        [
          ["pool", "karpenter.sh/nodepool", "default"],
          ["zone", ZONE, Z1],
          ["type", INSTANCE_TYPE, "m5.large"],
          ["arch", ARCH, "arm64"],
          ["os", OS, "linux"],
        ] as const
      ).map(([name, key, value]) => pod(name, { required: [[req(key, "In", value)]] })),
      ...["karpenter.sh/nodepool", ZONE, INSTANCE_TYPE, ARCH, OS, CAPACITY_TYPE, "foo"].map((key, i) =>
        pod(`bad-${i}`, { required: [[req(key, "In", key === "foo" ? "bar" : "unknown")]] }),
      ),
    ],
    expect: {
      scheduled: ["pool", "zone", "type", "arch", "os"],
      unschedulable: ["bad-0", "bad-1", "bad-2", "bad-3", "bad-4", "bad-5", "bad-6"],
    },
  },
  {
    name: "an instance-type minValues of 3 over types of which only two exist leaves the pod unschedulable (Strict)",
    from: prov("should not schedule when minValues requirement is not met"),
    scenario: [
      nodeClass(),
      nodePool("default", {
        weight: 100,
        requirements: [minValues(req(INSTANCE_TYPE, "In", "m6g.medium", "m6g.large", "no-such-type"), 3)],
      }),
      pod("p", { cpu: "900m", memory: "900Mi" }),
    ],
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a NodePool requiring an instance type that does not exist takes no pod",
    from: suite("should return appropriate pod error when no available instance types exist"),
    scenario: [
      nodeClass(),
      nodePool("default", { onlyRequirements: [req(INSTANCE_TYPE, "In", "non-existent-instance-type")] }),
      pod("p", { cpu: "32", memory: "256Gi" }),
    ],
    expect: { unschedulable: ["p"], newNodes: 0 },
  },
  {
    name: "a NodePool requiring an architecture that does not exist refuses every pod",
    from: suite("should handle multiple pods when requirements filter out all instance types"),
    scenario: [
      nodeClass(),
      nodePool("default", { onlyRequirements: [req(ARCH, "In", "non-existent-arch")] }),
      pod("pod-1"),
      pod("pod-2"),
      pod("pod-3"),
    ],
    expect: { unschedulable: "all", newNodes: 0 },
  },
  {
    name: "a NodePool requiring both amd64 and arm64 has no instance type",
    from: suite("should handle conflicting requirements that eliminate all instance types"),
    scenario: [
      nodeClass(),
      nodePool("default", { onlyRequirements: [req(ARCH, "In", "amd64"), req(ARCH, "In", "arm64")] }),
      pod("p"),
    ],
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a NodePool requiring zones that do not exist has no offering",
    from: suite("should handle zone requirements that filter out all instance types"),
    scenario: [
      nodeClass(),
      nodePool("default", { onlyRequirements: [req(ZONE, "In", "non-existent-zone-1", "non-existent-zone-2")] }),
      pod("p"),
    ],
    expect: { unschedulable: ["p"] },
  },
  // NodeClaim Creation: the planned NodeClaim is what kerf creates (nodeclaim-template.ts copies its requirements
  // and requests).
  {
    name: "the NodeClaim requires its NodePool and lists the instance types it may launch",
    from: prov("should create a nodeclaim request with expected requirements"),
    scenario: [...base, pod("p")],
    expect: { requirements: { "karpenter.sh/nodepool": ["default"], [INSTANCE_TYPE]: "some" } },
  },
  {
    name: "the NodeClaim carries the NodePool's custom requirements",
    from: prov("should create a nodeclaim request with additional expected requirements"),
    scenario: [
      nodeClass(),
      nodePool("default", {
        requirements: [req("custom-requirement-key", "In", "value"), req("custom-requirement-key2", "In", "value")],
      }),
      pod("p"),
    ],
    expect: {
      requirements: {
        "karpenter.sh/nodepool": ["default"],
        [INSTANCE_TYPE]: "some",
        "custom-requirement-key": ["value"],
        "custom-requirement-key2": ["value"],
      },
    },
  },
  {
    name: "an arm64 NodePool's NodeClaim requires arm64 and lists only arm64 types",
    from: prov("should create a nodeclaim request restricting instance types on architecture"),
    scenario: [nodeClass(), nodePool("default", { requirements: [req(ARCH, "In", "arm64")] }), pod("p")],
    expect: { requirements: { [ARCH]: ["arm64"] }, everyOption: { [ARCH]: "arm64" } },
  },
  {
    name: "a Linux NodePool's NodeClaim requires linux and lists only Linux types",
    from: prov("should create a nodeclaim request restricting instance types on operating system"),
    scenario: [nodeClass(), nodePool("default", { requirements: [req(OS, "In", "linux")] }), pod("p")],
    expect: { requirements: { [OS]: ["linux"] }, everyOption: { [OS]: "linux" } },
  },
  {
    name: "a GPU pod's NodeClaim lists only types that have a GPU",
    from: prov("should create a nodeclaim request restricting instance types based on pod resource requests"),
    scenario: [
      nodeClass(),
      nodePool("default", { onlyRequirements: [req("karpenter.k8s.aws/instance-family", "In", "m5", "g4dn")] }),
      pod("p", { limits: { "nvidia.com/gpu": "1" } }),
    ],
    expect: { optionsHold: { "nvidia.com/gpu": "1" }, everyOption: { "karpenter.k8s.aws/instance-family": "g4dn" } },
  },
  {
    name: "the NodeClaim requests the pod's CPU, memory, extended resource and one pod",
    from: prov("should create a nodeclaim with resource requests"),
    scenario: [
      nodeClass(),
      nodePool("default", { onlyRequirements: [req("karpenter.k8s.aws/instance-family", "In", "g4dn")] }),
      pod("p", { cpu: "1", memory: "1Mi", limits: { "nvidia.com/gpu": "1" } }),
    ],
    expect: { claimRequests: { p: { cpu: 1000, memory: 2 ** 20, "nvidia.com/gpu": 1, pods: 1 } } },
  },
  {
    name: "the NodeClaim requests its pod's resources plus the DaemonSet pod's (and two pods)",
    from: prov("should create a nodeclaim with resource requests with daemon overhead"),
    scenario: [...base, daemonSet("ds", { cpu: "1", memory: "1Mi" }), pod("p", { cpu: "1", memory: "1Mi" })],
    expect: { claimRequests: { p: { cpu: 2000, memory: 2 * 2 ** 20, pods: 2 } } },
  },
  {
    name: "two pods on one NodeClaim add the DaemonSet overhead once",
    from: prov("should not double-count daemon overhead when multiple pods are scheduled to the same nodeclaim"),
    scenario: [
      ...base,
      daemonSet("ds", { cpu: "1", memory: "1Mi" }),
      pod("a", { cpu: "1", memory: "1Mi" }),
      pod("b", { cpu: "1", memory: "1Mi" }),
    ],
    expect: { together: [["a", "b"]], claimRequests: { a: { cpu: 3000, memory: 3 * 2 ** 20, pods: 3 } } },
  },
];

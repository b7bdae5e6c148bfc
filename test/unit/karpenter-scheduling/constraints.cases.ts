// Node selection constraints (Karpenter scheduling/suite_test.go "Custom Constraints", "Preferential Fallback",
// "Instance Type Compatibility"): NodePool labels and requirements against pod node selectors, required and
// preferred node affinity, well-known and restricted labels. Karpenter's file repeats the "Well Known Labels",
// "Constraints Validation" and "Scheduling Logic" contexts; each case here stands for both copies.
import {
  ARCH,
  CAPACITY_TYPE,
  FAMILY,
  INSTANCE_TYPE,
  OS,
  ZONE,
  ZONES,
  nodeClass,
  nodePool,
  pod,
  req,
  type Doc,
  type ParityCase,
  type PoolSpec,
  type Source,
} from "./harness.ts";

const suite = (it: string): Source => ({ file: "scheduling/suite_test.go", it });
const [Z1, Z2, Z3] = ZONES;
const KEY = "test-key";

/** The default EC2NodeClass and one NodePool `spec`, then `docs`. */
const withPool = (spec: PoolSpec, ...docs: Doc[]): Doc[] => [nodeClass(), nodePool("default", spec), ...docs];
const labelled = { labels: { [KEY]: "test-value" } };
const keyIn = { requirements: [req(KEY, "In", "test-value")] };
const keyInBoth = { requirements: [req(KEY, "In", "test-value", "another-value")] };

export const cases: ParityCase[] = [
  // NodePool with Labels
  {
    name: "an unconstrained pod lands on a node carrying the NodePool's template labels",
    from: suite("should schedule unconstrained pods that don't have matching node selectors"),
    scenario: withPool(labelled, pod("p")),
    expect: { scheduled: ["p"], nodeLabels: { p: { [KEY]: "test-value" } } },
  },
  {
    name: "a node selector contradicting the NodePool's template label leaves the pod unschedulable",
    from: suite("should not schedule pods that have conflicting node selectors"),
    scenario: withPool(labelled, pod("p", { nodeSelector: { [KEY]: "different-value" } })),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a node selector on a custom key no NodePool defines leaves the pod unschedulable",
    from: suite("should not schedule pods that have node selectors with undefined key"),
    scenario: withPool({}, pod("p", { nodeSelector: { [KEY]: "test-value" } })),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a required In over values including the template label's schedules on that label",
    from: suite("should schedule pods that have matching requirements"),
    scenario: withPool(labelled, pod("p", { required: [[req(KEY, "In", "test-value", "another-value")]] })),
    expect: { scheduled: ["p"], nodeLabels: { p: { [KEY]: "test-value" } } },
  },
  {
    name: "a required In excluding the template label's value leaves the pod unschedulable",
    from: suite("should not schedule pods that have conflicting requirements"),
    scenario: withPool(labelled, pod("p", { required: [[req(KEY, "In", "another-value")]] })),
    expect: { unschedulable: ["p"] },
  },
  // Well Known Labels
  {
    name: "the NodePool's zone requirement decides the zone",
    from: suite("should use NodePool constraints"),
    scenario: withPool({ requirements: [req(ZONE, "In", Z2)] }, pod("p")),
    expect: { nodeLabels: { p: { [ZONE]: Z2 } } },
  },
  {
    name: "a zone node selector picks its zone among the NodePool's",
    from: suite("should use node selectors"),
    scenario: withPool({ requirements: [req(ZONE, "In", Z1, Z2)] }, pod("p", { nodeSelector: { [ZONE]: Z2 } })),
    expect: { nodeLabels: { p: { [ZONE]: Z2 } } },
  },
  {
    name: "a hostname node selector cannot be met by a new node",
    from: suite("should not schedule nodes with a hostname selector"),
    scenario: withPool({}, pod("p", { nodeSelector: { "kubernetes.io/hostname": "red-node" } })),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a zone node selector naming an unknown zone leaves the pod unschedulable",
    from: suite("should not schedule the pod if nodeselector unknown"),
    scenario: withPool({ requirements: [req(ZONE, "In", Z1)] }, pod("p", { nodeSelector: { [ZONE]: "unknown" } })),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a zone node selector outside the NodePool's zones leaves the pod unschedulable",
    from: suite("should not schedule if node selector outside of NodePool constraints"),
    scenario: withPool({ requirements: [req(ZONE, "In", Z1)] }, pod("p", { nodeSelector: { [ZONE]: Z2 } })),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a required zone In is honoured",
    from: suite("should schedule compatible requirements with Operator=In"),
    scenario: withPool({}, pod("p", { required: [[req(ZONE, "In", Z3)]] })),
    expect: { nodeLabels: { p: { [ZONE]: Z3 } } },
  },
  {
    name: "a NodePool requirement Gt on an integer label keeps only larger values",
    from: suite("should schedule compatible requirements with Operator=Gt"),
    scenario: withPool({ requirements: [req("karpenter.k8s.aws/instance-cpu", "Gt", "8")] }, pod("p")),
    expect: { scheduled: ["p"], everyOption: {}, nodeLabels: { p: { "karpenter.k8s.aws/instance-cpu": "16" } } },
  },
  {
    name: "a NodePool requirement Lt on an integer label keeps only smaller values",
    from: suite("should schedule compatible requirements with Operator=Lt"),
    scenario: withPool({ requirements: [req("karpenter.k8s.aws/instance-cpu", "Lt", "2")] }, pod("p")),
    expect: { nodeLabels: { p: { "karpenter.k8s.aws/instance-cpu": "1" } } },
  },
  {
    name: "a NodePool requirement Gte keeps the bound itself",
    from: suite("should schedule compatible requirements with Operator=Gte"),
    scenario: withPool({ requirements: [req("karpenter.k8s.aws/instance-cpu", "Gte", "16")] }, pod("p")),
    expect: { nodeLabels: { p: { "karpenter.k8s.aws/instance-cpu": "16" } } },
  },
  {
    name: "a NodePool requirement Lte keeps the bound itself",
    from: suite("should schedule compatible requirements with Operator=Lte"),
    scenario: withPool({ requirements: [req("karpenter.k8s.aws/instance-cpu", "Lte", "1")] }, pod("p")),
    expect: { nodeLabels: { p: { "karpenter.k8s.aws/instance-cpu": "1" } } },
  },
  {
    name: "a required zone In naming only an unknown zone leaves the pod unschedulable",
    from: suite("should not schedule incompatible preferences and requirements with Operator=In"),
    scenario: withPool({}, pod("p", { required: [[req(ZONE, "In", "unknown")]] })),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a required zone NotIn leaves the zone it does not name",
    from: suite("should schedule compatible requirements with Operator=NotIn"),
    scenario: withPool({}, pod("p", { required: [[req(ZONE, "NotIn", Z1, Z2, "unknown")]] })),
    expect: { nodeLabels: { p: { [ZONE]: Z3 } } },
  },
  {
    name: "a required zone NotIn naming every zone leaves the pod unschedulable",
    from: suite("should not schedule incompatible preferences and requirements with Operator=NotIn"),
    scenario: withPool({}, pod("p", { required: [[req(ZONE, "NotIn", Z1, Z2, Z3, "unknown")]] })),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a preferred zone within the required ones is chosen",
    from: suite("should schedule compatible preferences and requirements with Operator=In"),
    scenario: withPool(
      {},
      pod("p", {
        required: [[req(ZONE, "In", Z1, Z2, Z3, "unknown")]],
        preferred: [[1, [req(ZONE, "In", Z2, "unknown")]]],
      }),
    ),
    expect: { nodeLabels: { p: { [ZONE]: Z2 } } },
  },
  {
    name: "a preferred zone that cannot be met is dropped and the pod schedules",
    from: suite("should schedule incompatible preferences and requirements with Operator=In"),
    scenario: withPool(
      {},
      pod("p", {
        required: [[req(ZONE, "In", Z1, Z2, Z3, "unknown")]],
        preferred: [[1, [req(ZONE, "In", "unknown")]]],
      }),
    ),
    expect: { scheduled: ["p"] },
  },
  {
    name: "a preferred zone NotIn leaves the one zone it does not exclude",
    from: suite("should schedule compatible preferences and requirements with Operator=NotIn"),
    scenario: withPool(
      {},
      pod("p", {
        required: [[req(ZONE, "In", Z1, Z2, Z3, "unknown")]],
        preferred: [[1, [req(ZONE, "NotIn", Z1, Z3)]]],
      }),
    ),
    expect: { nodeLabels: { p: { [ZONE]: Z2 } } },
  },
  {
    name: "a preferred zone NotIn excluding every zone is dropped and the pod schedules",
    from: suite("should schedule incompatible preferences and requirements with Operator=NotIn"),
    scenario: withPool(
      {},
      pod("p", {
        required: [[req(ZONE, "In", Z1, Z2, Z3, "unknown")]],
        preferred: [[1, [req(ZONE, "NotIn", Z1, Z2, Z3)]]],
      }),
    ),
    expect: { scheduled: ["p"] },
  },
  {
    name: "a node selector narrows compatible requirements and preferences to its zone",
    from: suite("should schedule compatible node selectors, preferences and requirements"),
    scenario: withPool(
      {},
      pod("p", {
        nodeSelector: { [ZONE]: Z3 },
        required: [[req(ZONE, "In", Z1, Z2, Z3)]],
        preferred: [[1, [req(ZONE, "In", Z1, Z2, Z3)]]],
      }),
    ),
    expect: { nodeLabels: { p: { [ZONE]: Z3 } } },
  },
  {
    name: "node selectors, requirements and preferences over zone and instance type combine",
    from: suite("should combine multidimensional node selectors, preferences and requirements"),
    scenario: withPool(
      {},
      pod("p", {
        nodeSelector: { [ZONE]: Z3, [INSTANCE_TYPE]: "m6g.large" },
        required: [[req(ZONE, "In", Z1, Z3), req(INSTANCE_TYPE, "In", "m5.large", "m6g.large")]],
        preferred: [[1, [req(ZONE, "NotIn", "unknown"), req(INSTANCE_TYPE, "NotIn", "unknown")]]],
      }),
    ),
    expect: { nodeLabels: { p: { [ZONE]: Z3, [INSTANCE_TYPE]: "m6g.large" } } },
  },
  // Constraints Validation
  {
    name: "a required term on the restricted hostname label leaves the pod unschedulable",
    from: suite("should not schedule pods that have node selectors with restricted labels"),
    scenario: withPool({}, pod("p", { required: [[req("kubernetes.io/hostname", "In", "test")]] })),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a required term on a label of the restricted karpenter.sh domain leaves the pod unschedulable",
    from: suite("should not schedule pods that have node selectors with restricted domains"),
    scenario: withPool({}, pod("p", { required: [[req("karpenter.sh/test", "In", "test")]] })),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "NodePool requirements on labels in the kubernetes.io and k8s.io domains become node labels",
    from: [
      suite("should schedule pods that have node selectors with label in the kubernetes domains"),
      suite("should schedule pods that have node selectors with label in kubernetes domains"),
    ],
    scenario: withPool(
      { requirements: [req("kubernetes.io/test", "In", "test-value"), req("k8s.io/test", "In", "test-value")] },
      pod("p"),
    ),
    expect: { nodeLabels: { p: { "kubernetes.io/test": "test-value", "k8s.io/test": "test-value" } } },
  },
  {
    name: "NodePool requirements on labels in subdomains of the kubernetes domains become node labels",
    from: suite("should schedule pods that have node selectors with label in subdomain from kubernetes domains"),
    scenario: withPool(
      {
        requirements: [
          req("subdomain.kubernetes.io/test", "In", "test-value"),
          req("subdomain.k8s.io/test", "In", "test-value"),
        ],
      },
      pod("p"),
    ),
    expect: {
      nodeLabels: { p: { "subdomain.kubernetes.io/test": "test-value", "subdomain.k8s.io/test": "test-value" } },
    },
  },
  {
    name: "node selectors on well-known labels (zone, instance type, arch, os, capacity type) are all schedulable",
    from: suite("should schedule pods that have node selectors with label in wellknown label list"),
    scenario: withPool(
      {},
      pod("zone", { nodeSelector: { [ZONE]: Z1 } }),
      pod("type", { nodeSelector: { [INSTANCE_TYPE]: "m5.large" } }),
      pod("arch", { nodeSelector: { [ARCH]: "arm64" } }),
      pod("os", { nodeSelector: { [OS]: "linux" } }),
      pod("ct", { nodeSelector: { [CAPACITY_TYPE]: "spot" } }),
    ),
    expect: {
      scheduled: "all",
      nodeLabels: {
        zone: { [ZONE]: Z1 },
        type: { [INSTANCE_TYPE]: "m5.large" },
        arch: { [ARCH]: "arm64" },
        ct: { [CAPACITY_TYPE]: "spot" },
      },
    },
  },
  // Scheduling Logic
  {
    name: "a required In on a custom key no NodePool defines leaves the pod unschedulable",
    from: suite("should not schedule pods that have node selectors with In operator and undefined key"),
    scenario: withPool({}, pod("p", { required: [[req(KEY, "In", "test-value")]] })),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a required NotIn on a custom key no NodePool defines is met by a node without the key",
    from: suite("should schedule pods that have node selectors with NotIn operator and undefined key"),
    scenario: withPool({}, pod("p", { required: [[req(KEY, "NotIn", "test-value")]] })),
    expect: { nodeLabels: { p: { [KEY]: null } } },
  },
  {
    name: "a required Exists on a custom key no NodePool defines leaves the pod unschedulable",
    from: suite("should not schedule pods that have node selectors with Exists operator and undefined key"),
    scenario: withPool({}, pod("p", { required: [[req(KEY, "Exists")]] })),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a required DoesNotExist on a custom key no NodePool defines is met",
    from: suite("should schedule pods that with DoesNotExists operator and undefined key"),
    scenario: withPool({}, pod("p", { required: [[req(KEY, "DoesNotExist")]] })),
    expect: { nodeLabels: { p: { [KEY]: null } } },
  },
  {
    name: "an unconstrained pod lands on a node with the NodePool's custom requirement value",
    from: suite("should schedule unconstrained pods that don't have matching node selectors"),
    scenario: withPool(keyIn, pod("p")),
    expect: { nodeLabels: { p: { [KEY]: "test-value" } } },
  },
  {
    name: "a required In matching the NodePool's custom requirement schedules",
    from: suite("should schedule pods that have node selectors with matching value and In operator"),
    scenario: withPool(keyIn, pod("p", { required: [[req(KEY, "In", "test-value")]] })),
    expect: { nodeLabels: { p: { [KEY]: "test-value" } } },
  },
  {
    name: "a required NotIn of the NodePool's only custom value leaves the pod unschedulable",
    from: suite("should not schedule pods that have node selectors with matching value and NotIn operator"),
    scenario: withPool(keyIn, pod("p", { required: [[req(KEY, "NotIn", "test-value")]] })),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a required Exists on the NodePool's custom key schedules",
    from: suite("should schedule the pod with Exists operator and defined key"),
    scenario: withPool(keyIn, pod("p", { required: [[req(KEY, "Exists")]] })),
    expect: { scheduled: ["p"] },
  },
  {
    name: "a required DoesNotExist on the NodePool's custom key leaves the pod unschedulable",
    from: suite("should not schedule the pod with DoesNotExists operator and defined key"),
    scenario: withPool(keyIn, pod("p", { required: [[req(KEY, "DoesNotExist")]] })),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a required In of a value the NodePool does not allow leaves the pod unschedulable",
    from: suite("should not schedule pods that have node selectors with different value and In operator"),
    scenario: withPool(keyIn, pod("p", { required: [[req(KEY, "In", "another-value")]] })),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a required NotIn of another value schedules on the NodePool's value",
    from: suite("should schedule pods that have node selectors with different value and NotIn operator"),
    scenario: withPool(keyIn, pod("p", { required: [[req(KEY, "NotIn", "another-value")]] })),
    expect: { nodeLabels: { p: { [KEY]: "test-value" } } },
  },
  {
    name: "two pods whose custom requirements agree on one value share a node",
    from: suite("should schedule compatible pods to the same node"),
    scenario: withPool(
      keyInBoth,
      pod("a", { required: [[req(KEY, "In", "test-value")]] }),
      pod("b", { required: [[req(KEY, "NotIn", "another-value")]] }),
    ),
    expect: { together: [["a", "b"]], nodeLabels: { a: { [KEY]: "test-value" }, b: { [KEY]: "test-value" } } },
  },
  {
    name: "two pods requiring different values of a custom key get different nodes",
    from: suite("should schedule incompatible pods to the different node"),
    scenario: withPool(
      keyInBoth,
      pod("a", { required: [[req(KEY, "In", "test-value")]] }),
      pod("b", { required: [[req(KEY, "In", "another-value")]] }),
    ),
    expect: { apart: ["a", "b"], nodeLabels: { a: { [KEY]: "test-value" }, b: { [KEY]: "another-value" } } },
  },
  {
    name: "an Exists on a key a term already narrowed to an unknown value does not widen it back",
    from: suite("Exists operator should not overwrite the existing value"),
    scenario: withPool({}, pod("p", { required: [[req(ZONE, "In", "non-existent-zone"), req(ZONE, "Exists")]] })),
    expect: { unschedulable: ["p"] },
  },
  // Preferential Fallback
  {
    name: "the last required node-affinity term is never relaxed",
    from: suite("should not relax the final term"),
    scenario: withPool(
      { requirements: [req(ZONE, "In", Z1), req(INSTANCE_TYPE, "In", "m5.large")] },
      pod("p", { required: [[req(ZONE, "In", "invalid")]] }),
    ),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "required node-affinity terms are tried in order until one can be met",
    from: suite("should relax multiple terms"),
    scenario: withPool(
      {},
      pod("p", {
        required: [
          [req(ZONE, "In", "invalid")],
          [req(ZONE, "In", "invalid")],
          [req(ZONE, "In", Z1)],
          [req(ZONE, "In", Z2)],
        ],
      }),
    ),
    expect: { nodeLabels: { p: { [ZONE]: Z1 } } },
  },
  {
    name: "every unsatisfiable preferred term is dropped",
    from: suite("should relax all terms"),
    scenario: withPool(
      {},
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
    name: "the heaviest satisfiable preferred term wins after heavier ones are dropped",
    from: suite("should relax to use lighter weights"),
    scenario: withPool(
      { requirements: [req(ZONE, "In", Z1, Z2)] },
      pod("p", {
        preferred: [
          [100, [req(INSTANCE_TYPE, "In", Z3)]],
          [50, [req(ZONE, "In", Z2)]],
          [1, [req(ZONE, "In", Z1)]],
        ],
      }),
    ),
    expect: { nodeLabels: { p: { [ZONE]: Z2 } } },
  },
  {
    name: "a preference contradicting the required terms is dropped",
    from: suite("should schedule even if preference is conflicting with requirement"),
    scenario: withPool({}, pod("p", { required: [[req(ZONE, "In", Z3)]], preferred: [[1, [req(ZONE, "NotIn", Z3)]]] })),
    expect: { nodeLabels: { p: { [ZONE]: Z3 } } },
  },
  {
    name: "a preference contradicting itself is dropped",
    from: suite("should schedule even if preference requirements are conflicting"),
    scenario: withPool({}, pod("p", { preferred: [[1, [req(ZONE, "In", "invalid"), req(ZONE, "NotIn", "invalid")]]] })),
    expect: { scheduled: ["p"] },
  },
  // Instance Type Compatibility
  {
    name: "a pod asking for more CPU than any instance type has is unschedulable",
    from: suite("should not schedule if requesting more resources than any instance type has"),
    scenario: withPool({}, pod("p", { cpu: "512" })),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "pods selecting different architectures get different nodes of their architecture",
    from: suite("should launch pods with different archs on different instances"),
    scenario: withPool(
      { requirements: [req(ARCH, "In", "arm64", "amd64")] },
      pod("amd", { nodeSelector: { [ARCH]: "amd64" } }),
      pod("arm", { nodeSelector: { [ARCH]: "arm64" } }),
    ),
    expect: { apart: ["amd", "arm"], nodeLabels: { amd: { [ARCH]: "amd64" }, arm: { [ARCH]: "arm64" } } },
  },
  {
    name: "a pod requiring an arm64 instance type from an amd64-only NodePool is unschedulable",
    from: suite(
      "should exclude instance types that are not supported by the pod constraints (node affinity/instance " + "type)",
    ),
    scenario: withPool(
      { requirements: [req(ARCH, "In", "amd64")] },
      pod("p", { required: [[req(INSTANCE_TYPE, "In", "m6g.large")]] }),
    ),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a pod requiring an operating system no instance type runs is unschedulable",
    from: suite(
      "should exclude instance types that are not supported by the pod constraints (node " +
        "affinity/operating system)",
    ),
    scenario: withPool({ requirements: [req(ARCH, "In", "amd64")] }, pod("p", { required: [[req(OS, "In", "ios")]] })),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a pod only an arm64 type could hold is unschedulable in an amd64-only NodePool",
    from: suite("should exclude instance types that are not supported by the provider constraints (arch)"),
    scenario: withPool(
      { onlyRequirements: [req(ARCH, "In", "amd64"), req(INSTANCE_TYPE, "In", "c5.large", "c6g.xlarge")] },
      pod("p", { cpu: null, limits: { cpu: "3" } }),
    ),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "pods selecting different instance types (one by the beta key) get different nodes",
    from: suite("should launch pods with different instance type node selectors on different instances"),
    scenario: withPool(
      { requirements: [req(ARCH, "In", "arm64", "amd64")] },
      pod("small", { nodeSelector: { "beta.kubernetes.io/instance-type": "c5.large" } }),
      pod("default", { nodeSelector: { [INSTANCE_TYPE]: "m5.large" } }),
    ),
    expect: { apart: ["small", "default"], launches: { small: "c5.large", default: "m5.large" } },
  },
  {
    name: "pods selecting different zones get different nodes",
    from: suite("should launch pods with different zone selectors on different instances"),
    scenario: withPool(
      { requirements: [req(ARCH, "In", "arm64", "amd64")] },
      pod("z1", { nodeSelector: { [ZONE]: Z1 } }),
      pod("z2", { nodeSelector: { [ZONE]: Z2 } }),
    ),
    expect: { apart: ["z1", "z2"], nodeLabels: { z1: { [ZONE]: Z1 }, z2: { [ZONE]: Z2 } } },
  },
  {
    name: "pods needing resources no single instance type has together get different nodes",
    from: suite("should launch pods with resources that aren't on any single instance type on different instances"),
    scenario: withPool(
      { onlyRequirements: [req(INSTANCE_TYPE, "In", "g4dn.xlarge", "c5n.9xlarge")] },
      pod("gpu", { requests: { "nvidia.com/gpu": "1" } }),
      pod("efa", { requests: { "vpc.amazonaws.com/efa": "1" } }),
    ),
    expect: { apart: ["gpu", "efa"] },
  },
  {
    name: "a pod needing two resources no single instance type has together is unschedulable",
    from: suite("should fail to schedule a pod with resources requests that aren't on a single instance type"),
    scenario: withPool(
      { onlyRequirements: [req(INSTANCE_TYPE, "In", "g4dn.xlarge", "c5n.9xlarge")] },
      pod("p", { requests: { "nvidia.com/gpu": "1", "vpc.amazonaws.com/efa": "1" } }),
    ),
    expect: { unschedulable: ["p"] },
  },
  // Provider Specific Labels
  {
    name: "a node selector on a provider label (instance size) picks matching types",
    from: suite("should filter instance types that match labels"),
    scenario: withPool(
      {},
      pod("large", { nodeSelector: { "karpenter.k8s.aws/instance-size": "2xlarge" } }),
      pod("small", { nodeSelector: { "karpenter.k8s.aws/instance-size": "medium" } }),
    ),
    expect: {
      nodeLabels: {
        large: { "karpenter.k8s.aws/instance-size": "2xlarge" },
        small: { "karpenter.k8s.aws/instance-size": "medium" },
      },
    },
  },
  {
    name: "a node selector whose provider label contradicts its instance type is unschedulable",
    from: suite("should not schedule with incompatible labels"),
    scenario: withPool(
      {},
      pod("a", { nodeSelector: { "karpenter.k8s.aws/instance-size": "2xlarge", [INSTANCE_TYPE]: "m5.large" } }),
      pod("b", { nodeSelector: { "karpenter.k8s.aws/instance-size": "medium", [INSTANCE_TYPE]: "m5.2xlarge" } }),
    ),
    expect: { unschedulable: ["a", "b"] },
  },
  {
    name: "an Exists on a label only some instance types carry picks one of those",
    from: suite("should schedule optional labels"),
    scenario: withPool(
      { onlyRequirements: [req(FAMILY, "In", "m5", "m5d")] },
      pod("p", { required: [[req("karpenter.k8s.aws/instance-local-nvme", "Exists")]] }),
    ),
    expect: { everyOption: { [FAMILY]: "m5d" } },
  },
  {
    name: "a DoesNotExist on a label only some instance types carry picks one without it",
    from: suite("should schedule without optional labels if disallowed"),
    scenario: withPool(
      { onlyRequirements: [req(FAMILY, "In", "m5", "m5d")] },
      pod("p", { required: [[req("karpenter.k8s.aws/instance-local-nvme", "DoesNotExist")]] }),
    ),
    expect: { everyOption: { [FAMILY]: "m5" }, nodeLabels: { p: { "karpenter.k8s.aws/instance-local-nvme": null } } },
  },
];

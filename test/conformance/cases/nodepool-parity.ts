// NodePool cases the CRD schema and its 20 CEL rules decide (parity: kerf denies exactly what the apiserver rejects).
import { NODEPOOL, variant, type ConformanceCase, type Draft } from "../case.ts";

const T = "spec.template.spec";
const np = (edit: (o: Draft) => void): Record<string, unknown> => variant(NODEPOOL, edit);
const req = (r: unknown) => np((o) => o.spec.template.spec.requirements.push(r));
const label = (key: string) => np((o) => (o.spec.template.metadata.labels[key] = "x"));

/** Schema (OpenAPI) cases. */
export const NODEPOOL_SCHEMA_CASES: ConformanceCase[] = [
  { name: "accepts the reference NodePool", kind: "NodePool", object: NODEPOOL, apiserver: "accept", kerf: "allow" },
  {
    name: "rejects a NodePool without spec.template",
    kind: "NodePool",
    object: np((o) => delete o.spec.template),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "spec.template", message: "Required value" }],
  },
  {
    name: "rejects a requirement with an unknown operator",
    kind: "NodePool",
    object: req({ key: "a", operator: "Foo" }),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: `${T}.requirements[3].operator`, message: 'Unsupported value: "Foo"' }],
  },
  {
    name: "rejects a consolidateAfter of 1d",
    kind: "NodePool",
    object: np((o) => (o.spec.disruption.consolidateAfter = "1d")),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "spec.disruption.consolidateAfter", message: "should match" }],
  },
  {
    name: "accepts consolidateAfter Never",
    kind: "NodePool",
    object: np((o) => (o.spec.disruption.consolidateAfter = "Never")),
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "rejects an expireAfter of 1.5h",
    kind: "NodePool",
    object: np((o) => (o.spec.template.spec.expireAfter = "1.5h")),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: `${T}.expireAfter` }],
  },
  {
    name: "rejects a terminationGracePeriod of Never",
    kind: "NodePool",
    object: np((o) => (o.spec.template.spec.terminationGracePeriod = "Never")),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: `${T}.terminationGracePeriod` }],
  },
  {
    name: "rejects a weight of 101",
    kind: "NodePool",
    object: np((o) => (o.spec.weight = 101)),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "spec.weight", message: "less than or equal to 100" }],
  },
  {
    name: "rejects a weight given as a string",
    kind: "NodePool",
    object: np((o) => (o.spec.weight = "10")),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "spec.weight", message: "must be of type integer" }],
  },
  {
    name: "rejects budget nodes of 101%",
    kind: "NodePool",
    object: np((o) => (o.spec.disruption.budgets = [{ nodes: "101%" }])),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "spec.disruption.budgets[0].nodes" }],
  },
  {
    name: "accepts budget nodes of 05%",
    kind: "NodePool",
    object: np((o) => (o.spec.disruption.budgets = [{ nodes: "05%" }])),
    apiserver: "accept",
    kerf: "allow",
    ref: "§2",
  },
  {
    name: "rejects a budget duration of 30s",
    kind: "NodePool",
    object: np((o) => (o.spec.disruption.budgets = [{ nodes: "1", schedule: "@daily", duration: "30s" }])),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "spec.disruption.budgets[0].duration" }],
  },
  {
    name: "rejects a budget schedule of @every 5m",
    kind: "NodePool",
    object: np((o) => (o.spec.disruption.budgets = [{ nodes: "1", schedule: "@every 5m", duration: "1h" }])),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "spec.disruption.budgets[0].schedule" }],
  },
  {
    name: "rejects an unknown budget reason",
    kind: "NodePool",
    object: np((o) => (o.spec.disruption.budgets = [{ nodes: "1", reasons: ["Expired"] }])),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "spec.disruption.budgets[0].reasons[0]" }],
  },
  {
    name: "rejects a duplicate budget reason",
    kind: "NodePool",
    object: np((o) => (o.spec.disruption.budgets = [{ nodes: "1", reasons: ["Empty", "Empty"] }])),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "spec.disruption.budgets[0].reasons[1]", message: "Duplicate value" }],
  },
  {
    name: "rejects consolidationPolicy WhenUnderutilized",
    kind: "NodePool",
    object: np((o) => (o.spec.disruption.consolidationPolicy = "WhenUnderutilized")),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "spec.disruption.consolidationPolicy" }],
  },
  {
    name: "accepts consolidationPolicy Balanced",
    kind: "NodePool",
    object: np((o) => (o.spec.disruption.consolidationPolicy = "Balanced")),
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "rejects minValues of 51",
    kind: "NodePool",
    object: np((o) => (o.spec.template.spec.requirements[0].minValues = 51)),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: `${T}.requirements[0].minValues` }],
  },
  {
    name: "rejects a template label value with a space",
    kind: "NodePool",
    object: np((o) => (o.spec.template.metadata.labels.team = "a b")),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "spec.template.metadata.labels.team" }],
  },
  {
    name: "rejects a taint without effect",
    kind: "NodePool",
    object: np((o) => (o.spec.template.spec.taints = [{ key: "a" }])),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: `${T}.taints[0].effect`, message: "Required value" }],
  },
  {
    name: "rejects a nodeClassRef group containing a slash",
    kind: "NodePool",
    object: np((o) => (o.spec.template.spec.nodeClassRef.group = "a/b")),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: `${T}.nodeClassRef.group` }],
  },
  {
    name: "rejects a negative replicas",
    kind: "NodePool",
    object: np((o) => {
      o.spec.replicas = -1;
      o.spec.limits = {};
    }),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "spec.replicas" }],
  },
  {
    name: "rejects a disruption block with only consolidationPolicy, which kerf's mutation would fix",
    kind: "NodePool",
    object: np((o) => delete o.spec.disruption.consolidateAfter),
    apiserver: "reject",
    kerf: "deny",
    fixedByDefaults: true,
    expect: [
      {
        policy: "schema",
        path: "spec.disruption.consolidateAfter",
        message: "Required value (Karpenter's CRD rejects",
      },
    ],
    ref: "§9: without kerf's mutation the apiserver says spec.disruption.consolidateAfter: Required value",
  },
  {
    name: "rejects an empty disruption block, which kerf's mutation would fix",
    kind: "NodePool",
    object: np((o) => (o.spec.disruption = {})),
    apiserver: "reject",
    kerf: "deny",
    fixedByDefaults: true,
    expect: [
      {
        policy: "schema",
        path: "spec.disruption.consolidateAfter",
        message: "kerf's mutating webhook would default it",
      },
    ],
    ref: "§9",
  },
  {
    name: "rejects a null consolidateAfter, which kerf's mutation would fix",
    kind: "NodePool",
    object: np((o) => (o.spec.disruption.consolidateAfter = null)),
    apiserver: "reject",
    kerf: "deny",
    fixedByDefaults: true,
    expect: [{ policy: "schema", path: "spec.disruption.consolidateAfter", message: "Required value" }],
    ref: "§9",
  },
  {
    name: "accepts a NodePool without a disruption block (the CRD defaults all of it)",
    kind: "NodePool",
    object: np((o) => delete o.spec.disruption),
    apiserver: "accept",
    kerf: "allow",
  },
];

/** One case per NodePool CEL rule, with its exact message. */
export const NODEPOOL_CEL_CASES: ConformanceCase[] = [
  {
    name: "rejects moving a NodePool from dynamic to static",
    kind: "NodePool",
    operation: "UPDATE",
    oldObject: NODEPOOL,
    object: np((o) => {
      o.spec.replicas = 2;
      o.spec.limits = { nodes: "5" };
    }),
    apiserver: "reject",
    kerf: "deny",
    expect: [
      {
        policy: "cel",
        path: "spec",
        message:
          "Cannot transition NodePool between static (replicas set) and dynamic (replicas unset) provisioning modes",
      },
    ],
  },
  {
    name: "rejects cpu limits on a static NodePool",
    kind: "NodePool",
    object: np((o) => (o.spec.replicas = 2)),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "cel", path: "spec", message: "only 'limits.nodes' is supported on static NodePools" }],
  },
  {
    name: "accepts a static NodePool limited by nodes only",
    kind: "NodePool",
    object: np((o) => {
      o.spec.replicas = 2;
      o.spec.limits = { nodes: "5" };
    }),
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "rejects weight on a static NodePool",
    kind: "NodePool",
    object: np((o) => {
      o.spec.replicas = 2;
      o.spec.limits = { nodes: "5" };
      o.spec.weight = 10;
    }),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "cel", path: "spec", message: "'weight' is not supported on static NodePools" }],
  },
  {
    name: "rejects a budget with schedule but no duration",
    kind: "NodePool",
    object: np((o) => (o.spec.disruption.budgets = [{ nodes: "1", schedule: "@daily" }])),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "cel", path: "spec.disruption.budgets", message: "'schedule' must be set with 'duration'" }],
  },
  {
    name: "rejects a template label in the karpenter.sh domain",
    kind: "NodePool",
    object: label("karpenter.sh/foo"),
    apiserver: "reject",
    kerf: "deny",
    expect: [
      {
        policy: "cel",
        path: "spec.template.metadata.labels.karpenter.sh/foo",
        message: 'label domain "karpenter.sh" is restricted',
      },
    ],
  },
  {
    name: "rejects a template label ending in karpenter.sh without a dot (CEL endsWith)",
    kind: "NodePool",
    object: label("notkarpenter.sh/x"),
    apiserver: "reject",
    kerf: "deny",
    expect: [
      { policy: "cel", path: "spec.template.metadata.labels", message: 'label domain "karpenter.sh" is restricted' },
    ],
    ref: "§6",
  },
  {
    name: "rejects the karpenter.sh/nodepool template label",
    kind: "NodePool",
    object: label("karpenter.sh/nodepool"),
    apiserver: "reject",
    kerf: "deny",
    expect: [
      {
        policy: "cel",
        path: "spec.template.metadata.labels.karpenter.sh/nodepool",
        message: 'label "karpenter.sh/nodepool" is restricted',
      },
    ],
  },
  {
    name: "rejects the kubernetes.io/hostname template label",
    kind: "NodePool",
    object: label("kubernetes.io/hostname"),
    apiserver: "reject",
    kerf: "deny",
    expect: [
      { policy: "cel", path: "spec.template.metadata.labels", message: 'label "kubernetes.io/hostname" is restricted' },
    ],
  },
  {
    name: "rejects a template label in the karpenter.k8s.aws domain",
    kind: "NodePool",
    object: label("karpenter.k8s.aws/foo"),
    apiserver: "reject",
    kerf: "deny",
    expect: [
      {
        policy: "cel",
        path: "spec.template.metadata.labels.karpenter.k8s.aws/foo",
        message: 'label domain "karpenter.k8s.aws" is restricted',
      },
    ],
  },
  {
    name: "rejects changing nodeClassRef.group",
    kind: "NodePool",
    operation: "UPDATE",
    oldObject: NODEPOOL,
    object: np((o) => (o.spec.template.spec.nodeClassRef.group = "example.com")),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "cel", path: `${T}.nodeClassRef`, message: "nodeClassRef.group is immutable" }],
  },
  {
    name: "rejects changing nodeClassRef.kind",
    kind: "NodePool",
    operation: "UPDATE",
    oldObject: NODEPOOL,
    object: np((o) => (o.spec.template.spec.nodeClassRef.kind = "Other")),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "cel", path: `${T}.nodeClassRef`, message: "nodeClassRef.kind is immutable" }],
  },
  {
    name: "accepts changing nodeClassRef.name",
    kind: "NodePool",
    operation: "UPDATE",
    oldObject: NODEPOOL,
    object: np((o) => (o.spec.template.spec.nodeClassRef.name = "other")),
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "rejects an empty nodeClassRef.group",
    kind: "NodePool",
    object: np((o) => (o.spec.template.spec.nodeClassRef.group = "")),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "cel", path: `${T}.nodeClassRef.group`, message: "group may not be empty" }],
  },
  {
    name: "rejects an empty nodeClassRef.kind",
    kind: "NodePool",
    object: np((o) => (o.spec.template.spec.nodeClassRef.kind = "")),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "cel", path: `${T}.nodeClassRef.kind`, message: "kind may not be empty" }],
  },
  {
    name: "rejects an empty nodeClassRef.name",
    kind: "NodePool",
    object: np((o) => (o.spec.template.spec.nodeClassRef.name = "")),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "cel", path: `${T}.nodeClassRef.name`, message: "name may not be empty" }],
  },
  {
    name: "rejects an In requirement with no values",
    kind: "NodePool",
    object: req({ key: "team", operator: "In", values: [] }),
    apiserver: "reject",
    kerf: "deny",
    expect: [
      {
        policy: "cel",
        path: `${T}.requirements[3].values`,
        message: "requirements with operator 'In' must have a value defined",
      },
    ],
  },
  {
    name: "rejects a Gt requirement with two values",
    kind: "NodePool",
    object: req({ key: "karpenter.k8s.aws/instance-cpu", operator: "Gt", values: ["1", "2"] }),
    apiserver: "reject",
    kerf: "deny",
    expect: [
      {
        policy: "cel",
        path: `${T}.requirements[3].values`,
        message: "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value",
      },
    ],
  },
  {
    name: "rejects a Lte requirement with a negative value",
    kind: "NodePool",
    object: req({ key: "karpenter.k8s.aws/instance-cpu", operator: "Lte", values: ["-1"] }),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "cel", path: `${T}.requirements[3].values` }],
  },
  {
    name: "rejects a Gt value one above int64's maximum (exact integer conversion)",
    kind: "NodePool",
    object: req({ key: "example.com/size", operator: "Gt", values: ["9223372036854775808"] }),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "cel", path: `${T}.requirements`, message: "must have a single positive integer value" }],
  },
  {
    name: "rejects a Lte value far above int64's maximum",
    kind: "NodePool",
    object: req({ key: "example.com/size", operator: "Lte", values: ["100000000000000000000"] }),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "cel", path: `${T}.requirements` }],
  },
  {
    name: "accepts a Lt value of int64's maximum",
    kind: "NodePool",
    object: req({ key: "example.com/size", operator: "Lt", values: ["9223372036854775807"] }),
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "accepts a Gte requirement",
    kind: "NodePool",
    object: req({ key: "karpenter.k8s.aws/instance-cpu", operator: "Gte", values: ["2"] }),
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "rejects minValues above the number of values",
    kind: "NodePool",
    object: np((o) => (o.spec.template.spec.requirements[0].minValues = 4)),
    apiserver: "reject",
    kerf: "deny",
    expect: [
      {
        policy: "cel",
        path: `${T}.requirements[0].minValues`,
        message: "requirements with 'minValues' must have at least that many values specified in the 'values' field",
      },
    ],
  },
  {
    name: "rejects a requirement key in the karpenter.sh domain",
    kind: "NodePool",
    object: req({ key: "karpenter.sh/foo", operator: "Exists" }),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "cel", path: `${T}.requirements[3].key`, message: 'label domain "karpenter.sh" is restricted' }],
  },
  {
    name: "rejects a karpenter.sh/nodepool requirement",
    kind: "NodePool",
    object: req({ key: "karpenter.sh/nodepool", operator: "In", values: ["x"] }),
    apiserver: "reject",
    kerf: "deny",
    expect: [
      { policy: "cel", path: `${T}.requirements[3].key`, message: 'label "karpenter.sh/nodepool" is restricted' },
    ],
  },
  {
    name: "rejects a kubernetes.io/hostname requirement",
    kind: "NodePool",
    object: req({ key: "kubernetes.io/hostname", operator: "Exists" }),
    apiserver: "reject",
    kerf: "deny",
    expect: [
      { policy: "cel", path: `${T}.requirements[3].key`, message: 'label "kubernetes.io/hostname" is restricted' },
    ],
  },
  {
    name: "rejects a requirement key in the karpenter.k8s.aws domain that is not allow-listed",
    kind: "NodePool",
    object: req({ key: "karpenter.k8s.aws/nitro-sandbox", operator: "Exists" }),
    apiserver: "reject",
    kerf: "deny",
    expect: [
      { policy: "cel", path: `${T}.requirements[3].key`, message: 'label domain "karpenter.k8s.aws" is restricted' },
    ],
    ref: "§10.11",
  },
  {
    name: "accepts a capacity-type requirement",
    kind: "NodePool",
    object: req({ key: "karpenter.sh/capacity-type", operator: "In", values: ["spot", "on-demand"] }),
    apiserver: "accept",
    kerf: "allow",
  },
];

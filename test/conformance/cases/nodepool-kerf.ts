// NodePool cases the apiserver accepts but Karpenter fails at runtime or kerf policies refuse (kerf is stricter).
import { NODEPOOL, variant, type ConformanceCase, type Draft } from "../case.ts";

const T = "spec.template.spec";
const np = (edit: (o: Draft) => void): Record<string, unknown> => variant(NODEPOOL, edit);
const req = (r: unknown) => np((o) => o.spec.template.spec.requirements.push(r));
const budgets = (b: unknown[]) => np((o) => (o.spec.disruption.budgets = b));

/** Runtime-validation equivalents (§7) and strict schema-gap checks (§10). */
export const NODEPOOL_RUNTIME_CASES: ConformanceCase[] = [
  {
    name: "denies a taint and a startup taint with the same key and effect",
    kind: "NodePool",
    object: np((o) => {
      o.spec.template.spec.taints = [{ key: "a", effect: "NoSchedule" }];
      o.spec.template.spec.startupTaints = [{ key: "a", value: "b", effect: "NoSchedule" }];
    }),
    apiserver: "accept",
    kerf: "deny",
    expect: [
      { policy: "runtime", path: `${T}.startupTaints[0]`, message: "duplicate taint Key/Effect pair a=NoSchedule" },
    ],
    ref: "§10.8",
  },
  {
    name: "denies a requirement value that is not a label value",
    kind: "NodePool",
    object: req({ key: "team", operator: "In", values: ["a b"] }),
    apiserver: "accept",
    kerf: "deny",
    expect: [{ policy: "runtime", path: `${T}.requirements[3].values[0]` }],
    ref: "§10.4 (verify)",
  },
  {
    name: "denies a capacity-type requirement listing only unknown values",
    kind: "NodePool",
    object: req({ key: "karpenter.sh/capacity-type", operator: "In", values: ["spott"] }),
    apiserver: "accept",
    kerf: "deny",
    expect: [{ policy: "runtime", path: `${T}.requirements[3].values`, message: "invalid value(s) spott" }],
    ref: "§6",
  },
  {
    name: "warns about a capacity-type requirement mixing known and unknown values",
    kind: "NodePool",
    object: req({ key: "karpenter.sh/capacity-type", operator: "In", values: ["spot", "spott"] }),
    apiserver: "accept",
    kerf: "allow",
    expect: [{ policy: "runtime", path: `${T}.requirements[3].values` }],
  },
  {
    name: "denies the ec2nodeclass label CEL allows but runtime validation restricts",
    kind: "NodePool",
    object: np((o) => (o.spec.template.metadata.labels["karpenter.k8s.aws/ec2nodeclass"] = "default")),
    apiserver: "accept",
    kerf: "deny",
    expect: [
      {
        policy: "runtime",
        path: "spec.template.metadata.labels.karpenter.k8s.aws/ec2nodeclass",
        message: "is restricted",
      },
    ],
    ref: "§10.11",
  },
  {
    name: "denies a taint value containing a slash",
    kind: "NodePool",
    object: np((o) => (o.spec.template.spec.taints = [{ key: "a", value: "b/c", effect: "NoSchedule" }])),
    apiserver: "accept",
    kerf: "deny",
    expect: [{ policy: "strict", path: `${T}.taints[0].value` }],
    ref: "§10.7 (verify)",
  },
  {
    name: "denies values on an Exists requirement",
    kind: "NodePool",
    object: req({ key: "team", operator: "Exists", values: ["a"] }),
    apiserver: "accept",
    kerf: "deny",
    expect: [{ policy: "strict", path: `${T}.requirements[3].values` }],
    ref: "§10.14",
  },
  {
    name: "denies a negative cpu limit",
    kind: "NodePool",
    object: np((o) => (o.spec.limits.cpu = "-1")),
    apiserver: "accept",
    kerf: "deny",
    expect: [{ policy: "strict", path: "spec.limits.cpu" }],
    ref: "§10.15 (verify)",
  },
  {
    name: "warns when nodes expire before they can be consolidated",
    kind: "NodePool",
    object: np((o) => {
      o.spec.template.spec.expireAfter = "1h";
      o.spec.disruption.consolidateAfter = "2h";
    }),
    apiserver: "accept",
    kerf: "allow",
    expect: [{ policy: "strict", path: `${T}.expireAfter` }],
    ref: "§10.12",
  },
];

/** budget-schedule. */
export const NODEPOOL_BUDGET_CASES: ConformanceCase[] = [
  {
    name: "accepts a weekday business-hours budget",
    kind: "NodePool",
    object: budgets([{ nodes: "0", schedule: "0 9 * * mon-fri", duration: "8h" }, { nodes: "10%" }]),
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "denies a budget whose schedule has six fields",
    kind: "NodePool",
    object: budgets([{ nodes: "1", schedule: "0 0 9 * * *", duration: "1h" }]),
    apiserver: "accept",
    kerf: "deny",
    expect: [
      {
        policy: "budget-schedule",
        path: "spec.disruption.budgets[0].schedule",
        message: "expected exactly 5 fields, found 6",
      },
    ],
    ref: "§10.5",
  },
  {
    name: "denies a budget schedule of @dailyX",
    kind: "NodePool",
    object: budgets([{ nodes: "1", schedule: "@dailyX", duration: "1h" }]),
    apiserver: "accept",
    kerf: "deny",
    expect: [{ policy: "budget-schedule", path: "spec.disruption.budgets[0].schedule" }],
    ref: "§2",
  },
  {
    name: "denies a schedule with an out-of-range hour",
    kind: "NodePool",
    object: budgets([{ nodes: "1", schedule: "0 25 * * *", duration: "1h" }]),
    apiserver: "accept",
    kerf: "deny",
    expect: [{ policy: "budget-schedule", path: "spec.disruption.budgets[0].schedule" }],
  },
  {
    name: "denies a day of week of 7, which robfig/cron refuses",
    kind: "NodePool",
    object: budgets([{ nodes: "1", schedule: "0 0 * * 7", duration: "1h" }]),
    apiserver: "accept",
    kerf: "deny",
    expect: [{ policy: "budget-schedule", path: "spec.disruption.budgets[0].schedule", message: "day of week 7" }],
  },
  {
    name: "accepts the @midnight macro",
    kind: "NodePool",
    object: budgets([{ nodes: "1", schedule: "@midnight", duration: "1h" }]),
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "warns when a budget duration exceeds its cron period",
    kind: "NodePool",
    object: budgets([{ nodes: "1", schedule: "@hourly", duration: "2h" }]),
    apiserver: "accept",
    kerf: "allow",
    expect: [
      { policy: "budget-schedule", path: "spec.disruption.budgets[0].duration", message: "never becomes inactive" },
    ],
  },
  {
    name: "warns about a nodes: 0 budget without a schedule",
    kind: "NodePool",
    object: budgets([{ nodes: "0" }]),
    apiserver: "accept",
    kerf: "allow",
    expect: [{ policy: "budget-schedule", path: "spec.disruption.budgets[0].nodes", message: "never inactive" }],
  },
];

/** Catalog policies and nodeclassref-resolves. */
export const NODEPOOL_POLICY_CASES: ConformanceCase[] = [
  {
    name: "denies a spot-capable NodePool narrowed to one family",
    kind: "NodePool",
    object: np(
      (o) =>
        (o.spec.template.spec.requirements = [
          { key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["m5"] },
        ]),
    ),
    apiserver: "accept",
    kerf: "deny",
    expect: [{ policy: "spot-diversity", path: `${T}.requirements[0]`, message: "only 9 instance types" }],
  },
  {
    name: "allows an on-demand NodePool narrowed to one family",
    kind: "NodePool",
    object: np(
      (o) =>
        (o.spec.template.spec.requirements = [
          { key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["m5"] },
          { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
        ]),
    ),
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "denies requirements that match no instance type",
    kind: "NodePool",
    object: req({ key: "node.kubernetes.io/instance-type", operator: "In", values: ["t3.micro"] }),
    apiserver: "accept",
    kerf: "deny",
    expect: [{ policy: "requirements-satisfiable", path: `${T}.requirements[3]`, message: "match no instance type" }],
  },
  {
    name: "denies a zone minValues the matching types cannot reach",
    kind: "NodePool",
    object: req({
      key: "topology.kubernetes.io/zone",
      operator: "In",
      values: ["us-east-1a", "us-east-1b", "us-east-1z"],
      minValues: 3,
    }),
    apiserver: "accept",
    kerf: "deny",
    expect: [
      {
        policy: "requirements-satisfiable",
        path: `${T}.requirements[3].minValues`,
        message: "offer 2 distinct values",
      },
    ],
  },
  {
    name: "denies a NodePool without limits",
    kind: "NodePool",
    object: np((o) => delete o.spec.limits),
    apiserver: "accept",
    kerf: "deny",
    expect: [{ policy: "limits-required", path: "spec.limits" }],
  },
  {
    name: "denies a NodePool limiting cpu but not memory",
    kind: "NodePool",
    object: np((o) => delete o.spec.limits.memory),
    apiserver: "accept",
    kerf: "deny",
    expect: [{ policy: "limits-required", path: "spec.limits.memory" }],
  },
  {
    name: "warns when the cpu limit is below the smallest matching instance",
    kind: "NodePool",
    object: np((o) => (o.spec.limits.cpu = "500m")),
    apiserver: "accept",
    kerf: "allow",
    expect: [
      { policy: "limits-required", path: "spec.limits.cpu", message: "below the smallest matching instance type" },
    ],
  },
  {
    name: "denies a nodeClassRef missing from the render",
    kind: "NodePool",
    object: NODEPOOL,
    nodeClassNames: ["other"],
    apiserver: "accept",
    kerf: "deny",
    expect: [{ policy: "nodeclassref-resolves", path: `${T}.nodeClassRef.name` }],
  },
  {
    name: "allows a nodeClassRef present in the render",
    kind: "NodePool",
    object: NODEPOOL,
    nodeClassNames: ["default"],
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "downgrades exempted policies to warnings",
    kind: "NodePool",
    object: np((o) => {
      delete o.spec.limits;
      o.metadata.annotations = { "kerf.dev/exempt": "limits-required" };
    }),
    apiserver: "accept",
    kerf: "allow",
    expect: [{ policy: "limits-required", path: "spec.limits", message: "exempted by kerf.dev/exempt" }],
  },
];

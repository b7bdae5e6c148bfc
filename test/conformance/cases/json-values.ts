// Cases about how the apiserver decodes JSON values: integers beyond int64, nulls inside maps, keys like __proto__.
import { EC2NODECLASS, NODEPOOL, variant, type ConformanceCase, type Draft } from "../case.ts";

const np = (edit: (o: Draft) => void): Record<string, unknown> => variant(NODEPOOL, edit);
const nc = (edit: (o: Draft) => void): Record<string, unknown> => variant(EC2NODECLASS, edit);
const ebs = (e: Record<string, unknown>) => (o: Draft) =>
  (o.spec.blockDeviceMappings = [{ deviceName: "/dev/xvda", ebs: { encrypted: true, ...e } }]);
const int64Error = 'must be of type int64: "float64"';

/** JSON integers ≥ 2^63 reach the apiserver's decoder as floats, which integer and int-or-string fields reject. */
export const INT64_CASES: ConformanceCase[] = [
  {
    name: "rejects replicas of 1e20",
    kind: "NodePool",
    object: np((o) => {
      o.spec.replicas = 1e20;
      o.spec.limits = {};
    }),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "spec.replicas", message: int64Error }],
  },
  {
    name: "rejects replicas of 2^63",
    kind: "NodePool",
    object: np((o) => {
      o.spec.replicas = 2 ** 63;
      o.spec.limits = {};
    }),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "spec.replicas", message: int64Error }],
  },
  {
    name: "rejects replicas of 2^62 (the scale subresource's int32)",
    kind: "NodePool",
    object: np((o) => {
      o.spec.replicas = 2 ** 62;
      o.spec.limits = { nodes: "5" };
    }),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: ".spec.replicas", message: "should be less than or equal to 2147483647" }],
  },
  {
    name: "accepts replicas of 2^31-1",
    kind: "NodePool",
    object: np((o) => {
      o.spec.replicas = 2 ** 31 - 1;
      o.spec.limits = { nodes: "5" };
    }),
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "rejects an integer cpu limit of 1e20",
    kind: "NodePool",
    object: np((o) => (o.spec.limits.cpu = 1e20)),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "spec.limits.cpu", message: 'must be of type integer: "number"' }],
  },
  {
    name: "rejects an ebs iops of 1e20",
    kind: "EC2NodeClass",
    object: nc(ebs({ iops: 1e20 })),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "spec.blockDeviceMappings[0].ebs.iops", message: int64Error }],
  },
  {
    name: "rejects an ebs throughput of -1e20",
    kind: "EC2NodeClass",
    object: nc(ebs({ throughput: -1e20 })),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "spec.blockDeviceMappings[0].ebs.throughput", message: int64Error }],
  },
];

/** The apiserver prunes null map values and null properties (no CRD field is nullable) before validating. */
export const NULL_CASES: ConformanceCase[] = [
  {
    name: "accepts a null template label value (pruned)",
    kind: "NodePool",
    object: np((o) => (o.spec.template.metadata.labels.gone = null)),
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "accepts a null limit (pruned)",
    kind: "NodePool",
    object: np((o) => (o.spec.limits.nodes = null)),
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "accepts a null weight (pruned)",
    kind: "NodePool",
    object: np((o) => (o.spec.weight = null)),
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "accepts a null EC2NodeClass tag value (pruned)",
    kind: "EC2NodeClass",
    object: nc((o) => (o.spec.tags = { team: "a", gone: null })),
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "accepts a null subnet selector tag value (pruned)",
    kind: "EC2NodeClass",
    object: nc((o) => (o.spec.subnetSelectorTerms[0].tags.gone = null)),
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "accepts a null kubelet systemReserved value (pruned)",
    kind: "EC2NodeClass",
    object: nc((o) => (o.spec.kubelet = { systemReserved: { cpu: "100m", memory: null } })),
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "rejects a null requirement (list items are not pruned)",
    kind: "NodePool",
    object: np((o) => o.spec.template.spec.requirements.push(null)),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "spec.template.spec.requirements[3]", message: "must be of type object" }],
  },
];

/** Keys that name Object.prototype members are ordinary keys to the apiserver. */
export const PROTOTYPE_KEY_CASES: ConformanceCase[] = [
  {
    name: "accepts EC2NodeClass tags named __proto__ and constructor",
    kind: "EC2NodeClass",
    object: nc((o) => (o.spec.tags = JSON.parse('{"__proto__":"x","constructor":"y","toString":"z"}'))),
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "accepts a limit named __proto__",
    kind: "NodePool",
    object: np((o) => Object.defineProperty(o.spec.limits, "__proto__", { value: "5", enumerable: true })),
    apiserver: "accept",
    kerf: "allow",
  },
];

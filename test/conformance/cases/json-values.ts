// Cases about how the apiserver decodes JSON values: integers beyond int64, nulls inside maps, keys like __proto__.
import { EC2NODECLASS, NODEPOOL, variant, type ConformanceCase } from "../case.ts";

const np = (edit: (o: any) => void): Record<string, unknown> => variant(NODEPOOL, edit); // eslint-disable-line @typescript-eslint/no-explicit-any
const nc = (edit: (o: any) => void): Record<string, unknown> => variant(EC2NODECLASS, edit); // eslint-disable-line @typescript-eslint/no-explicit-any
const ebs = (e: Record<string, unknown>) => (o: any) => (o.spec.blockDeviceMappings = [{ deviceName: "/dev/xvda", ebs: { encrypted: true, ...e } }]); // eslint-disable-line @typescript-eslint/no-explicit-any
const typeError = "must be of type integer";

/** JSON integers ≥ 2^63 reach the apiserver's decoder as floats, which integer and int-or-string fields reject. */
export const INT64_CASES: ConformanceCase[] = [
  { name: "rejects replicas of 1e20", kind: "NodePool", object: np((o) => { o.spec.replicas = 1e20; o.spec.limits = {}; }), apiserver: "reject", kerf: "deny", expect: [{ policy: "schema", path: "spec.replicas", message: typeError }] },
  { name: "rejects replicas of 2^63", kind: "NodePool", object: np((o) => { o.spec.replicas = 2 ** 63; o.spec.limits = {}; }), apiserver: "reject", kerf: "deny", expect: [{ policy: "schema", path: "spec.replicas", message: typeError }] },
  { name: "accepts replicas of 2^62", kind: "NodePool", object: np((o) => { o.spec.replicas = 2 ** 62; o.spec.limits = { nodes: "5" }; }), apiserver: "accept", kerf: "allow" },
  { name: "rejects an integer cpu limit of 1e20", kind: "NodePool", object: np((o) => (o.spec.limits.cpu = 1e20)), apiserver: "reject", kerf: "deny", expect: [{ policy: "schema", path: "spec.limits[cpu]", message: typeError }] },
  { name: "rejects an ebs iops of 1e20", kind: "EC2NodeClass", object: nc(ebs({ iops: 1e20 })), apiserver: "reject", kerf: "deny", expect: [{ policy: "schema", path: "spec.blockDeviceMappings[0].ebs.iops", message: typeError }] },
  { name: "rejects an ebs throughput of -1e20", kind: "EC2NodeClass", object: nc(ebs({ throughput: -1e20 })), apiserver: "reject", kerf: "deny", expect: [{ policy: "schema", path: "spec.blockDeviceMappings[0].ebs.throughput", message: typeError }] },
];

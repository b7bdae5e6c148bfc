// NodeClaim cases: the operator must only write NodeClaims the real CRD accepts (10 CEL rules).
import { NODECLAIM, variant, type ConformanceCase, type Draft } from "../case.ts";

const claim = (edit: (o: Draft) => void): Record<string, unknown> => variant(NODECLAIM, edit);
const req = (r: unknown) => claim((o) => o.spec.requirements.push(r));

/** NodeClaim cases. */
export const NODECLAIM_CASES: ConformanceCase[] = [
  {
    name: "accepts a NodeClaim carrying the nodepool requirement",
    kind: "NodeClaim",
    object: NODECLAIM,
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "rejects any change to a NodeClaim spec",
    kind: "NodeClaim",
    operation: "UPDATE",
    oldObject: NODECLAIM,
    object: claim((o) => (o.spec.resources.requests.cpu = "2")),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "cel", path: "spec", message: "spec is immutable" }],
  },
  {
    name: "rejects an empty nodeClassRef.group",
    kind: "NodeClaim",
    object: claim((o) => (o.spec.nodeClassRef.group = "")),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "cel", path: "spec.nodeClassRef.group", message: "group may not be empty" }],
  },
  {
    name: "rejects an empty nodeClassRef.kind",
    kind: "NodeClaim",
    object: claim((o) => (o.spec.nodeClassRef.kind = "")),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "cel", path: "spec.nodeClassRef.kind", message: "kind may not be empty" }],
  },
  {
    name: "rejects an empty nodeClassRef.name",
    kind: "NodeClaim",
    object: claim((o) => (o.spec.nodeClassRef.name = "")),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "cel", path: "spec.nodeClassRef.name", message: "name may not be empty" }],
  },
  {
    name: "rejects an In requirement without values",
    kind: "NodeClaim",
    object: req({ key: "team", operator: "In", values: [] }),
    apiserver: "reject",
    kerf: "deny",
    expect: [
      {
        policy: "cel",
        path: "spec.requirements",
        message: "requirements with operator 'In' must have a value defined",
      },
    ],
  },
  {
    name: "rejects a Gt requirement with two values",
    kind: "NodeClaim",
    object: req({ key: "karpenter.k8s.aws/instance-cpu", operator: "Gt", values: ["1", "2"] }),
    apiserver: "reject",
    kerf: "deny",
    expect: [
      {
        policy: "cel",
        path: "spec.requirements",
        message: "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value",
      },
    ],
  },
  {
    name: "rejects a Lt requirement with a word",
    kind: "NodeClaim",
    object: req({ key: "karpenter.k8s.aws/instance-cpu", operator: "Lt", values: ["many"] }),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "cel", path: "spec.requirements" }],
    ref: "§10.9 (verify the message)",
  },
  {
    name: "rejects minValues above the values (core#2999)",
    kind: "NodeClaim",
    object: claim((o) => (o.spec.requirements[1].minValues = 3)),
    apiserver: "reject",
    kerf: "deny",
    expect: [
      {
        policy: "cel",
        path: "spec.requirements",
        message: "requirements with 'minValues' must have at least that many values specified in the 'values' field",
      },
    ],
  },
  {
    name: "rejects a karpenter.sh requirement key other than nodepool and capacity-type",
    kind: "NodeClaim",
    object: req({ key: "karpenter.sh/other", operator: "Exists" }),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "cel", path: "spec.requirements[2].key", message: 'label domain "karpenter.sh" is restricted' }],
  },
  {
    name: "rejects a kubernetes.io/hostname requirement",
    kind: "NodeClaim",
    object: req({ key: "kubernetes.io/hostname", operator: "Exists" }),
    apiserver: "reject",
    kerf: "deny",
    expect: [
      { policy: "cel", path: "spec.requirements[2].key", message: 'label "kubernetes.io/hostname" is restricted' },
    ],
  },
  {
    name: "rejects a non-allow-listed karpenter.k8s.aws requirement key",
    kind: "NodeClaim",
    object: req({ key: "karpenter.k8s.aws/foo", operator: "Exists" }),
    apiserver: "reject",
    kerf: "deny",
    expect: [
      { policy: "cel", path: "spec.requirements[2].key", message: 'label domain "karpenter.k8s.aws" is restricted' },
    ],
  },
  {
    name: "rejects a NodeClaim without requirements",
    kind: "NodeClaim",
    object: claim((o) => delete o.spec.requirements),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "spec.requirements", message: "Required value" }],
  },
];

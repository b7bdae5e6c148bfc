// ObjectMeta cases: the apiserver decodes metadata into ObjectMeta and validates name, labels, annotations, finalizers.
import { EC2NODECLASS, NODEPOOL, variant, type ConformanceCase, type Draft } from "../case.ts";

const np = (edit: (o: Draft) => void): Record<string, unknown> => variant(NODEPOOL, edit);
const nc = (edit: (o: Draft) => void): Record<string, unknown> => variant(EC2NODECLASS, edit);
const DNS = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters";
const KEY = "name part must consist of alphanumeric characters";

/** Names, labels, annotations and finalizers of NodePools and EC2NodeClasses. */
export const METADATA_CASES: ConformanceCase[] = [
  {
    name: "rejects a name with an upper-case letter",
    kind: "NodePool",
    object: np((o) => (o.metadata.name = "Default")),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "metadata.name", message: `Invalid value: "Default": ${DNS}` }],
  },
  {
    name: "rejects a name with an underscore",
    kind: "EC2NodeClass",
    object: nc((o) => (o.metadata.name = "a_b")),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "metadata.name", message: DNS }],
  },
  {
    name: "rejects a name of 254 characters",
    kind: "NodePool",
    object: np((o) => (o.metadata.name = "a".repeat(254))),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "metadata.name", message: "must be no more than 253 characters" }],
  },
  {
    name: "accepts a dotted name of 253 characters",
    kind: "NodePool",
    object: np((o) => (o.metadata.name = `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}`)),
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "rejects a NodePool without name or generateName",
    kind: "NodePool",
    object: np((o) => delete o.metadata.name),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "metadata.name", message: "Required value: name or generateName is required" }],
  },
  {
    name: "accepts a generateName ending in a dash",
    kind: "NodePool",
    object: np((o) => {
      delete o.metadata.name;
      o.metadata.generateName = "general-";
    }),
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "rejects a label key with a space",
    kind: "NodePool",
    object: np((o) => (o.metadata.labels = { "a b": "x" })),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "metadata.labels", message: `Invalid value: "a b": ${KEY}` }],
  },
  {
    name: "rejects a label key with two slashes",
    kind: "NodePool",
    object: np((o) => (o.metadata.labels = { "a/b/c": "x" })),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "metadata.labels", message: "a valid label key must consist of" }],
  },
  {
    name: "rejects a label key with an upper-case prefix",
    kind: "EC2NodeClass",
    object: nc((o) => (o.metadata.labels = { "Example.com/a": "x" })),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "metadata.labels", message: "prefix part a lowercase RFC 1123 subdomain" }],
  },
  {
    name: "rejects a label value of 64 characters",
    kind: "NodePool",
    object: np((o) => (o.metadata.labels = { a: "x".repeat(64) })),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "metadata.labels", message: "must be no more than 63 bytes" }],
  },
  {
    name: "accepts a null label value (decoded as the empty string)",
    kind: "NodePool",
    object: np((o) => (o.metadata.labels = { a: null })),
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "rejects an annotation key with a space",
    kind: "NodePool",
    object: np((o) => (o.metadata.annotations = { "a b": "x" })),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "metadata.annotations", message: `Invalid value: "a b": ${KEY}` }],
  },
  {
    name: "accepts an upper-case annotation key (checked lower-cased)",
    kind: "NodePool",
    object: np((o) => (o.metadata.annotations = { "Example.COM/Note": "free text, any value" })),
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "rejects annotations over 256 KiB in total",
    kind: "EC2NodeClass",
    object: nc((o) => (o.metadata.annotations = { a: "x".repeat(256 * 1024) })),
    apiserver: "reject",
    kerf: "deny",
    expect: [
      { policy: "schema", path: "metadata.annotations", message: "Too long: may not be more than 262144 bytes" },
    ],
  },
  {
    name: "rejects a finalizer with a space",
    kind: "NodePool",
    object: np((o) => (o.metadata.finalizers = ["a b"])),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "metadata.finalizers", message: KEY }],
  },
  {
    name: "accepts Karpenter's termination finalizer",
    kind: "NodePool",
    object: np((o) => (o.metadata.finalizers = ["karpenter.sh/termination"])),
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "rejects labels given as a list",
    kind: "NodePool",
    object: np((o) => (o.metadata.labels = ["a"])),
    apiserver: "reject",
    kerf: "deny",
    expect: [
      {
        policy: "schema",
        path: "metadata.labels",
        message: "json: cannot unmarshal array into Go struct field ObjectMeta.labels of type map[string]string",
      },
    ],
  },
  {
    name: "rejects a numeric label value",
    kind: "NodePool",
    object: np((o) => (o.metadata.labels = { a: 5 })),
    apiserver: "reject",
    kerf: "deny",
    expect: [
      {
        policy: "schema",
        path: "metadata.labels",
        message: "json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string",
      },
    ],
  },
  {
    name: "rejects a numeric name",
    kind: "EC2NodeClass",
    object: nc((o) => (o.metadata.name = 5)),
    apiserver: "reject",
    kerf: "deny",
    expect: [
      {
        policy: "schema",
        path: "metadata.name",
        message: "json: cannot unmarshal number into Go struct field ObjectMeta.name of type string",
      },
    ],
  },
  {
    name: "rejects finalizers given as a string",
    kind: "NodePool",
    object: np((o) => (o.metadata.finalizers = "karpenter.sh/termination")),
    apiserver: "reject",
    kerf: "deny",
    expect: [
      {
        policy: "schema",
        path: "metadata.finalizers",
        message: "json: cannot unmarshal string into Go struct field ObjectMeta.finalizers of type []string",
      },
    ],
  },
  {
    name: "rejects metadata given as a list",
    kind: "NodePool",
    object: np((o) => (o.metadata = [])),
    apiserver: "reject",
    kerf: "deny",
    expect: [
      {
        policy: "schema",
        path: "metadata",
        message: "json: cannot unmarshal array into Go value of type v1.ObjectMeta",
      },
    ],
  },
  {
    name: "accepts a null creationTimestamp",
    kind: "NodePool",
    object: np((o) => (o.metadata.creationTimestamp = null)),
    apiserver: "accept",
    kerf: "allow",
  },
];

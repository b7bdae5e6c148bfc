/**
 * Schema-aware mutations of valid NodePools and EC2NodeClasses for the differential test: every field path the
 * CRD schema knows (list items at index 0, map values under an existing or a new key), set to a value from a pool
 * of edge cases (wrong types, empty, too long, int64 and int32 bounds, duration/quantity/label syntax), deleted,
 * or joined by an unknown field. fast-check generates, seeds and shrinks them.
 */
import fc from "fast-check";
import type { SchemaNode } from "../../policies/api/schemas/openapi.ts";
import { SCHEMAS } from "../../policies/schema.ts";
import { EC2NODECLASS, NODEPOOL } from "../conformance/case.ts";

export type FuzzKind = "NodePool" | "EC2NodeClass";
type Segment = string | number;

/** One edit of a base object. */
export type Mutation =
  | { readonly op: "set"; readonly path: readonly Segment[]; readonly value: unknown }
  | { readonly op: "delete"; readonly path: readonly Segment[] };

/** A generated case: a base object of `kind` with `mutations` applied in order. */
export interface FuzzCase {
  readonly kind: FuzzKind;
  readonly mutations: readonly Mutation[];
}

/** A richer EC2NodeClass than the conformance base, so that nested fields (EBS, kubelet, metadata options) exist. */
const EC2NODECLASS_RICH: Record<string, unknown> = {
  ...EC2NODECLASS,
  spec: {
    ...(EC2NODECLASS["spec"] as Record<string, unknown>),
    blockDeviceMappings: [{ deviceName: "/dev/xvda", ebs: { volumeSize: "20Gi", volumeType: "gp3", encrypted: true, iops: 3000, throughput: 125 } }],
    kubelet: { maxPods: 110, systemReserved: { cpu: "100m" }, evictionHard: { "memory.available": "5%" } },
    metadataOptions: { httpTokens: "required", httpPutResponseHopLimit: 1 },
    tags: { team: "a" },
  },
};

const BASES: Readonly<Record<FuzzKind, Record<string, unknown>>> = { NodePool: NODEPOOL, EC2NodeClass: EC2NODECLASS_RICH };

/** Status is written by controllers, not users: mutating it says nothing about admission. */
const SKIPPED = new Set(["status", "apiVersion", "kind"]);
const MAX_DEPTH = 9;

/** Every path the schema knows below `node` (list items as index 0, map values under "team" and "x.y/z"). */
function schemaPaths(node: SchemaNode, prefix: readonly Segment[], depth: number, out: Segment[][]): void {
  if (depth > MAX_DEPTH) return;
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    if (prefix.length === 0 && SKIPPED.has(key)) continue;
    const path = [...prefix, key];
    out.push(path);
    schemaPaths(child, path, depth + 1, out);
  }
  if (node.items !== undefined) {
    out.push([...prefix, 0]);
    schemaPaths(node.items, [...prefix, 0], depth + 1, out);
  }
  if (node.additionalProperties !== undefined) {
    for (const key of ["team", "example.com/x"]) {
      out.push([...prefix, key]);
      schemaPaths(node.additionalProperties, [...prefix, key], depth + 1, out);
    }
  }
}

const METADATA_PATHS: readonly Segment[][] = [["metadata", "name"], ["metadata", "labels"], ["metadata", "labels", "team"], ["metadata", "labels", "a b"], ["metadata", "annotations"], ["metadata", "annotations", "example.com/x"], ["metadata", "finalizers"], ["metadata", "finalizers", 0], ["metadata", "generateName"]];

const PATHS: Readonly<Record<FuzzKind, readonly Segment[][]>> = {
  NodePool: collect("NodePool"),
  EC2NodeClass: collect("EC2NodeClass"),
};

function collect(kind: FuzzKind): Segment[][] {
  const out: Segment[][] = [...METADATA_PATHS];
  schemaPaths(SCHEMAS[kind], [], 0, out);
  return out;
}

/** Values that sit on the edges of what the CRDs and Kubernetes accept. */
const EDGE_VALUES: readonly unknown[] = [
  null, true, false, 0, 1, -1, 50, 51, 100, 101, 1.5, 2 ** 31 - 1, 2 ** 31, 2 ** 53, 2 ** 62, 2 ** 63, 1e20, -1e20,
  "", " ", "a", "a b", "A", "x".repeat(63), "x".repeat(64), "x".repeat(254), "ünïcode", "__proto__",
  "0s", "1m", "1h", "1h30m", "720h", "1d", "1.5h", "Never", "10%", "101%", "05%", "0", "5", "-1", "+5", "9223372036854775807", "9223372036854775808",
  "@daily", "@every 5m", "0 9 * * 1-5", "0 0 9 * * mon", "1Gi", "100Gi", "18Ti", "Ti", "-1Gi", "100m", "1.5", "1e3",
  "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte", "Foo",
  "karpenter.sh/foo", "karpenter.sh/nodepool", "kubernetes.io/hostname", "karpenter.k8s.aws/instance-family", "node.kubernetes.io/instance-type", "example.com/team",
  "al2023@latest", "al2@v1", "windows2022@v1", "ubuntu@latest", "AL2023", "Custom", "ami-123", "xx ami-1", "subnet-1", "sg-1",
  "enabled", "disabled", "required", "optional", "gp3", "io2", "NoSchedule", "WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced",
  [], {}, ["a"], ["a", "a"], [""], [null], [1], { a: "b" }, { "": "x" }, { a: null }, { a: 1 },
];

const mutation = (kind: FuzzKind): fc.Arbitrary<Mutation> => {
  const path = fc.constantFrom(...PATHS[kind]);
  return fc.oneof(
    { weight: 8, arbitrary: fc.record({ op: fc.constant("set" as const), path, value: fc.constantFrom(...EDGE_VALUES) }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("set" as const), path, value: fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })) }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant("delete" as const), path }) },
  );
};

/** Cases of either kind with one to three mutations. */
export const fuzzCase: fc.Arbitrary<FuzzCase> = fc.constantFrom<FuzzKind>("NodePool", "EC2NodeClass").chain((kind) =>
  fc.record({ kind: fc.constant(kind), mutations: fc.array(mutation(kind), { minLength: 1, maxLength: 3 }) }));

function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return typeof value === "object" && value !== null;
}

/**
 * The container that holds the last segment of `path`, created on the way when `create` (an object before a
 * name, a list before an index); undefined when it does not exist and is not created.
 */
function parentOf(root: unknown, path: readonly Segment[], create: boolean): unknown {
  let parent: unknown = root;
  for (let i = 0; i < path.length - 1; i++) {
    const step = path[i] as Segment;
    const container = parent as Record<string | number, unknown>;
    if (!isContainer(container[step])) {
      if (!create) return undefined;
      container[step] = typeof path[i + 1] === "number" ? [] : {};
    }
    parent = container[step];
  }
  return parent;
}

/** `base` with the mutations applied (missing containers created: an object for a name, a list for an index). */
export function build(c: FuzzCase): Record<string, unknown> {
  const object = structuredClone(BASES[c.kind]);
  for (const m of c.mutations) {
    const parent = parentOf(object, m.path, m.op === "set");
    const last = m.path[m.path.length - 1] as Segment;
    if (!isContainer(parent)) continue;
    // A list item is removed, not deleted: JSON has no holes (a hole would reach the apiserver as null).
    if (m.op === "delete" && Array.isArray(parent) && typeof last === "number") parent.splice(last, 1);
    else if (m.op === "delete") delete (parent as Record<string | number, unknown>)[last];
    else Object.defineProperty(parent, last, { value: structuredClone(m.value), writable: true, enumerable: true, configurable: true });
  }
  return object;
}

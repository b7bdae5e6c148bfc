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

/** A path the schema knows, with its schema node (undefined for metadata, which the CRD does not describe). */
interface KnownPath { readonly path: readonly Segment[]; readonly node: SchemaNode | undefined }

/** Every path the schema knows below `node` (list items as index 0, map values under "team" and "example.com/x"). */
function schemaPaths(node: SchemaNode, prefix: readonly Segment[], depth: number, out: KnownPath[]): void {
  if (depth > MAX_DEPTH) return;
  const visit = (path: Segment[], child: SchemaNode): void => {
    out.push({ path, node: child });
    schemaPaths(child, path, depth + 1, out);
  };
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    if (prefix.length === 0 && SKIPPED.has(key)) continue;
    visit([...prefix, key], child);
  }
  if (node.items !== undefined) visit([...prefix, 0], node.items);
  if (node.additionalProperties !== undefined) for (const key of ["team", "example.com/x"]) visit([...prefix, key], node.additionalProperties);
}

const METADATA_PATHS: readonly Segment[][] = [["metadata", "name"], ["metadata", "labels"], ["metadata", "labels", "team"], ["metadata", "labels", "a b"], ["metadata", "annotations"], ["metadata", "annotations", "example.com/x"], ["metadata", "finalizers"], ["metadata", "finalizers", 0], ["metadata", "generateName"]];

const PATHS: Readonly<Record<FuzzKind, readonly KnownPath[]>> = {
  NodePool: collect("NodePool"),
  EC2NodeClass: collect("EC2NodeClass"),
};

function collect(kind: FuzzKind): KnownPath[] {
  const out: KnownPath[] = METADATA_PATHS.map((path) => ({ path, node: undefined }));
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

const STRING_EDGES = EDGE_VALUES.filter((v): v is string => typeof v === "string");
const INTEGER_EDGES = EDGE_VALUES.filter((v): v is number => typeof v === "number" && Number.isInteger(v));

/** Values of the type the schema asks for, near its bounds: mutations that keep more objects acceptable. */
function typedValue(node: SchemaNode | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (node === undefined || depth > 2) return fc.constantFrom(...EDGE_VALUES);
  if (node.enum !== undefined && node.enum.length > 0) return fc.oneof(fc.constantFrom(...node.enum), fc.constantFrom(...STRING_EDGES));
  if (node.anyOf !== undefined) return fc.oneof(fc.constantFrom(...STRING_EDGES), fc.constantFrom(...INTEGER_EDGES));
  const bounds = [node.minimum, node.maximum].filter((b): b is number => b !== undefined).flatMap((b) => [b - 1, b, b + 1]);
  switch (node.type) {
    case "string": return fc.oneof(fc.constantFrom(...STRING_EDGES), fc.string({ maxLength: 8 }));
    case "integer": return fc.constantFrom(...INTEGER_EDGES, ...bounds);
    case "boolean": return fc.boolean();
    case "array": return fc.array(typedValue(node.items, depth + 1), { maxLength: 2 });
    case "object": {
      if (node.additionalProperties !== undefined) return fc.dictionary(fc.constantFrom("team", "example.com/x", "a b", ""), typedValue(node.additionalProperties, depth + 1), { maxKeys: 2 });
      return fc.constant({});
    }
    default: return fc.constantFrom(...EDGE_VALUES);
  }
}

const mutation = (kind: FuzzKind): fc.Arbitrary<Mutation> => fc.constantFrom(...PATHS[kind]).chain(({ path, node }) => fc.oneof(
  { weight: 6, arbitrary: typedValue(node).map((value): Mutation => ({ op: "set", path, value })) },
  { weight: 3, arbitrary: fc.constantFrom(...EDGE_VALUES).map((value): Mutation => ({ op: "set", path, value })) },
  { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })).map((value): Mutation => ({ op: "set", path, value })) },
  { weight: 2, arbitrary: fc.constant<Mutation>({ op: "delete", path }) },
));

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

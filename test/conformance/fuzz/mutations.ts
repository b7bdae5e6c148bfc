// Schema-aware mutations of valid objects: every field of a CRD's OpenAPI schema (plus ObjectMeta) can be set to a
// valid, boundary or wrong-typed value, to null, or deleted; maps get keys from Karpenter's vocabulary (and __proto__).
import fc from "fast-check";
import {
  BUDGET_NODES,
  BY_FIELD,
  CRONS,
  DURATIONS,
  LABEL_KEYS,
  MAP_KEYS,
  MAP_VALUES,
  OPERATORS,
  REQUIREMENT_VALUES,
  TRICKY_CHARS,
  VOLUME_SIZES,
  WRONG_TYPES,
} from "./dictionary.ts";

/** The part of an OpenAPI v3 schema node the generator reads. */
export interface SchemaNode {
  type?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  enum?: unknown[];
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  "x-kubernetes-int-or-string"?: boolean;
}

/** A path step: a property, an array index, or a map key (the last two chosen when the mutation is drawn). */
type Step = { prop: string } | { index: true } | { mapKey: string };

interface Field {
  steps: Step[];
  node: SchemaNode;
  name: string;
  dotted: string;
}

/** One change to an object: a concrete path and a value, or a deletion. */
export type Mutation =
  { op: "set"; path: (string | number)[]; value: unknown } | { op: "delete"; path: (string | number)[] };

/** ObjectMeta as the apiserver decodes it (the CRD schema says only `type: object`). */
const METADATA: SchemaNode = {
  type: "object",
  properties: {
    name: { type: "string" },
    generateName: { type: "string" },
    labels: { type: "object", additionalProperties: { type: "string", maxLength: 63 } },
    annotations: { type: "object", additionalProperties: { type: "string" } },
    finalizers: { type: "array", items: { type: "string" } },
  },
};

const MAX_DEPTH = 9;

/** Every field under metadata and spec, in a stable order. */
export function schemaFields(root: SchemaNode): Field[] {
  const out: Field[] = [];
  const walk = (node: SchemaNode, steps: Step[], name: string, dotted: string): void => {
    out.push({ steps, node, name, dotted });
    if (steps.length >= MAX_DEPTH) return;
    for (const [prop, child] of Object.entries(node.properties ?? {})) {
      walk(child, [...steps, { prop }], prop, dotted === "" ? prop : `${dotted}.${prop}`);
    }
    if (node.items !== undefined) walk(node.items, [...steps, { index: true }], name, dotted);
    if (typeof node.additionalProperties === "object")
      walk(node.additionalProperties, [...steps, { mapKey: name }], name, dotted);
  };
  walk(METADATA, [{ prop: "metadata" }], "metadata", "metadata");
  const spec = root.properties?.["spec"];
  if (spec !== undefined) walk(spec, [{ prop: "spec" }], "spec", "spec");
  return out;
}

const DEPTH_LIMIT = 2;

/** Strings matching the schema's pattern, when fast-check can read it as a JavaScript regex. */
function patternStrings(pattern: string | undefined): fc.Arbitrary<string>[] {
  if (pattern === undefined) return [];
  try {
    return [fc.stringMatching(new RegExp(pattern), { size: "xsmall" })];
  } catch {
    return [];
  }
}

function stringValues(node: SchemaNode): fc.Arbitrary<unknown> {
  const arbs: fc.Arbitrary<unknown>[] = [];
  if (node.enum !== undefined) arbs.push(fc.constantFrom(...node.enum));
  arbs.push(...patternStrings(node.pattern));
  const bounds: string[] = [];
  if (node.maxLength !== undefined) bounds.push("a".repeat(node.maxLength), "a".repeat(node.maxLength + 1));
  if (node.minLength !== undefined && node.minLength > 0) bounds.push("a".repeat(node.minLength - 1));
  if (bounds.length > 0) arbs.push(fc.constantFrom(...bounds));
  if (node.format === "date-time") arbs.push(fc.constantFrom("2024-01-01T00:00:00Z", "yesterday"));
  arbs.push(fc.string({ maxLength: 8 }));
  return fc.oneof(...arbs);
}

function integerValues(node: SchemaNode): fc.Arbitrary<unknown> {
  const min = node.minimum ?? (node.format === "int32" ? -(2 ** 31) : -(2 ** 53));
  const max = node.maximum ?? (node.format === "int32" ? 2 ** 31 - 1 : 2 ** 53);
  const edges = [min, max, min - 1, max + 1, 0, 1, -1, 2 ** 31 - 1, 2 ** 31, 2 ** 63, 1e20, -1e20, 1.5];
  return fc.oneof(fc.integer({ min: Math.max(min, -1000), max: Math.min(max, 1000) }), fc.constantFrom(...edges));
}

/** A near miss: a string with one tricky character put before, inside or after it, or in place of a space. */
function nearMiss(strings: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.tuple(strings, fc.constantFrom(...TRICKY_CHARS), fc.nat(3)).map(([s, c, where]) => {
    if (typeof s !== "string") return s;
    const middle = Math.floor(s.length / 2);
    if (where === 3 && s.includes(" ")) return s.replace(/ (?=[^ ]*$)/, c);
    return where === 0 ? `${c}${s}` : where === 1 ? `${s.slice(0, middle)}${c}${s.slice(middle)}` : `${s}${c}`;
  });
}

function withExtras(arb: fc.Arbitrary<unknown>, extras: readonly unknown[] | undefined): fc.Arbitrary<unknown> {
  const both = extras === undefined || extras.length === 0 ? arb : fc.oneof(arb, fc.constantFrom(...extras));
  return fc.oneof({ arbitrary: both, weight: 4 }, { arbitrary: nearMiss(both), weight: 1 });
}

/** Builds a JSON object keyed by `key`, keeping keys like __proto__ as own properties. */
function entriesToObject(entries: [string, unknown][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries)
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

/** A word of Karpenter's vocabulary, now and then a near miss of one. */
const word = (words: readonly string[]): fc.Arbitrary<unknown> =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...words), weight: 4 },
    { arbitrary: nearMiss(fc.constantFrom(...words)), weight: 1 },
  );
const optional = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined, freq: 3 });
const defined = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** Whole list items from Karpenter's vocabulary, by list name: the combinations per-field values rarely reach. */
const TAINT = fc
  .record({
    key: word(LABEL_KEYS),
    value: optional(fc.constantFrom("", "x", "true", "a".repeat(63), "a".repeat(64), "a b", "-a")),
    effect: fc.constantFrom("NoSchedule", "PreferNoSchedule", "NoExecute", "noschedule", ""),
  })
  .map(defined);

const ITEMS: Readonly<Record<string, fc.Arbitrary<unknown>>> = {
  requirements: fc
    .record({
      key: word(LABEL_KEYS),
      operator: word(OPERATORS),
      values: optional(fc.array(word(REQUIREMENT_VALUES), { maxLength: 3 })),
      minValues: optional(fc.constantFrom(0, 1, 2, 3, 50, 51, 2 ** 63)),
    })
    .map(defined),
  taints: TAINT,
  startupTaints: TAINT,
  budgets: fc
    .record({
      nodes: word(BUDGET_NODES),
      schedule: optional(word(CRONS)),
      duration: optional(word(DURATIONS)),
      reasons: optional(fc.array(fc.constantFrom("Drifted", "Empty", "Underutilized", "drifted"), { maxLength: 3 })),
    })
    .map(defined),
  blockDeviceMappings: fc
    .record({
      deviceName: optional(fc.constantFrom("/dev/xvda", "/dev/xvdb", "")),
      rootVolume: optional(fc.boolean()),
      ebs: optional(
        fc
          .record({
            volumeSize: optional(word(VOLUME_SIZES)),
            snapshotID: optional(fc.constantFrom("snap-0123456789abcdef0", "", "snap")),
            volumeType: optional(fc.constantFrom("gp3", "io2", "st1", "GP3")),
            iops: optional(fc.constantFrom(3000, 0, -1, 64000, 256001, 2 ** 63)),
            throughput: optional(fc.constantFrom(125, 0, 1000, 2001, 2 ** 63)),
            volumeInitializationRate: optional(fc.constantFrom(100, 300, 99, 301)),
            encrypted: optional(fc.boolean()),
          })
          .map(defined),
      ),
    })
    .map(defined),
};

/** A value for a schema node: valid by type (with dictionary extras), boundaries, occasionally a wrong type. */
function valueOf(node: SchemaNode, name: string, dotted: string, depth: number): fc.Arbitrary<unknown> {
  const item = node.type === "object" ? ITEMS[name] : undefined;
  const extras = item === undefined ? (BY_FIELD[dotted] ?? BY_FIELD[name]) : undefined;
  const wrong = fc.constantFrom(...WRONG_TYPES);
  let valid: fc.Arbitrary<unknown>;
  if (node["x-kubernetes-int-or-string"] === true) {
    valid = fc.oneof(stringValues(node), integerValues(node));
  } else if (node.type === "string") {
    valid = stringValues(node);
  } else if (node.type === "integer" || node.type === "number") {
    valid = integerValues(node);
  } else if (node.type === "boolean") {
    valid = fc.boolean();
  } else if (node.type === "array") {
    const item = node.items === undefined ? wrong : valueOf(node.items, name, dotted, depth + 1);
    const maxLength = Math.min(node.maxItems ?? 3, 3) + (node.maxItems !== undefined && node.maxItems <= 3 ? 1 : 0);
    valid = depth >= DEPTH_LIMIT ? fc.constant([]) : fc.array(item, { maxLength });
  } else if (node.type === "object" || node.properties !== undefined || node.additionalProperties !== undefined) {
    valid = depth >= DEPTH_LIMIT ? fc.constant({}) : objectValues(node, name, dotted, depth);
  } else {
    valid = wrong;
  }
  const typed =
    item === undefined
      ? withExtras(valid, extras)
      : fc.oneof({ arbitrary: item, weight: 3 }, { arbitrary: valid, weight: 1 });
  return fc.oneof({ arbitrary: typed, weight: 6 }, { arbitrary: wrong, weight: 1 });
}

function objectValues(node: SchemaNode, name: string, dotted: string, depth: number): fc.Arbitrary<unknown> {
  if (typeof node.additionalProperties === "object") {
    const values = withExtras(valueOf(node.additionalProperties, name, dotted, depth + 1), MAP_VALUES[name]);
    const key = fc.constantFrom(...(MAP_KEYS[name] ?? LABEL_KEYS));
    return fc.uniqueArray(fc.tuple(key, values), { maxLength: 3, selector: ([k]) => k }).map(entriesToObject);
  }
  const props = Object.entries(node.properties ?? {});
  if (props.length === 0) return fc.constant({});
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [prop, child] of props) record[prop] = valueOf(child, prop, `${dotted}.${prop}`, depth + 1);
  return fc.record(record, { requiredKeys: [] });
}

/** The concrete path of a field: indices 0–2 (past the end appends), map keys from the vocabulary. */
function pathOf(steps: Step[]): fc.Arbitrary<(string | number)[]> {
  const parts = steps.map((s): fc.Arbitrary<string | number> => {
    if ("prop" in s) return fc.constant(s.prop);
    if ("index" in s) return fc.oneof({ arbitrary: fc.nat(1), weight: 4 }, { arbitrary: fc.constant(2), weight: 1 });
    return fc.constantFrom(...(MAP_KEYS[s.mapKey] ?? LABEL_KEYS));
  });
  return fc.tuple(...parts);
}

/** A mutation of one schema field: a new value (mostly), null, deletion, or an unknown sibling field. */
export function mutationOf(field: Field): fc.Arbitrary<Mutation> {
  const path = pathOf(field.steps);
  const map = typeof field.node.additionalProperties === "object" ? field.node.additionalProperties : undefined;
  const arbs: fc.WeightedArbitrary<Mutation>[] = [
    {
      arbitrary: fc
        .tuple(path, valueOf(field.node, field.name, field.dotted, 0))
        .map(([p, value]) => ({ op: "set", path: p, value })),
      weight: 8,
    },
    { arbitrary: path.map((p) => ({ op: "delete", path: p })), weight: 2 },
    { arbitrary: path.map((p) => ({ op: "set", path: p, value: null })), weight: 1 },
  ];
  if (field.node.properties !== undefined) {
    arbs.push({ arbitrary: path.map((p) => ({ op: "set", path: [...p, "unknownField"], value: "x" })), weight: 1 });
  }
  if (map !== undefined) {
    const keys = fc.constantFrom(...(MAP_KEYS[field.name] ?? LABEL_KEYS));
    const value = withExtras(valueOf(map, field.name, field.dotted, 1), MAP_VALUES[field.name]);
    arbs.push({
      arbitrary: fc.tuple(path, keys, value).map(([p, k, v]) => ({ op: "set", path: [...p, k], value: v })),
      weight: 3,
    });
  }
  return fc.oneof(...arbs);
}

function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return typeof value === "object" && value !== null;
}

function ownGet(container: Record<string, unknown> | unknown[], key: string | number): unknown {
  return Object.hasOwn(container, key) ? (container as Record<string, unknown>)[key] : undefined;
}

function ownSet(container: Record<string, unknown> | unknown[], key: string | number, value: unknown): void {
  if (Array.isArray(container) && typeof key === "number") {
    container[Math.min(key, container.length)] = value;
    return;
  }
  Object.defineProperty(container, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Applies a mutation to `object` in place, creating missing containers along the path (arrays for indices). */
export function applyMutation(object: Record<string, unknown>, mutation: Mutation): void {
  let container: Record<string, unknown> | unknown[] = object;
  const { path } = mutation;
  for (let i = 0; i < path.length - 1; i++) {
    const step = path[i] as string | number;
    const key = Array.isArray(container) && typeof step === "number" ? Math.min(step, container.length) : step;
    let next = ownGet(container, key);
    if (!isContainer(next)) {
      if (mutation.op === "delete") return;
      next = typeof path[i + 1] === "number" ? [] : {};
      ownSet(container, key, next);
    }
    container = next as Record<string, unknown> | unknown[];
  }
  const last = path[path.length - 1] as string | number;
  if (mutation.op === "set") ownSet(container, last, structuredCloneJson(mutation.value));
  else if (Array.isArray(container) && typeof last === "number") container.splice(last, 1);
  else if (Object.hasOwn(container, last)) delete (container as Record<string, unknown>)[last];
}

/** A deep copy through JSON, which keeps own keys such as __proto__ (structuredClone would too, JSON is the wire). */
export function structuredCloneJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** A generated object: which base it started from, the mutations, and the result. */
export interface Generated {
  kind: "NodePool" | "EC2NodeClass";
  base: number;
  mutations: Mutation[];
  object: Record<string, unknown>;
}

/**
 * Objects of one kind: a valid base with one or two schema mutations (so most rejections have one cause);
 * shrinking drops the extra mutations before it simplifies the first.
 */
export function generatedObjects(
  kind: Generated["kind"],
  schema: SchemaNode,
  bases: readonly Record<string, unknown>[],
): fc.Arbitrary<Generated> {
  const perField = schemaFields(schema).map(mutationOf);
  const mutation = fc.nat(perField.length - 1).chain((i) => perField[i] as fc.Arbitrary<Mutation>);
  return fc
    .tuple(
      fc.nat(bases.length - 1),
      fc.tuple(mutation, fc.array(mutation, { maxLength: 2, size: "xsmall" })).map(([first, rest]) => [first, ...rest]),
    )
    .map(([base, mutations]) => {
      const object = structuredCloneJson(bases[base] as Record<string, unknown>);
      for (const m of mutations) applyMutation(object, m);
      return { kind, base, mutations, object };
    });
}

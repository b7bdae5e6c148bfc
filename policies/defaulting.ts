// Structural defaulting as the apiserver does it: absent (or null) fields get the schema default, recursively.
import type { SchemaNode } from "./api/schemas/openapi.ts";
import { ownValue, setOwn } from "./object.ts";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Deep copy of a JSON value (much cheaper than structuredClone for small manifests). */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) setOwn(out, k, cloneJson(v));
  return out as T;
}

/** The properties of an object schema that carry a default, computed once per schema node. */
const withDefaults = new WeakMap<SchemaNode, readonly (readonly [string, SchemaNode])[]>();

function defaultedProperties(schema: SchemaNode): readonly (readonly [string, SchemaNode])[] {
  let found = withDefaults.get(schema);
  if (found === undefined) {
    found = Object.entries(schema.properties ?? {}).filter(([, child]) => child.default !== undefined);
    withDefaults.set(schema, found);
  }
  return found;
}

/**
 * Returns `value` with its schema defaults applied. Like the apiserver: a property that is absent or
 * null gets a copy of its default and is then defaulted itself (so `disruption: {}` and an absent
 * `disruption` both gain nested defaults); null without a default is pruned, in maps too; present values are never
 * rewritten. Copy-on-write: the input is never modified, and a subtree that needs no default is
 * returned as the same reference (so an object without defaults to add costs a walk, not a copy).
 */
export function applySchemaDefaults(schema: SchemaNode, value: unknown): unknown {
  if (Array.isArray(value)) return schema.items === undefined ? value : defaultItems(schema.items, value);
  if (!isObject(value)) return value;
  return defaultObject(schema, value);
}

function defaultItems(schema: SchemaNode, value: readonly unknown[]): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < value.length; i++) {
    const next = applySchemaDefaults(schema, value[i]);
    if (out === undefined && next !== value[i]) out = value.slice(0, i);
    out?.push(next);
  }
  return out ?? (value as unknown[]);
}

/** A shallow copy of the first `count` entries (all unchanged so far). */
function copyOf(value: Record<string, unknown>, keys: readonly string[], count: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    const key = keys[i] as string;
    setOwn(out, key, value[key]);
  }
  return out;
}

/**
 * Whether the apiserver prunes `child`: a null property or map value whose schema is known (kerf's schemas
 * have no `nullable`), as PruneNonNullableNullsWithoutDefaults does; a pruned field with a default gets it back
 * in addDefaults. Null list items are kept (and fail validation), as upstream.
 */
function pruned(child: unknown, childSchema: SchemaNode | undefined): boolean {
  return child === null && childSchema !== undefined;
}

function defaultObject(schema: SchemaNode, value: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(value);
  let out: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const child = value[key];
    const childSchema = ownValue(schema.properties, key) ?? schema.additionalProperties;
    if (pruned(child, childSchema)) {
      out ??= copyOf(value, keys, i); // the copy simply lacks the pruned field
      continue;
    }
    const next = childSchema === undefined ? child : applySchemaDefaults(childSchema, child);
    if (out === undefined && next !== child) out = copyOf(value, keys, i);
    if (out !== undefined) setOwn(out, key, next);
  }
  return addDefaults(schema, value, keys, out);
}

/** Fills absent properties with (defaulted copies of) their defaults; copies `value` on the first one. */
function addDefaults(
  schema: SchemaNode,
  value: Record<string, unknown>,
  keys: readonly string[],
  copied: Record<string, unknown> | undefined,
): Record<string, unknown> {
  let out = copied;
  for (const [key, childSchema] of defaultedProperties(schema)) {
    if ((out ?? value)[key] !== undefined) continue;
    out ??= copyOf(value, keys, keys.length);
    out[key] = applySchemaDefaults(childSchema, cloneJson(childSchema.default));
  }
  return out ?? value;
}

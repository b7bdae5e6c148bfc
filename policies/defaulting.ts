// Structural defaulting as the apiserver does it: absent (or null) fields get the schema default, recursively.
import type { SchemaNode } from "./api/schemas/openapi.ts";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Deep copy of a JSON value (much cheaper than structuredClone for small manifests). */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = cloneJson(v);
  return out as T;
}

/**
 * Returns a defaulted deep copy of `value`. Like the apiserver: a property that is absent or null gets a
 * copy of its default and is then defaulted itself (so `disruption: {}` and an absent `disruption` both
 * gain nested defaults); null without a default is pruned; present values are never rewritten.
 */
export function applySchemaDefaults(schema: SchemaNode, value: unknown): unknown {
  if (Array.isArray(value)) return schema.items === undefined ? cloneJson(value) : value.map((v) => applySchemaDefaults(schema.items as SchemaNode, v));
  if (!isObject(value)) return cloneJson(value);
  return defaultObject(schema, value);
}

function defaultObject(schema: SchemaNode, value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const properties = schema.properties ?? {};
  for (const [key, child] of Object.entries(value)) {
    const childSchema = properties[key] ?? schema.additionalProperties;
    if (child === null && childSchema !== undefined && schema.properties !== undefined) continue;
    out[key] = childSchema === undefined ? cloneJson(child) : applySchemaDefaults(childSchema, child);
  }
  for (const [key, childSchema] of Object.entries(properties)) {
    if (out[key] === undefined && childSchema.default !== undefined) out[key] = applySchemaDefaults(childSchema, cloneJson(childSchema.default));
  }
  return out;
}

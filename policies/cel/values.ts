// JSON values as the apiserver hands them to CRD rules (UnstructuredToVal): typed by the schema, unknown fields pruned.
import type { CelInput } from "@bufbuild/cel";
import type { SchemaNode } from "../api/schemas/openapi.ts";

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A JSON number as CEL sees it where the schema does not say: an integer literal is an int, anything else a double. */
function untypedNumber(value: number): CelInput {
  return Number.isSafeInteger(value) ? BigInt(value) : value;
}

/** A value under x-kubernetes-preserve-unknown-fields (or of an int-or-string field): typed by its JSON form. */
function untyped(value: unknown): CelInput {
  if (typeof value === "number") return untypedNumber(value);
  if (Array.isArray(value)) return value.map(untyped);
  if (isObject(value)) {
    const map = new Map<string, CelInput>();
    for (const key of Object.keys(value)) if (value[key] !== undefined) map.set(key, untyped(value[key]));
    return map;
  }
  return value as CelInput;
}

function scalar(value: unknown, schema: SchemaNode): CelInput {
  if (typeof value !== "number") return value as CelInput;
  if (schema.type === "integer") return Number.isFinite(value) ? BigInt(Math.trunc(value)) : value;
  if (schema["x-kubernetes-int-or-string"] === true) return untypedNumber(value);
  // `type: number` is a double even when the JSON literal is integral.
  return schema.type === "number" ? value : untypedNumber(value);
}

/** The fields of the resource root a rule may read: metadata is only name and generateName (as the apiserver does). */
function rootMetadata(value: unknown): CelInput {
  const map = new Map<string, CelInput>();
  if (!isObject(value)) return map;
  for (const key of ["name", "generateName"]) if (typeof value[key] === "string") map.set(key, value[key]);
  return map;
}

function object(value: Json, schema: SchemaNode, convert: Converter, isRoot: boolean): Map<string, CelInput> {
  const map = new Map<string, CelInput>();
  const { properties, additionalProperties } = schema;
  const preserve = schema["x-kubernetes-preserve-unknown-fields"] === true;
  for (const key of Object.keys(value)) {
    const field = value[key];
    // Null fields are pruned by the apiserver (Karpenter's schemas declare nothing nullable): absent to rules.
    if (field === undefined || field === null) continue;
    const property = properties === undefined || !Object.hasOwn(properties, key) ? undefined : properties[key];
    if (isRoot && key === "metadata") map.set(key, rootMetadata(field));
    else if (property !== undefined) map.set(key, convert(field, property));
    else if (additionalProperties !== undefined) map.set(key, convert(field, additionalProperties));
    else if (preserve) map.set(key, untyped(field));
  }
  return map;
}

/**
 * Converts a JSON value at a schema node; memoised per evaluation, since rules at
 * nested nodes convert subtrees again.
 */
export type Converter = (value: unknown, schema: SchemaNode) => CelInput;

/** A converter for one evaluation (one object): objects and lists are converted once per schema node. */
export function newConverter(root: SchemaNode): Converter {
  const cache = new WeakMap<object, { schema: SchemaNode; converted: CelInput }>();
  const convert: Converter = (value, schema) => {
    if (typeof value !== "object" || value === null) return scalar(value, schema);
    const hit = cache.get(value);
    if (hit?.schema === schema) return hit.converted;
    let converted: CelInput;
    if (Array.isArray(value)) {
      const items = schema.items;
      // A list of strings is its own CEL value (strings convert to themselves): no copy of large value lists.
      converted = value.every((item) => typeof item === "string")
        ? (value as string[])
        : value.map((item) => (items === undefined ? untyped(item) : convert(item, items)));
    } else if (schema.properties === undefined && schema.additionalProperties === undefined) {
      converted = schema["x-kubernetes-preserve-unknown-fields"] === true ? untyped(value) : new Map();
    } else {
      converted = object(value as Json, schema, convert, schema === root);
    }
    cache.set(value, { schema, converted });
    return converted;
  };
  return convert;
}

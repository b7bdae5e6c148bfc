// Apiserver-style field paths ("spec.limits[cpu]", "spec.template.spec.requirements[0].key") built by walking the schema.
import type { SchemaNode } from "./api/schemas/openapi.ts";
import { ownValue } from "./object.ts";

/** One step into a JSON value: an object property, a map key or a list index. */
export type Segment = string | number;

/**
 * Joins segments the way the apiserver prints field paths: properties with ".", list indexes and
 * map keys (schema additionalProperties) in brackets. Unknown parts fall back to ".name" / "[n]".
 */
export function fieldPath(schema: SchemaNode | undefined, segments: readonly Segment[]): string {
  let node = schema;
  let out = "";
  for (const segment of segments) {
    const step = stepInto(node, String(segment));
    out += step.bracket ? `[${segment}]` : out === "" ? String(segment) : `.${segment}`;
    node = step.node;
  }
  return out;
}

function stepInto(node: SchemaNode | undefined, text: string): { bracket: boolean; node: SchemaNode | undefined } {
  const property = ownValue(node?.properties, text);
  if (property !== undefined) return { bracket: false, node: property };
  if (node?.items !== undefined || /^\d+$/.test(text)) return { bracket: true, node: node?.items };
  if (node?.additionalProperties !== undefined) return { bracket: true, node: node.additionalProperties };
  return { bracket: false, node: undefined };
}

/** Joins plain segments without a schema: numbers become "[n]", names ".name", keys with "/" or "." "[key]". */
export function joinPath(...segments: readonly Segment[]): string {
  let out = "";
  for (const segment of segments) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(segment)) out += out === "" ? segment : `.${segment}`;
    else out += `[${segment}]`;
  }
  return out;
}

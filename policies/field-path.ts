// Apiserver-style field paths ("spec.limits.cpu",
// "spec.template.spec.requirements[0].key") built by walking the schema.
import type { SchemaNode } from "./api/schemas/openapi.ts";
import { ownValue } from "./object.ts";

/** One step into a JSON value: an object property, a map key or a list index. */
export type Segment = string | number;

/**
 * Joins segments the way the apiserver prints schema (OpenAPI) errors: properties and map keys (schema
 * additionalProperties) with "." (kube-openapi joins the raw key: "spec.template.metadata.labels.karpenter.sh/x"),
 * list indexes in brackets. Unknown parts fall back to ".name" / "[n]".
 */
export function fieldPath(schema: SchemaNode | undefined, segments: readonly Segment[]): string {
  let node = schema;
  let out = "";
  for (const segment of segments) {
    const step = stepInto(node, String(segment));
    out += step.index ? `[${segment}]` : out === "" ? String(segment) : `.${segment}`;
    node = step.node;
  }
  return out;
}

function stepInto(node: SchemaNode | undefined, text: string): { index: boolean; node: SchemaNode | undefined } {
  const property = ownValue(node?.properties, text);
  if (property !== undefined) return { index: false, node: property };
  if (node?.items !== undefined) return { index: true, node: node.items };
  if (node?.additionalProperties !== undefined) return { index: false, node: node.additionalProperties };
  return { index: /^\d+$/.test(text), node: undefined };
}

/** Joins plain segments without a schema, in the same notation: numbers become "[n]", names and map keys ".key". */
export function joinPath(...segments: readonly Segment[]): string {
  let out = "";
  for (const segment of segments)
    out += typeof segment === "number" ? `[${segment}]` : out === "" ? segment : `.${segment}`;
  return out;
}

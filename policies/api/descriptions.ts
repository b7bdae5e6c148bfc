// The `description`s of a CRD schema by location, read from Karpenter's published CRDs (vendored by
// .ci/crds/vendor-descriptions.ts) and put back onto kerf's generated schema, so `kubectl explain` reads as for
// Karpenter. Locations: "" the root, ".spec.x" a property, "[]" list items, "{}" map values. Pure.
import type { SchemaNode } from "./schemas/openapi.ts";

interface Walkable {
  description?: unknown;
  properties?: Record<string, unknown>;
  items?: unknown;
  additionalProperties?: unknown;
}

function children(node: Walkable, at: string): [string, unknown][] {
  const out: [string, unknown][] = Object.entries(node.properties ?? {}).map(([name, child]) => [
    `${at}.${name}`,
    child,
  ]);
  if (typeof node.items === "object" && node.items !== null) out.push([`${at}[]`, node.items]);
  if (typeof node.additionalProperties === "object" && node.additionalProperties !== null)
    out.push([`${at}{}`, node.additionalProperties]);
  return out;
}

/** Every description of a schema by location, in walk order. */
export function descriptionsOf(schema: unknown, at = "", out: Record<string, string> = {}): Record<string, string> {
  if (typeof schema !== "object" || schema === null) return out;
  const node = schema as Walkable;
  if (typeof node.description === "string") out[at] = node.description;
  for (const [where, child] of children(node, at)) descriptionsOf(child, where, out);
  return out;
}

/** A copy of the schema with each location's description (where one is known); the schema is not changed. */
export function withDescriptions(
  schema: SchemaNode,
  descriptions: Readonly<Record<string, string>>,
  at = "",
): SchemaNode {
  const text = Object.hasOwn(descriptions, at) ? descriptions[at] : undefined;
  // The description comes first, as controller-gen writes it, so a reader meets it before the details.
  const out: SchemaNode = text === undefined ? { ...schema } : { description: text, ...schema };
  if (schema.properties !== undefined) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([name, child]) => [
        name,
        withDescriptions(child, descriptions, `${at}.${name}`),
      ]),
    );
  }
  if (schema.items !== undefined) out.items = withDescriptions(schema.items, descriptions, `${at}[]`);
  if (schema.additionalProperties !== undefined)
    out.additionalProperties = withDescriptions(schema.additionalProperties, descriptions, `${at}{}`);
  return out;
}

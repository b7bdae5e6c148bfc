// The x-kubernetes-validations of Karpenter v1.15.1's own CRDs, read from the vendored release (releases/), so that
// kerf's generated CRDs carry the upstream rules byte for byte without a second, hand-kept copy.
import type { Kind } from "../types.ts";
import { bundledKarpenterApi } from "./releases/index.ts";
import type { SchemaNode, ValidationRule } from "./schemas/openapi.ts";

/** The release kerf's own schemas (schemas/) describe. */
const CONTRACT_VERSION = "1.15.1";

/** The upstream rules at a schema location (".spec.template.spec.requirements[].key"; "[]" = list items), in order. */
export function upstreamRulesAt(kind: Kind, on: string): ValidationRule[] {
  let node: SchemaNode | undefined = bundledKarpenterApi(CONTRACT_VERSION).schemas[kind];
  for (const part of on.split(".").filter((p) => p !== "")) {
    const name = part.replace(/\[\]$/, "");
    node = node?.properties !== undefined && Object.hasOwn(node.properties, name) ? node.properties[name] : undefined;
    if (part.endsWith("[]")) node = node?.items;
  }
  if (node === undefined)
    throw new Error(`reading Karpenter ${CONTRACT_VERSION} ${kind} rules at ${on}: no such schema node`);
  return node["x-kubernetes-validations"] ?? [];
}

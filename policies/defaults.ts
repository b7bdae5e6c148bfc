// The defaults applied before validation: the CRD schema defaults plus kerf's GitOps fix-ups per kind.
import { applyNodePoolDefaults } from "./nodepool/defaults.ts";
import { applySchemaDefaults } from "./defaulting.ts";
import { bundledKarpenterApi, type KarpenterApi } from "./api/releases/index.ts";
import type { Kind } from "./types.ts";

/**
 * `object` with its defaults applied (copy-on-write: unchanged subtrees are shared, the input is never
 * modified): exactly the structural defaults of the CRD in `api` (default: the bundled release;
 * karpenter-v1-api.md §9), nulls pruned where that schema knows the field, and, for NodePools,
 * `consolidateAfter: 0s` inside a `disruption` block that lacks it (CRDs before v1.15 require it, which
 * breaks server-side dry-run: §9, §10.17). Present values are never rewritten.
 */
export function applyDefaults(
  kind: Kind,
  object: Record<string, unknown>,
  api: KarpenterApi = bundledKarpenterApi(),
): Record<string, unknown> {
  const source = kind === "NodePool" ? applyNodePoolDefaults(object) : object;
  return applySchemaDefaults(api.schemas[kind], source) as Record<string, unknown>;
}

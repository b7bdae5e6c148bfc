// The defaults applied before validation: the CRD schema defaults plus kerf's GitOps fix-ups per kind.
import { applyNodePoolDefaults } from "./nodepool/defaults.ts";
import { applySchemaDefaults } from "./defaulting.ts";
import { EC2NODECLASS_SCHEMA } from "./api/schemas/ec2nodeclass.schema.ts";
import { NODECLAIM_SCHEMA } from "./api/schemas/nodeclaim.schema.ts";
import { NODEPOOL_SCHEMA } from "./api/schemas/nodepool.schema.ts";
import type { SchemaNode } from "./api/schemas/openapi.ts";
import type { Kind } from "./types.ts";

/** The schemas whose defaults kerf applies (kerf's v1.14.1 contract, whichever API the object is then judged against). */
const SCHEMAS: Readonly<Record<Kind, SchemaNode>> = {
  NodePool: NODEPOOL_SCHEMA,
  NodeClaim: NODECLAIM_SCHEMA,
  EC2NodeClass: EC2NODECLASS_SCHEMA,
};

/**
 * `object` with its defaults applied (copy-on-write: unchanged subtrees are shared, the input is never modified): exactly the CRD's structural defaults (karpenter-v1-api.md §9) and,
 * for NodePools, `consolidateAfter: 0s` inside a `disruption` block that lacks it (the released CRDs
 * require it, which breaks server-side dry-run: §9, §10.17). Present values are never rewritten.
 */
export function applyDefaults(kind: Kind, object: Record<string, unknown>): Record<string, unknown> {
  const source = kind === "NodePool" ? applyNodePoolDefaults(object) : object;
  return applySchemaDefaults(SCHEMAS[kind], source) as Record<string, unknown>;
}

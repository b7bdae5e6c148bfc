// The list of every policy by kind: the one place to read what kerf checks (schema findings come from schema.ts first).
import { CEL_POLICY } from "./cel/policy.ts";
import { EBS_ENCRYPTED_POLICY, IMDSV2_POLICY } from "./ec2nodeclass/security.ts";
import { EC2NODECLASS_RUNTIME_POLICY } from "./ec2nodeclass/runtime.ts";
import { EC2NODECLASS_STRICT_POLICY } from "./ec2nodeclass/strict.ts";
import { BUDGET_SCHEDULE_POLICY } from "./nodepool/budgets.ts";
import { KERF_ANNOTATIONS_POLICY } from "./nodepool/kerf-annotations.ts";
import { REQUIREMENTS_SATISFIABLE_POLICY, SPOT_DIVERSITY_POLICY } from "./nodepool/catalog-checks.ts";
import { ZONE_REGION_POLICY } from "./nodepool/zone-region.ts";
import { LIMITS_REQUIRED_POLICY } from "./nodepool/limits.ts";
import { NODECLASSREF_POLICY } from "./nodepool/nodeclassref.ts";
import { NODEPOOL_RUNTIME_POLICY } from "./nodepool/runtime.ts";
import { NODEPOOL_STRICT_POLICY } from "./nodepool/strict.ts";
import { OPERATOR_IGNORES_POLICY } from "./operator-ignores.ts";
import type { Kind, Policy } from "./types.ts";

/**
 * All policies in evaluation order: the CRD's CEL rules (cel), runtime equivalents,
 * strict gaps, then kerf policies.
 */
export const POLICIES: readonly Policy[] = [
  CEL_POLICY,
  NODEPOOL_RUNTIME_POLICY,
  NODEPOOL_STRICT_POLICY,
  EC2NODECLASS_RUNTIME_POLICY,
  EC2NODECLASS_STRICT_POLICY,
  ZONE_REGION_POLICY,
  REQUIREMENTS_SATISFIABLE_POLICY,
  SPOT_DIVERSITY_POLICY,
  LIMITS_REQUIRED_POLICY,
  BUDGET_SCHEDULE_POLICY,
  KERF_ANNOTATIONS_POLICY,
  NODECLASSREF_POLICY,
  IMDSV2_POLICY,
  EBS_ENCRYPTED_POLICY,
  OPERATOR_IGNORES_POLICY,
];

const byKind = new Map<Kind, Policy[]>();
for (const policy of POLICIES) {
  for (const kind of policy.kinds) byKind.set(kind, [...(byKind.get(kind) ?? []), policy]);
}

/** The policies that apply to a kind, in evaluation order. */
export function policiesFor(kind: Kind): readonly Policy[] {
  return byKind.get(kind) ?? [];
}

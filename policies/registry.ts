// The list of every policy by kind: the one place to read what kerf checks.
import { EC2NODECLASS_CEL_POLICY } from "./ec2nodeclass/parity.ts";
import { NODECLAIM_CEL_POLICY } from "./nodeclaim/parity.ts";
import { NODEPOOL_CEL_POLICY } from "./nodepool/parity.ts";
import type { Kind, Policy } from "./types.ts";

/** All policies in evaluation order (schema findings come from schema.ts before these run). */
export const POLICIES: readonly Policy[] = [NODEPOOL_CEL_POLICY, NODECLAIM_CEL_POLICY, EC2NODECLASS_CEL_POLICY];

const byKind = new Map<Kind, Policy[]>();
for (const policy of POLICIES) {
  for (const kind of policy.kinds) byKind.set(kind, [...(byKind.get(kind) ?? []), policy]);
}

/** The policies that apply to a kind, in evaluation order. */
export function policiesFor(kind: Kind): readonly Policy[] {
  return byKind.get(kind) ?? [];
}

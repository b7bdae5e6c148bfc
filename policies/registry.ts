// The list of every policy by kind: the one place to read what kerf checks.
import type { Kind, Policy } from "./types.ts";

/** All policies in evaluation order (schema findings come from schema.ts before these run). */
export const POLICIES: readonly Policy[] = [];

const byKind = new Map<Kind, Policy[]>();
for (const policy of POLICIES) {
  for (const kind of policy.kinds) byKind.set(kind, [...(byKind.get(kind) ?? []), policy]);
}

/** The policies that apply to a kind, in evaluation order. */
export function policiesFor(kind: Kind): readonly Policy[] {
  return byKind.get(kind) ?? [];
}

// The operator-ignores policy: a warning for each Karpenter field, label or annotation set in a NodePool or
// EC2NodeClass that kerf's operator does not act on (operator-coverage.ts holds the list), so that a user who asks
// for a Karpenter feature kerf lacks is told so at `kerf check` and at admission instead of finding out in production.
import { ignoredUses, type IgnoredUse } from "./operator-coverage.ts";
import type { Issue, Policy, PolicyInput } from "./types.ts";

/** The finding's message for one ignored use: names the field and says that kerf's operator ignores it. */
export function ignoredUseMessage(use: IgnoredUse): string {
  return `${use.field} is not implemented by kerf: kerf's operator ignores it (Karpenter: ${use.feature})`;
}

function operatorIgnoresIssues(input: PolicyInput): Issue[] {
  return ignoredUses(input.kind, input.object).map((use) => ({ path: use.path, message: ignoredUseMessage(use) }));
}

/** The operator-ignores policy (warn by default: the object is valid Karpenter, kerf just does not act on it). */
export const OPERATOR_IGNORES_POLICY: Policy = {
  id: "operator-ignores",
  kinds: ["NodePool", "EC2NodeClass"],
  defaultSeverity: "warn",
  description:
    "Karpenter fields, requirement labels and annotations kerf's operator does not implement (docs/migrate.md)",
  check: operatorIgnoresIssues,
};

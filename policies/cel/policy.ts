// The "cel" policy: the x-kubernetes-validations rules of the Karpenter API being judged against (the bundled
// release or the cluster's CRDs), evaluated by a CEL engine rather than copied.
import { bundledKarpenterApi } from "../api/releases/index.ts";
import { ruleFact } from "../facts.ts";
import type { Issue, Policy, PolicyInput } from "../types.ts";
import { compiledRules } from "./rules.ts";
import { validateRules, type RuleFailure } from "./validate.ts";

function toIssue(failure: RuleFailure): Issue {
  if (failure.unsupported !== undefined) {
    const message = `rule not checked (${failure.unsupported}): ${failure.rule.rule.rule}`;
    return { path: failure.path, message, notice: true };
  }
  const fact = ruleFact(failure.rule.location, failure.rule.rule.message ?? "");
  return { path: failure.path, message: failure.message, ...(fact === undefined ? {} : { fact }) };
}

function check(input: PolicyInput): Issue[] {
  const api = input.context.api ?? bundledKarpenterApi();
  const compiled = compiledRules(api.schemas[input.kind]);
  if (compiled === undefined) return [];
  const oldObject = input.operation === "UPDATE" ? input.oldObject : undefined;
  return validateRules(compiled, input.object, oldObject).map(toIssue);
}

/** The CRD rules of every kind. A rule kerf cannot evaluate is a notice, not a verdict. */
export const CEL_POLICY: Policy = {
  id: "cel",
  kinds: ["NodePool", "NodeClaim", "EC2NodeClass"],
  defaultSeverity: "deny",
  fixed: true,
  description: "the x-kubernetes-validations (CEL) rules of the Karpenter CRDs",
  check,
};

/** Compiles the rules of every kind of an API now (a server does it before listening). */
export function compileApiRules(api = bundledKarpenterApi()): void {
  for (const schema of Object.values(api.schemas)) compiledRules(schema);
}

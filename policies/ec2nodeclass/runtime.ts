// kerf "runtime" EC2NodeClass checks: what Karpenter only finds when it launches a node (after admission).
import { amiFamilyOf } from "./ami-family.ts";
import { asString, get, objects } from "./fields.ts";
import { userDataProblem } from "./user-data.ts";
import type { Issue, Policy, PolicyInput } from "../types.ts";

function userDataIssues(input: PolicyInput): Issue[] {
  const spec = get(input.object, "spec");
  const terms = objects(get(spec, "amiSelectorTerms")).map((t) => ({ alias: asString(t["alias"]) }));
  const family = amiFamilyOf({ amiFamily: asString(get(spec, "amiFamily")), amiSelectorTerms: terms });
  const problem = userDataProblem(family, asString(get(spec, "userData")));
  return problem === undefined ? [] : [{ path: "spec.userData", message: problem }];
}

/** runtime (EC2NodeClass): user data the AMI family cannot merge with its bootstrap fails every launch. */
export const EC2NODECLASS_RUNTIME_POLICY: Policy = {
  id: "runtime",
  kinds: ["EC2NodeClass"],
  defaultSeverity: "deny",
  description: "spec.userData the AMI family can merge with its bootstrap",
  check: userDataIssues,
};

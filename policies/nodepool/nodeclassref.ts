// nodeclassref-resolves (CLI only): the NodePool's nodeClassRef names an EC2NodeClass in the same render.
import { asString, get } from "../object.ts";
import type { Issue, Policy, PolicyInput } from "../types.ts";

function refIssues(input: PolicyInput): Issue[] {
  const names = input.context.nodeClassNames;
  const ref = get(input.object, "spec", "template", "spec", "nodeClassRef");
  const name = asString(get(ref, "name"));
  if (names === undefined || name === undefined || name === "") return [];
  const group = asString(get(ref, "group"));
  const kind = asString(get(ref, "kind"));
  if (group !== "karpenter.k8s.aws" || kind !== "EC2NodeClass") {
    return [{ path: "spec.template.spec.nodeClassRef", message: `nodeClassRef ${kind ?? ""}.${group ?? ""} is not karpenter.k8s.aws EC2NodeClass; kerf cannot resolve it` }];
  }
  if (names.has(name)) return [];
  return [{ path: "spec.template.spec.nodeClassRef.name", message: `EC2NodeClass "${name}" is not among the checked files; the NodePool would stay NodeClassReady=False` }];
}

/** The nodeclassref-resolves policy (skipped when the caller gives no nodeClassNames, as the webhook does). */
export const NODECLASSREF_POLICY: Policy = {
  id: "nodeclassref-resolves",
  kinds: ["NodePool"],
  defaultSeverity: "deny",
  needsRender: true,
  description: "spec.template.spec.nodeClassRef names an EC2NodeClass present in the same render",
  check: refIssues,
};

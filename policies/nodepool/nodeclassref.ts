// nodeclassref-resolves (CLI only): the NodePool's nodeClassRef names an EC2NodeClass in the same render.
import { closest, distance } from "fastest-levenshtein";
import { asString, get } from "../object.ts";
import type { Issue, Policy, PolicyInput } from "../types.ts";

const NAME_PATH = "spec.template.spec.nodeClassRef.name";

/**
 * A name within a third of its length in edits from `name` (at least 2), so "defualt" suggests
 * "default" but an unrelated "gpu" is not offered for "arm64".
 */
function suggestion(name: string, names: ReadonlySet<string>): string | undefined {
  const candidate = closest(name, [...names]);
  return distance(name, candidate) <= Math.max(2, Math.ceil(name.length / 3)) ? candidate : undefined;
}

function refIssues(input: PolicyInput): Issue[] {
  const names = input.context.nodeClassNames;
  const ref = get(input.object, "spec", "template", "spec", "nodeClassRef");
  const name = asString(get(ref, "name"));
  if (names === undefined || name === undefined || name === "") return [];
  const group = asString(get(ref, "group"));
  const kind = asString(get(ref, "kind"));
  if (group !== "karpenter.k8s.aws" || kind !== "EC2NodeClass") {
    return [
      {
        path: "spec.template.spec.nodeClassRef",
        message:
          `nodeClassRef ${kind ?? ""}.${group ?? ""} is not karpenter.k8s.aws EC2NodeClass; ` +
          `kerf cannot resolve it`,
      },
    ];
  }
  if (names.has(name)) return [];
  // Checked on its own (a pre-commit hook on one changed file): the class may well exist elsewhere.
  if (names.size === 0) {
    const message =
      `EC2NodeClass "${name}" was not checked (no EC2NodeClass among the checked files), ` +
      `so the reference is not verified`;
    return [{ path: NAME_PATH, notice: true, message }];
  }
  const near = suggestion(name, names);
  const known = [...names]
    .sort()
    .map((n) => `"${n}"`)
    .join(", ");
  const hint = near === undefined ? `the checked EC2NodeClasses are ${known}` : `did you mean "${near}"?`;
  const message =
    `EC2NodeClass "${name}" is not among the checked EC2NodeClasses (${hint}); ` +
    `the NodePool would stay NodeClassReady=False`;
  return [{ path: NAME_PATH, message }];
}

/**
 * The nodeclassref-resolves policy (skipped when the caller gives no nodeClassNames, as the webhook
 * does). It denies only when the checked files hold EC2NodeClasses and none has the name; with
 * none checked at all it reports a notice.
 */
export const NODECLASSREF_POLICY: Policy = {
  id: "nodeclassref-resolves",
  kinds: ["NodePool"],
  defaultSeverity: "deny",
  needsRender: true,
  description: "spec.template.spec.nodeClassRef names an EC2NodeClass present in the same render",
  check: refIssues,
};

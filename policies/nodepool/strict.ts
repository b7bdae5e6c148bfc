// kerf "strict" NodePool checks: schema gaps the released CRD leaves open
// (karpenter-v1-api.md §10 items 7, 12, 14, 15).
import { NEVER, tryParseDuration } from "../domain/duration.ts";
import { tryParseQuantity } from "../domain/quantity.ts";
import { labelValueErrors } from "../k8s-names.ts";
import { asObject, asString, get, objects, strings } from "../object.ts";
import type { Issue, Policy, PolicyInput } from "../types.ts";

function taintValueIssues(templateSpec: unknown): Issue[] {
  const issues: Issue[] = [];
  for (const list of ["taints", "startupTaints"] as const) {
    objects(get(templateSpec, list)).forEach((taint, i) => {
      const value = asString(taint["value"]);
      if (value === undefined) return;
      for (const e of labelValueErrors(value)) {
        issues.push({
          path: `spec.template.spec.${list}[${i}].value`,
          message: `taint value ${value} is not a valid label value (${e}); writing it to the Node would fail`,
        });
      }
    });
  }
  return issues;
}

function existsWithValues(templateSpec: unknown): Issue[] {
  return objects(get(templateSpec, "requirements")).flatMap((r, i) => {
    const operator = asString(r["operator"]);
    if ((operator !== "Exists" && operator !== "DoesNotExist") || strings(r["values"]).length === 0) return [];
    return [
      {
        path: `spec.template.spec.requirements[${i}].values`,
        message: `values may not be specified when operator is ${operator}`,
      },
    ];
  });
}

function negativeLimits(spec: unknown): Issue[] {
  const limits = asObject(get(spec, "limits")) ?? {};
  return Object.entries(limits).flatMap(([name, value]) => {
    const quantity = tryParseQuantity(value);
    return quantity !== undefined && quantity < 0
      ? [{ path: `spec.limits.${name}`, message: `limit ${name} must not be negative, got ${String(value)}` }]
      : [];
  });
}

function expiryBeforeConsolidation(spec: unknown): Issue[] {
  const expire = tryParseDuration(get(spec, "template", "spec", "expireAfter"));
  const consolidate = tryParseDuration(get(spec, "disruption", "consolidateAfter"));
  if (
    expire === undefined ||
    consolidate === undefined ||
    expire === NEVER ||
    consolidate === NEVER ||
    expire >= consolidate
  )
    return [];
  return [
    {
      path: "spec.template.spec.expireAfter",
      message:
        "expireAfter is shorter than disruption.consolidateAfter: nodes expire before they can ever be consolidated",
      advisory: true,
    },
  ];
}

/** The NodePool "strict" policy. */
export const NODEPOOL_STRICT_POLICY: Policy = {
  id: "strict",
  kinds: ["NodePool"],
  defaultSeverity: "deny",
  description:
    "closes the released schema's gaps: taint values as label values, values on Exists, " +
    "negative limits, expiry before consolidation",
  check: (input: PolicyInput) => {
    const spec = get(input.object, "spec");
    const templateSpec = get(spec, "template", "spec");
    return [
      ...taintValueIssues(templateSpec),
      ...existsWithValues(templateSpec),
      ...negativeLimits(spec),
      ...expiryBeforeConsolidation(spec),
    ];
  },
};

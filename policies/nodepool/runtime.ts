// Karpenter's NodePool RuntimeValidate (core nodepool_validation.go) at admission: labels, taints, requirements.
import {
  CAPACITY_TYPES,
  isRestrictedLabel,
  Label,
  normalizeLabelKey,
  RESTRICTED_LABEL_DOMAINS,
} from "../domain/labels.ts";
import { OPERATORS } from "../domain/requirements.ts";
import { labelValueErrors, qualifiedNameErrors } from "../k8s-names.ts";
import { asObject, asString, get, objects, ownValue, strings } from "../object.ts";
import { Fact } from "../facts.ts";
import type { Issue, Policy, PolicyInput } from "../types.ts";
import { taintIssues } from "./taints.ts";

const LABELS_PATH = "spec.template.metadata.labels";
const REQUIREMENTS_PATH = "spec.template.spec.requirements";
/** The closed value sets runtime validation enforces (§6): an In listing only other values fails validation. */
const KNOWN_VALUES: Readonly<Record<string, readonly string[]>> = {
  [Label.capacityType]: CAPACITY_TYPES,
  [Label.instanceTenancy]: ["default", "dedicated"],
};
const ORDER = new Set(["Gt", "Lt", "Gte", "Lte"]);

function restrictedMessage(key: string): string {
  return (
    `label ${key} is restricted; specify a well known label or a custom label ` +
    `that does not use a restricted domain: ${RESTRICTED_LABEL_DOMAINS.join(", ")}`
  );
}

function labelIssues(labels: Record<string, unknown>): Issue[] {
  const issues: Issue[] = [];
  for (const [key, value] of Object.entries(labels)) {
    const path = `${LABELS_PATH}.${key}`;
    const restricted = Fact.restrictedTemplateLabel;
    if (key === Label.nodePool)
      issues.push({ path, message: `invalid key name "${key}" in labels, restricted`, fact: restricted });
    for (const e of qualifiedNameErrors(key))
      issues.push({ path, message: `invalid key name "${key}" in labels, ${e}` });
    for (const e of labelValueErrors(String(value))) {
      issues.push({
        path,
        message: `invalid value: ${String(value)} for label[${key}], ${e}`,
        fact: Fact.templateLabelValue,
      });
    }
    if (key !== Label.nodePool && isRestrictedLabel(key))
      issues.push({ path, message: restrictedMessage(key), fact: restricted });
  }
  return issues;
}

function knownValueIssues(key: string, operator: string, values: string[], path: string): Issue[] {
  const known = ownValue(KNOWN_VALUES, key);
  if (known === undefined || operator !== "In") return [];
  const unknown = values.filter((v) => !known.includes(v));
  if (unknown.length === 0) return [];
  const message = `invalid value(s) ${unknown.join(", ")} for label ${key}, must be one of ${known.join(", ")}`;
  // Karpenter fails validation only when every value is unknown; mixed lists are logged (advisory here).
  return [{ path: `${path}.values`, message, ...(unknown.length === values.length ? {} : { advisory: true }) }];
}

function operatorIssues(requirement: Record<string, unknown>, key: string, path: string): Issue[] {
  const operator = asString(requirement["operator"]) ?? "";
  const values = strings(requirement["values"]);
  if (!(OPERATORS as readonly string[]).includes(operator)) {
    const message = `key ${key} has an unsupported operator ${operator} not in ${OPERATORS.join(", ")}`;
    return [{ path: `${path}.operator`, message, fact: Fact.requirementOperator }];
  }
  const issues: Issue[] = [];
  if (operator === "In" && values.length === 0) {
    issues.push({
      path: `${path}.values`,
      message: `key ${key} with operator In must have a value defined`,
      fact: Fact.requirementInValues,
    });
  }
  const minValues = requirement["minValues"];
  if (operator === "In" && typeof minValues === "number" && minValues > values.length) {
    const message = `key ${key} with operator In must have at least minValues (${minValues}) values defined`;
    issues.push({ path: `${path}.minValues`, message, fact: Fact.requirementMinValues });
  }
  if (ORDER.has(operator) && (values.length !== 1 || !/^\d+$/.test(values[0] ?? ""))) {
    const message = `key ${key} with operator ${operator} must have a single positive integer value`;
    issues.push({ path: `${path}.values`, message, fact: Fact.requirementOrderValue });
  }
  return issues;
}

function requirementIssues(requirement: Record<string, unknown>, index: number): Issue[] {
  const path = `${REQUIREMENTS_PATH}[${index}]`;
  const key = normalizeLabelKey(asString(requirement["key"]) ?? "");
  const values = strings(requirement["values"]);
  const issues: Issue[] = [];
  const restricted = Fact.restrictedRequirementKey;
  if (key === Label.nodePool)
    issues.push({
      path: `${path}.key`,
      message: `invalid key name "${key}" in requirements, restricted`,
      fact: restricted,
    });
  else if (isRestrictedLabel(key))
    issues.push({ path: `${path}.key`, message: restrictedMessage(key), fact: restricted });
  for (const e of qualifiedNameErrors(key)) {
    issues.push({
      path: `${path}.key`,
      message: `key ${key} is not a qualified name, ${e}`,
      fact: Fact.requirementKeySyntax,
    });
  }
  values.forEach((value, j) => {
    for (const e of labelValueErrors(value))
      issues.push({ path: `${path}.values[${j}]`, message: `invalid value ${value} for key ${key}, ${e}` });
  });
  issues.push(...operatorIssues(requirement, key, path));
  issues.push(...knownValueIssues(key, asString(requirement["operator"]) ?? "", values, path));
  return issues;
}

/** All runtime-validation problems of a (defaulted) NodePool. */
export function nodePoolRuntimeIssues(input: PolicyInput): Issue[] {
  const labels = asObject(get(input.object, "spec", "template", "metadata", "labels")) ?? {};
  const templateSpec = get(input.object, "spec", "template", "spec");
  return [
    ...labelIssues(labels),
    ...taintIssues(templateSpec, "spec.template.spec"),
    ...objects(get(templateSpec, "requirements")).flatMap(requirementIssues),
  ];
}

/**
 * The "runtime" policy: what Karpenter's validation controller would flag (NodePool
 * not Ready), caught at admission.
 */
export const NODEPOOL_RUNTIME_POLICY: Policy = {
  id: "runtime",
  kinds: ["NodePool"],
  defaultSeverity: "deny",
  description: "Karpenter's NodePool runtime validation (labels, taints, requirements) at admission",
  check: nodePoolRuntimeIssues,
};

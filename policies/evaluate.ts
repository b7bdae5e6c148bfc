// The engine entry point shared by `kerf check` and the webhook: default, then schema and CEL rules of the Karpenter
// API judged against (context.api), runtime, kerf policies.
import type { PolicyConfig } from "./config.ts";
import { settingFor } from "./config.ts";
import { applyDefaults } from "./defaults.ts";
import { requiredWithoutKerfMutation } from "./nodepool/defaults.ts";
import { metadataIssues } from "./metadata.ts";
import { scaleIssues } from "./nodepool/scale.ts";
import { mergeSharedFacts } from "./facts.ts";
import { diff } from "./json-patch.ts";
import { ownValue } from "./object.ts";
import { policiesFor } from "./registry.ts";
import { catalogView } from "./catalog-index.ts";
import { compileSchemas, validateStructure } from "./schema.ts";
import { compileApiRules } from "./cel/policy.ts";
import { bundledKarpenterApi } from "./api/releases/index.ts";
import type {
  EvaluateInput,
  EvaluationContext,
  Finding,
  FindingSeverity,
  Issue,
  JsonPatchOp,
  Kind,
  Policy,
  Severity,
  Verdict,
} from "./types.ts";

export type {
  EvaluateInput,
  EvaluationContext,
  Finding,
  FindingSeverity,
  JsonPatchOp,
  Kind,
  PolicyConfig,
  Severity,
  Verdict,
};

/**
 * Per-object exemption: `kerf.dev/exempt: "spot-diversity,limits-required"`. Findings of an exempted
 * policy are kept but downgraded to "warn" (suffix "(exempted by kerf.dev/exempt)") so audits still see
 * them. Policies the apiserver itself enforces (schema, cel) cannot be exempted.
 */
export const EXEMPT_ANNOTATION = "kerf.dev/exempt";

const KINDS: Readonly<Record<string, Readonly<Record<string, Kind>>>> = {
  "karpenter.sh/v1": { NodePool: "NodePool", NodeClaim: "NodeClaim" },
  "karpenter.k8s.aws/v1": { EC2NodeClass: "EC2NodeClass" },
};

/** The kerf kind of an object's apiVersion/kind, or undefined when kerf does not check it. */
export function isKarpenterKind(apiVersion: unknown, kind: unknown): Kind | undefined {
  if (typeof apiVersion !== "string" || typeof kind !== "string") return undefined;
  // Own keys only: kind "toString" or apiVersion "__proto__" must not find Object.prototype's members.
  return ownValue(ownValue(KINDS, apiVersion), kind);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function exemptions(object: Record<string, unknown>): ReadonlySet<string> {
  const metadata = object["metadata"];
  const annotations = isObject(metadata) ? metadata["annotations"] : undefined;
  const value = isObject(annotations) ? annotations[EXEMPT_ANNOTATION] : undefined;
  if (typeof value !== "string") return new Set();
  return new Set(
    value
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== ""),
  );
}

function resolve(
  policy: Policy,
  issues: Issue[],
  ctx: { config: PolicyConfig; exempt: ReadonlySet<string> },
): Finding[] {
  const setting =
    policy.fixed === true ? policy.defaultSeverity : settingFor(ctx.config, policy.id, policy.defaultSeverity);
  if (setting === "off") return [];
  const exempt = policy.fixed !== true && ctx.exempt.has(policy.id);
  return issues.map((issue) => ({
    policy: policy.id,
    severity: issue.notice === true ? "notice" : exempt || issue.advisory === true ? "warn" : setting,
    path: issue.path,
    message: exempt ? `${issue.message} (exempted by ${EXEMPT_ANNOTATION})` : issue.message,
  }));
}

const SCHEMA_POLICY: Policy = {
  id: "schema",
  kinds: ["NodePool", "NodeClaim", "EC2NodeClass"],
  defaultSeverity: "deny",
  fixed: true,
  description: "CRD OpenAPI schema",
  check: () => [],
};
const UNKNOWN_FIELDS_POLICY: Policy = {
  id: "unknown-fields",
  kinds: ["NodePool", "NodeClaim", "EC2NodeClass"],
  defaultSeverity: "warn",
  description: "fields the apiserver prunes",
  check: () => [],
};

/**
 * Does the one-time work evaluate() otherwise does lazily (the API's schema validators and CEL rules, the catalog
 * index): for servers, before they listen, and again for each new `context.api` (work is cached per API object).
 */
export function prepareEvaluation(context: EvaluationContext): void {
  const api = context.api ?? bundledKarpenterApi();
  compileSchemas(api);
  compileApiRules(api);
  catalogView(context.catalog);
}

/** Evaluates one object: never throws for bad input (a non-object is a schema finding). */
export function evaluate(input: EvaluateInput): Verdict {
  const { kind, object, context } = input;
  if (!isObject(object)) {
    const findings: Finding[] = [
      { policy: "schema", severity: "deny", path: "", message: "object must be a JSON object" },
    ];
    return { allowed: false, findings, defaulted: object, patch: [] };
  }
  const api = context.api ?? bundledKarpenterApi();
  const defaulted = applyDefaults(kind, object, api);
  const patch = diff(object, defaulted);
  const ctx = { config: context.config, exempt: exemptions(object) };
  const scale = kind === "NodePool" ? scaleIssues(defaulted) : [];
  const stored = input.operation === "UPDATE" && isObject(input.oldObject) ? input.oldObject : undefined;
  const structural = [...metadataIssues(defaulted), ...validateStructure(kind, defaulted, api, stored), ...scale];
  // kerf checks what its mutation stores, but reports what the apiserver answers without that mutation.
  const unmutated = kind === "NodePool" ? requiredWithoutKerfMutation(object, api.schemas.NodePool) : [];
  const schemaIssues: Issue[] = [...unmutated, ...structural.filter((i) => i.class !== "unknown")];
  const checked: [Policy, Issue[]][] = [
    [SCHEMA_POLICY, schemaIssues],
    [UNKNOWN_FIELDS_POLICY, structural.filter((i) => i.class === "unknown")],
  ];
  // Like the apiserver, skip the rule stages when the object has type errors: rules would read nonsense.
  if (!structural.some((i) => i.class === "type")) {
    const oldObject = isObject(input.oldObject) ? input.oldObject : undefined;
    const policyInput = { kind, operation: input.operation, object: defaulted, oldObject, context };
    for (const policy of policiesFor(kind)) {
      if (policy.needsRender === true && context.nodeClassNames === undefined) continue;
      checked.push([policy, policy.check(policyInput)]);
    }
  }
  const findings = oneFindingPerFact(checked).flatMap(([policy, issues]) => resolve(policy, issues, ctx));
  return { allowed: !findings.some((f) => f.severity === "deny"), findings, defaulted, patch };
}

/** The issues per policy with each fact the cel and runtime policies share stated once (policies/facts.ts). */
function oneFindingPerFact(checked: [Policy, Issue[]][]): [Policy, Issue[]][] {
  const of = (id: string): Issue[] => checked.find(([p]) => p.id === id)?.[1] ?? [];
  const runtime = of("runtime");
  if (runtime.length === 0) return checked;
  const merged = mergeSharedFacts(of("schema"), of("cel"), runtime);
  return checked.map(([policy, issues]) => [
    policy,
    policy.id === "cel" ? merged.cel : policy.id === "runtime" ? merged.runtime : issues,
  ]);
}

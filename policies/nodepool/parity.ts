// The 20 NodePool CEL rules (v1.14.1 AWS copy) as predicates; NodeClaim reuses the shared ones.
import { celRule, NODEPOOL_CEL_RULES } from "../api/cel-rules.ts";
import { Fact } from "../facts.ts";
import { celDomain, celInt, celPolicy, has, items, listLiteral, sel, size, type CelPredicate } from "../cel.ts";
import { jsonEqual } from "../json-patch.ts";
import type { Policy } from "../types.ts";

const CORE_ALLOWED = listLiteral(celRule(NODEPOOL_CEL_RULES, "NodePool/17"));
const AWS_LABELS_ALLOWED = listLiteral(celRule(NODEPOOL_CEL_RULES, "NodePool/8"));
const AWS_KEYS_ALLOWED = listLiteral(celRule(NODEPOOL_CEL_RULES, "NodePool/20"));
const ORDER_OPERATORS = new Set(["Gt", "Lt", "Gte", "Lte"]);

const notEmpty: CelPredicate = (self) => self !== "";
const coreKey = (key: unknown): boolean => CORE_ALLOWED.has(String(key)) || !celDomain(key).endsWith("karpenter.sh");
const awsKey = (allowed: ReadonlySet<string>) => (key: unknown): boolean =>
  allowed.has(String(key)) || !celDomain(key).endsWith("karpenter.k8s.aws");

/** Requirement-list and requirement-key predicates shared by NodePool and NodeClaim. */
export const REQUIREMENT_PREDICATES = {
  inHasValues: ((self) => items(self).every((x) => (sel(x, "operator") === "In" ? size(sel(x, "values")) !== 0 : true))) as CelPredicate,
  orderHasOneInteger: ((self) =>
    items(self).every((x) => {
      if (!ORDER_OPERATORS.has(String(sel(x, "operator")))) return true;
      const values = items(sel(x, "values"));
      return values.length === 1 && celInt(values[0]) >= 0n;
    })) as CelPredicate,
  minValuesHasValues: ((self) =>
    items(self).every((x) => (sel(x, "operator") === "In" && has(x, "minValues") ? size(sel(x, "values")) >= Number(sel(x, "minValues")) : true))) as CelPredicate,
  coreDomain: ((self) => coreKey(self)) as CelPredicate,
  notNodePool: ((self) => self !== "karpenter.sh/nodepool") as CelPredicate,
  notHostname: ((self) => self !== "kubernetes.io/hostname") as CelPredicate,
  awsDomain: ((self) => awsKey(AWS_KEYS_ALLOWED)(self)) as CelPredicate,
  notEmpty,
};

/** Predicates by NodePool rule id. */
export const NODEPOOL_PREDICATES: Readonly<Record<string, CelPredicate>> = {
  "NodePool/1": (self, oldSelf) => has(self, "replicas") === has(oldSelf, "replicas"),
  "NodePool/2": (self) => {
    if (!has(self, "replicas") || !has(self, "limits")) return true;
    const limits = items(sel(self, "limits"));
    return limits.length === 0 || (limits.length === 1 && limits[0] === "nodes");
  },
  "NodePool/3": (self) => !has(self, "replicas") || !has(self, "weight"),
  "NodePool/4": (self) => items(self).every((x) => has(x, "schedule") === has(x, "duration")),
  "NodePool/5": (self) => items(self).every(coreKey),
  "NodePool/6": (self) => items(self).every((x) => x !== "karpenter.sh/nodepool"),
  "NodePool/7": (self) => items(self).every((x) => x !== "kubernetes.io/hostname"),
  "NodePool/8": (self) => items(self).every(awsKey(AWS_LABELS_ALLOWED)),
  "NodePool/9": (self, oldSelf) => sel(self, "group") === sel(oldSelf, "group"),
  "NodePool/10": (self, oldSelf) => sel(self, "kind") === sel(oldSelf, "kind"),
  "NodePool/11": notEmpty,
  "NodePool/12": notEmpty,
  "NodePool/13": notEmpty,
  "NodePool/14": REQUIREMENT_PREDICATES.inHasValues,
  "NodePool/15": REQUIREMENT_PREDICATES.orderHasOneInteger,
  "NodePool/16": REQUIREMENT_PREDICATES.minValuesHasValues,
  "NodePool/17": REQUIREMENT_PREDICATES.coreDomain,
  "NodePool/18": REQUIREMENT_PREDICATES.notNodePool,
  "NodePool/19": REQUIREMENT_PREDICATES.notHostname,
  "NodePool/20": REQUIREMENT_PREDICATES.awsDomain,
};

/** Spec equality as CEL `self == oldSelf` sees it. */
export const specUnchanged: CelPredicate = (self, oldSelf) => jsonEqual(self, oldSelf);

/** The NodePool rules whose fact Karpenter's runtime validation (runtime.ts) reports too. */
export const NODEPOOL_CEL_FACTS: Readonly<Record<string, Fact>> = {
  "NodePool/5": Fact.restrictedTemplateLabel,
  "NodePool/6": Fact.restrictedTemplateLabel,
  "NodePool/7": Fact.restrictedTemplateLabel,
  "NodePool/8": Fact.restrictedTemplateLabel,
  "NodePool/14": Fact.requirementInValues,
  "NodePool/15": Fact.requirementOrderValue,
  "NodePool/16": Fact.requirementMinValues,
  "NodePool/17": Fact.restrictedRequirementKey,
  "NodePool/18": Fact.restrictedRequirementKey,
  "NodePool/19": Fact.restrictedRequirementKey,
  "NodePool/20": Fact.restrictedRequirementKey,
};

/** The NodePool "cel" policy. */
export const NODEPOOL_CEL_POLICY: Policy = celPolicy("NodePool", NODEPOOL_CEL_RULES, NODEPOOL_PREDICATES, NODEPOOL_CEL_FACTS);

// Structural schema of NodePool (karpenter.sh/v1) at v1.15.1, AWS copy: the single source for ajv and the CRD.
import { upstreamRulesAt } from "../upstream-rules.ts";
import * as P from "../patterns.ts";
import { conditions, envelope, nodeClassRef, requirements, resourceList, taints } from "./common.ts";
import { arr, int, map, obj, quantity, str, withRules, type SchemaNode, type ValidationRule } from "./openapi.ts";

const at = (on: string): ValidationRule[] => upstreamRulesAt("NodePool", on);

function budgets(): SchemaNode {
  const budget = obj(
    {
      duration: str({ pattern: P.BUDGET_DURATION }),
      nodes: str({ default: "10%", pattern: P.BUDGET_NODES }),
      reasons: arr(str({ enum: ["Underutilized", "Empty", "Drifted", "Unhealthy"] }), {
        maxItems: 50,
        "x-kubernetes-list-type": "set",
      }),
      schedule: str({ pattern: P.BUDGET_SCHEDULE }),
    },
    { required: ["nodes"] },
  );
  const list = arr(budget, { default: [{ nodes: "10%" }], maxItems: 50, "x-kubernetes-list-type": "atomic" });
  return withRules(list, at(".spec.disruption.budgets"));
}

function disruption(): SchemaNode {
  return obj(
    {
      budgets: budgets(),
      consolidateAfter: str({ default: "0s", pattern: P.DURATION }),
      consolidationPolicy: str({
        default: "WhenEmptyOrUnderutilized",
        enum: ["WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"],
      }),
    },
    { default: { consolidateAfter: "0s" } },
  );
}

function templateMetadata(): SchemaNode {
  const labels = map(str({ maxLength: 63, pattern: P.LABEL_VALUE }), {
    maxProperties: 100,
    "x-kubernetes-map-type": "atomic",
  });
  return obj({
    annotations: map(str(), { "x-kubernetes-map-type": "granular" }),
    labels: withRules(labels, at(".spec.template.metadata.labels")),
  });
}

function templateSpec(): SchemaNode {
  return obj(
    {
      expireAfter: str({ default: "720h", pattern: P.DURATION }),
      nodeClassRef: nodeClassRef(at, ".spec.template.spec.nodeClassRef"),
      requirements: requirements(at, ".spec.template.spec.requirements"),
      startupTaints: taints(),
      taints: taints(),
      terminationGracePeriod: str({ pattern: P.TERMINATION_GRACE_PERIOD }),
    },
    { required: ["nodeClassRef", "requirements"] },
  );
}

function spec(): SchemaNode {
  const node = obj(
    {
      disruption: disruption(),
      limits: resourceList(),
      replicas: int({ format: "int64", minimum: 0 }),
      template: obj({ metadata: templateMetadata(), spec: templateSpec() }, { required: ["spec"] }),
      weight: int({ format: "int32", maximum: 100, minimum: 1 }),
    },
    { required: ["template"] },
  );
  return withRules(node, at(".spec"));
}

function status(): SchemaNode {
  return obj({
    conditions: conditions({ nodeClaim: false, listMap: true }),
    nodeClassObservedGeneration: int({ format: "int64" }),
    nodes: int({ default: 0, format: "int64" }),
    resources: map(quantity(P.QUANTITY)),
  });
}

/** openAPIV3Schema of the NodePool CRD. */
export const NODEPOOL_SCHEMA: SchemaNode = envelope(spec(), status(), ["spec"]);

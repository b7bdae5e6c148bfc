// Structural schema of NodeOverlay (karpenter.sh/v1alpha1, Karpenter v1.7+; as in v1.15.0): the single source for
// ajv and the CRD. Its CEL rules are written here, not looked up per release: they have not changed since v1.7.
import * as P from "../patterns.ts";
import { conditions, envelope, resourceList } from "./common.ts";
import { arr, int, obj, str, withRules, type SchemaNode } from "./openapi.ts";

/** spec.priceAdjustment: ±x, +p% or -p% with p < 100, or -100%. */
export const PRICE_ADJUSTMENT = "^(([+-]{1}(\\d*\\.?\\d+))|(\\+{1}\\d*\\.?\\d+%)|(^(-\\d{1,2}(\\.\\d+)?%)$)|(-100%))$";
/** spec.price: a non-negative decimal. */
export const PRICE = "^\\d+(\\.\\d+)?$";

function requirements(): SchemaNode {
  const key = withRules(str({ maxLength: 316, pattern: P.QUALIFIED_NAME }), [
    {
      message: 'label domain "karpenter.sh" is restricted',
      rule:
        'self in ["karpenter.sh/capacity-type", "karpenter.sh/nodepool"] || ' +
        '!self.find("^([^/]+)").endsWith("karpenter.sh")',
    },
    { message: 'label "kubernetes.io/hostname" is restricted', rule: 'self != "kubernetes.io/hostname"' },
  ]);
  const values: SchemaNode = {
    type: "array",
    items: str(),
    maxLength: 63,
    pattern: P.LABEL_VALUE,
    "x-kubernetes-list-type": "atomic",
  };
  const requirement = obj(
    { key, operator: str({ enum: ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"] }), values },
    { required: ["key", "operator"] },
  );
  return withRules(arr(requirement, { maxItems: 100, "x-kubernetes-list-type": "atomic" }), [
    {
      message: "requirements with operator 'NotIn' must have a value defined",
      rule: "self.all(x, x.operator == 'NotIn' ? x.values.size() != 0 : true)",
    },
    {
      message: "requirements with operator 'In' must have a value defined",
      rule: "self.all(x, x.operator == 'In' ? x.values.size() != 0 : true)",
    },
    {
      message: "requirements operator 'Gt', 'Lt', 'Gte' or 'Lte' must have a single positive integer value",
      rule:
        "self.all(x, (x.operator == 'Gt' || x.operator == 'Lt' || x.operator == 'Gte' || x.operator == 'Lte') " +
        "? (x.values.size() == 1 && int(x.values[0]) >= 0) : true)",
    },
  ]);
}

function spec(): SchemaNode {
  const node = obj(
    {
      capacity: withRules(resourceList(), [
        {
          message: "invalid resource restricted",
          rule: "self.all(x, !(x in ['cpu', 'memory', 'ephemeral-storage', 'pods']))",
        },
      ]),
      price: str({ pattern: PRICE }),
      priceAdjustment: str({ pattern: PRICE_ADJUSTMENT }),
      requirements: requirements(),
      weight: int({ format: "int32", maximum: 10000, minimum: 1 }),
    },
    { required: ["requirements"] },
  );
  return withRules(node, [
    {
      message: "cannot set both 'price' and 'priceAdjustment'",
      rule: "!has(self.price) || !has(self.priceAdjustment)",
    },
  ]);
}

/** openAPIV3Schema of the NodeOverlay CRD. */
export const NODEOVERLAY_SCHEMA: SchemaNode = envelope(
  spec(),
  obj({ conditions: conditions({ nodeClaim: false, listMap: true }) }),
  ["spec"],
);

// Small constructors for the structural OpenAPI v3 schemas that both ajv and the generated CRDs read.

/** A structural schema node as it appears in a CRD's openAPIV3Schema (subset kerf uses). */
export interface SchemaNode {
  type?: "object" | "array" | "string" | "integer" | "number" | "boolean";
  description?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode;
  items?: SchemaNode;
  required?: string[];
  default?: unknown;
  pattern?: string;
  enum?: readonly (string | number)[];
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  maxProperties?: number;
  anyOf?: SchemaNode[];
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-list-type"?: "atomic" | "set" | "map";
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-map-type"?: "atomic" | "granular";
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-validations"?: ValidationRule[];
}

/** One x-kubernetes-validations entry (apiextensions.k8s.io/v1 ValidationRule). */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: "FieldValueInvalid" | "FieldValueForbidden" | "FieldValueRequired" | "FieldValueDuplicate";
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

type Extra = Omit<SchemaNode, "type" | "properties" | "items">;

/** A string node. */
export function str(extra: Extra = {}): SchemaNode {
  return { type: "string", ...extra };
}

/** An integer node. */
export function int(extra: Extra = {}): SchemaNode {
  return { type: "integer", ...extra };
}

/** A boolean node. */
export function bool(): SchemaNode {
  return { type: "boolean" };
}

/** An object node with the given properties. */
export function obj(properties: Record<string, SchemaNode>, extra: Extra = {}): SchemaNode {
  return { type: "object", properties, ...extra };
}

/** A map node (object with additionalProperties). */
export function map(values: SchemaNode, extra: Omit<Extra, "additionalProperties"> = {}): SchemaNode {
  return { type: "object", additionalProperties: values, ...extra };
}

/** An array node. */
export function arr(items: SchemaNode, extra: Extra = {}): SchemaNode {
  return { type: "array", items, ...extra };
}

/** A Kubernetes resource.Quantity node (int-or-string with the quantity pattern). */
export function quantity(pattern: string): SchemaNode {
  return { anyOf: [{ type: "integer" }, { type: "string" }], pattern, "x-kubernetes-int-or-string": true };
}

/** Attaches CEL rules (if any) to a node, keeping upstream order. */
export function withRules(node: SchemaNode, rules: ValidationRule[]): SchemaNode {
  return rules.length === 0 ? node : { ...node, "x-kubernetes-validations": rules };
}

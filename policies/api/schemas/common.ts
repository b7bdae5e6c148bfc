// Schema fragments shared by NodePool, NodeClaim and EC2NodeClass (requirements, taints, nodeClassRef, conditions).
import * as P from "../patterns.ts";
import { arr, int, map, obj, quantity, str, withRules, type SchemaNode, type ValidationRule } from "./openapi.ts";

/** Looks up the CEL rules attached at a schema path. */
export type RulesAt = (on: string) => ValidationRule[];

/**
 * NodeSelectorRequirementWithMinValues list at `base`. `values` carries pattern/maxLength
 * on the array node, as upstream.
 */
export function requirements(at: RulesAt, base: string): SchemaNode {
  const values: SchemaNode = {
    type: "array",
    items: str(),
    maxLength: 63,
    pattern: P.LABEL_VALUE,
    "x-kubernetes-list-type": "atomic",
  };
  const requirement = obj(
    {
      key: withRules(str({ maxLength: 316, pattern: P.QUALIFIED_NAME }), at(`${base}[].key`)),
      minValues: int({ minimum: 1, maximum: 50 }),
      operator: str({ enum: ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"] }),
      values,
    },
    { required: ["key", "operator"] },
  );
  return withRules(arr(requirement, { maxItems: 100, "x-kubernetes-list-type": "atomic" }), at(base));
}

/** A list of corev1.Taint. */
export function taints(): SchemaNode {
  const taint = obj(
    {
      effect: str({ enum: ["NoSchedule", "PreferNoSchedule", "NoExecute"] }),
      key: str({ minLength: 1, pattern: P.QUALIFIED_NAME }),
      timeAdded: str({ format: "date-time" }),
      value: str({ pattern: P.QUALIFIED_NAME }),
    },
    { required: ["effect", "key"] },
  );
  return arr(taint, { "x-kubernetes-list-type": "atomic" });
}

/** NodeClassReference at `base`. */
export function nodeClassRef(at: RulesAt, base: string): SchemaNode {
  const node = obj(
    {
      group: withRules(str({ pattern: P.NODECLASS_GROUP }), at(`${base}.group`)),
      kind: withRules(str(), at(`${base}.kind`)),
      name: withRules(str(), at(`${base}.name`)),
    },
    { required: ["group", "kind", "name"] },
  );
  return withRules(node, at(base));
}

/** A ResourceList (cpu, memory, ...: quantities). */
export function resourceList(): SchemaNode {
  return map(quantity(P.QUANTITY));
}

/** status.conditions as used by NodePool and EC2NodeClass (reason required and non-empty) or NodeClaim. */
export function conditions(options: { nodeClaim: boolean; listMap: boolean }): SchemaNode {
  const reason = options.nodeClaim
    ? str({ maxLength: 1024, pattern: P.NODECLAIM_CONDITION_REASON })
    : str({ maxLength: 1024, minLength: 1, pattern: P.CONDITION_REASON });
  const condition = obj(
    {
      lastTransitionTime: str({ format: "date-time" }),
      message: str({ maxLength: 32768 }),
      observedGeneration: int({ format: "int64", minimum: 0 }),
      reason,
      status: str({ enum: ["True", "False", "Unknown"] }),
      type: str({ maxLength: 316, pattern: P.CONDITION_TYPE }),
    },
    {
      required: options.nodeClaim
        ? ["lastTransitionTime", "status", "type"]
        : ["lastTransitionTime", "message", "reason", "status", "type"],
    },
  );
  const extra: Partial<SchemaNode> = options.listMap
    ? { "x-kubernetes-list-map-keys": ["type"], "x-kubernetes-list-type": "map" }
    : {};
  return arr(condition, extra);
}

/** The apiVersion/kind/metadata envelope every CRD schema starts with. */
export function envelope(spec: SchemaNode, status: SchemaNode, required: string[] | undefined): SchemaNode {
  const root = obj({ apiVersion: str(), kind: str(), metadata: { type: "object" }, spec, status });
  return required === undefined ? root : { ...root, required };
}

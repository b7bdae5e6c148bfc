// kerf's NodePool default on top of the CRD's: consolidateAfter "0s" when a disruption block omits it (HEAD behaviour).
import type { SchemaNode } from "../api/schemas/openapi.ts";
import { isObject, ownValue } from "../object.ts";
import type { Issue } from "../types.ts";

/** Where kerf's own default goes; Karpenter's CRDs before v1.15 require the field instead of defaulting it. */
export const CONSOLIDATE_AFTER_PATH = "spec.disruption.consolidateAfter";

/** A disruption block that lacks consolidateAfter (null counts as absent: the apiserver prunes it). */
function lacksConsolidateAfter(
  object: Record<string, unknown>,
): { spec: Record<string, unknown>; disruption: Record<string, unknown> } | undefined {
  const spec = object["spec"];
  if (!isObject(spec)) return undefined;
  const disruption = spec["disruption"];
  if (
    !isObject(disruption) ||
    (disruption["consolidateAfter"] !== undefined && disruption["consolidateAfter"] !== null)
  )
    return undefined;
  return { spec, disruption };
}

/**
 * Adds `spec.disruption.consolidateAfter: "0s"` when `spec.disruption` is an object without it
 * (upstream core PR #3220 makes this the CRD default at HEAD). Returns the input untouched otherwise.
 * Runs before the schema defaults; never replaces a value the user wrote.
 */
export function applyNodePoolDefaults(object: Record<string, unknown>): Record<string, unknown> {
  const found = lacksConsolidateAfter(object);
  if (found === undefined) return object;
  return { ...object, spec: { ...found.spec, disruption: { ...found.disruption, consolidateAfter: "0s" } } };
}

/** Whether a NodePool schema requires consolidateAfter in a disruption block without defaulting it (v1.0–v1.14). */
function requiresConsolidateAfter(schema: SchemaNode): boolean {
  const disruption = ownValue(ownValue(schema.properties, "spec")?.properties, "disruption");
  const field = ownValue(disruption?.properties, "consolidateAfter");
  return disruption?.required?.includes("consolidateAfter") === true && field?.default === undefined;
}

/**
 * What the apiserver answers for the fields only kerf's mutating webhook defaults, under a NodePool `schema`:
 * Karpenter's CRD (before v1.15) says "Required value" to a disruption block without consolidateAfter, so
 * without kerf's mutation (webhook not installed, or unreachable under its failurePolicy: Ignore)
 * `kubectl apply` fails. The validating webhook never sees such an object from the apiserver: mutation
 * runs first, or the CRD rejects it.
 */
export function requiredWithoutKerfMutation(object: Record<string, unknown>, schema: SchemaNode): Issue[] {
  if (!requiresConsolidateAfter(schema) || lacksConsolidateAfter(object) === undefined) return [];
  return [
    {
      path: CONSOLIDATE_AFTER_PATH,
      message:
        "Required value (Karpenter's CRD rejects a disruption block without consolidateAfter; " +
        'kerf\'s mutating webhook would default it to "0s", but without that webhook, or while it is down, ' +
        "the apiserver rejects the object: set " +
        'consolidateAfter explicitly; see kerf\'s Helm chart README, "When the webhook is down")',
    },
  ];
}

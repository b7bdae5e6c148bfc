// kerf's NodePool default on top of the CRD's: consolidateAfter "0s" when a disruption block omits it (HEAD behaviour).
import { isObject } from "../object.ts";

/**
 * Adds `spec.disruption.consolidateAfter: "0s"` when `spec.disruption` is an object without it
 * (upstream core PR #3220 makes this the CRD default at HEAD). Returns the input untouched otherwise.
 * Runs before the schema defaults; never replaces a value the user wrote.
 */
export function applyNodePoolDefaults(object: Record<string, unknown>): Record<string, unknown> {
  const spec = object["spec"];
  if (!isObject(spec)) return object;
  const disruption = spec["disruption"];
  if (!isObject(disruption) || disruption["consolidateAfter"] !== undefined) return object;
  return { ...object, spec: { ...spec, disruption: { ...disruption, consolidateAfter: "0s" } } };
}

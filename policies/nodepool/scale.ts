// The NodePool CRD's scale subresource (specReplicasPath .spec.replicas): the apiserver checks the int32 range.
import type { SchemaIssue } from "../schema.ts";
import { get } from "../object.ts";

const INT32_MAX = 2147483647;
/** The apiserver names the field by the CRD's specReplicasPath, leading dot included. */
const SPEC_REPLICAS_PATH = ".spec.replicas";

/** ValidateScaleSpec: spec.replicas, when an integer, must fit the Scale subresource's int32. */
export function scaleIssues(object: Record<string, unknown>): SchemaIssue[] {
  const replicas = get(object, "spec", "replicas");
  if (typeof replicas !== "number" || !Number.isInteger(replicas)) return [];
  const invalid = (detail: string): SchemaIssue[] => [
    { path: SPEC_REPLICAS_PATH, message: `Invalid value: ${String(replicas)}: ${detail}`, class: "invalid" },
  ];
  if (replicas < 0) return invalid("should be a non-negative integer");
  return replicas > INT32_MAX ? invalid(`should be less than or equal to ${INT32_MAX}`) : [];
}

// Taint checks Karpenter only runs at runtime: qualified key/value, effect, duplicate (key, effect) across both lists.
import { qualifiedNameErrors } from "../k8s-names.ts";
import { asString, get, objects } from "../object.ts";
import type { Issue } from "../types.ts";

const EFFECTS = new Set(["NoSchedule", "PreferNoSchedule", "NoExecute", ""]);

/** Problems in `taints` + `startupTaints` under `base` (a template spec or NodeClaim spec). */
export function taintIssues(spec: unknown, base: string): Issue[] {
  const issues: Issue[] = [];
  const seen = new Map<string, string>();
  for (const list of ["taints", "startupTaints"] as const) {
    objects(get(spec, list)).forEach((taint, i) => {
      const path = `${base}.${list}[${i}]`;
      const key = asString(taint["key"]) ?? "";
      const value = asString(taint["value"]);
      const effect = asString(taint["effect"]) ?? "";
      for (const e of qualifiedNameErrors(key))
        issues.push({ path: `${path}.key`, message: `invalid taint key ${key}, ${e}` });
      if (value !== undefined && value !== "") {
        for (const e of qualifiedNameErrors(value))
          issues.push({ path: `${path}.value`, message: `invalid taint value ${value}, ${e}` });
      }
      if (!EFFECTS.has(effect)) issues.push({ path: `${path}.effect`, message: `invalid taint effect ${effect}` });
      const pair = `${key}=${effect}`;
      const first = seen.get(pair);
      if (first !== undefined)
        issues.push({ path, message: `duplicate taint Key/Effect pair ${pair} (first at ${first})` });
      else seen.set(pair, path);
    });
  }
  return issues;
}

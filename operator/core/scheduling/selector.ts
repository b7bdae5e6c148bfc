/** Label-selector matching (matchLabels + matchExpressions), as the scheduler needs it for pod topology. */
import type { LabelSelector } from "./types.ts";

/** Whether `labels` satisfy the selector; an empty selector matches everything. */
export function selectorMatches(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  return (selector.matchExpressions ?? []).every((e) => expressionMatches(e.operator, labels[e.key], e.values ?? []));
}

function expressionMatches(operator: string, value: string | undefined, values: readonly string[]): boolean {
  switch (operator) {
    case "In": return value !== undefined && values.includes(value);
    case "NotIn": return value === undefined || !values.includes(value);
    case "Exists": return value !== undefined;
    case "DoesNotExist": return value === undefined;
    default: return false;
  }
}

/** A stable string for a selector (group identity). */
export function selectorKey(selector: LabelSelector): string {
  const labels = Object.entries(selector.matchLabels ?? {}).sort(([a], [b]) => a.localeCompare(b));
  const exprs = (selector.matchExpressions ?? []).map((e) => `${e.key} ${e.operator} ${[...(e.values ?? [])].sort().join(",")}`).sort();
  return JSON.stringify([labels, exprs]);
}

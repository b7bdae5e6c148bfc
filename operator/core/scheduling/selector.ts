/** Label-selector matching (matchLabels + matchExpressions), as the scheduler needs it for pod topology. */
import type { LabelSelector, PodAffinityTerm } from "./types.ts";

/**
 * The selector of a term written without `labelSelector`: it selects no pod, as Kubernetes reads a
 * nil selector (labels.Nothing()). `In` with no values matches no label value.
 */
export const NO_POD: LabelSelector = Object.freeze({ matchExpressions: Object.freeze([{ key: "kerf.dev/no-label-selector", operator: "In", values: [] }]) });

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

/** The label every Namespace carries with its own name (set by the apiserver). */
const NAMESPACE_NAME = "kubernetes.io/metadata.name";

/** Labels of namespace `name`: the snapshot's, else only its name label (see Snapshot.namespaces). */
export function namespaceLabels(namespaces: ReadonlyMap<string, Readonly<Record<string, string>>> | undefined, name: string): Readonly<Record<string, string>> {
  const labels = namespaces?.get(name);
  return labels === undefined ? { [NAMESPACE_NAME]: name } : labels[NAMESPACE_NAME] === name ? labels : { ...labels, [NAMESPACE_NAME]: name };
}

/**
 * Whether a pod (anti-)affinity term looks at pods of `namespace`: listed, or its labels (`labels`)
 * matched by the term's namespaceSelector. The one rule for every reader of terms.
 */
export function termNamespaceMatches(term: Pick<PodAffinityTerm, "namespaces" | "namespaceSelector">, namespace: string, labels: Readonly<Record<string, string>>): boolean {
  return term.namespaces.includes(namespace) || (term.namespaceSelector !== undefined && selectorMatches(term.namespaceSelector, labels));
}

/** A stable string for a term's namespace choice (group identity). */
export function namespacesKey(term: Pick<PodAffinityTerm, "namespaces" | "namespaceSelector">): string {
  const listed = [...term.namespaces].sort().join(",");
  return term.namespaceSelector === undefined ? listed : `${listed}|${selectorKey(term.namespaceSelector)}`;
}

/** Label-selector matching (matchLabels + matchExpressions), as the scheduler needs it for pod topology. */
import type { LabelSelector, PodAffinityTerm, Snapshot } from "./types.ts";

/**
 * The selector of a term written without `labelSelector`: it selects no pod, as Kubernetes reads a
 * nil selector (labels.Nothing()). `In` with no values matches no label value.
 */
export const NO_POD: LabelSelector = Object.freeze({
  matchExpressions: Object.freeze([{ key: "kerf.dev/no-label-selector", operator: "In", values: [] }]),
});

/** Whether `labels` satisfy the selector; an empty selector matches everything. */
export function selectorMatches(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  return (selector.matchExpressions ?? []).every((e) => expressionMatches(e.operator, labels[e.key], e.values ?? []));
}

function expressionMatches(operator: string, value: string | undefined, values: readonly string[]): boolean {
  switch (operator) {
    case "In":
      return value !== undefined && values.includes(value);
    case "NotIn":
      return value === undefined || !values.includes(value);
    case "Exists":
      return value !== undefined;
    case "DoesNotExist":
      return value === undefined;
    default:
      return false;
  }
}

/** A stable string for a selector (group identity). */
export function selectorKey(selector: LabelSelector): string {
  const labels = Object.entries(selector.matchLabels ?? {}).sort(([a], [b]) => a.localeCompare(b));
  const exprs = (selector.matchExpressions ?? [])
    .map((e) => `${e.key} ${e.operator} ${[...(e.values ?? [])].sort().join(",")}`)
    .sort();
  return JSON.stringify([labels, exprs]);
}

/** What of a term decides the namespaces it looks at. */
type NamespaceChoice = Pick<PodAffinityTerm, "namespaces" | "namespaceSelector">;

/** The label every Namespace carries with its own name (set by the apiserver). */
const NAMESPACE_NAME = "kubernetes.io/metadata.name";

/** Labels of namespace `name`: the snapshot's, else only its name label (see Snapshot.namespaces). */
export function namespaceLabels(namespaces: Snapshot["namespaces"], name: string): Readonly<Record<string, string>> {
  const labels = namespaces?.get(name);
  if (labels === undefined) return { [NAMESPACE_NAME]: name };
  return labels[NAMESPACE_NAME] === name ? labels : { ...labels, [NAMESPACE_NAME]: name };
}

/**
 * Whether a pod (anti-)affinity term looks at pods of `namespace`: listed, or its labels (Snapshot
 * namespaces, see namespaceLabels) matched by the term's namespaceSelector. The one rule for every
 * reader of terms.
 */
export function termNamespaceMatches(
  term: NamespaceChoice,
  namespace: string,
  namespaces: Snapshot["namespaces"],
): boolean {
  if (term.namespaces.includes(namespace)) return true;
  // "" is no real namespace: the compact snapshot's reserved pods (compact-snapshot.ts), which no term selects.
  if (term.namespaceSelector === undefined || namespace === "") return false;
  return selectorMatches(term.namespaceSelector, namespaceLabels(namespaces, namespace));
}

/** A stable string for a term's namespace choice (group identity). */
export function namespacesKey(term: NamespaceChoice): string {
  const listed = [...term.namespaces].sort().join(",");
  return term.namespaceSelector === undefined ? listed : `${listed}|${selectorKey(term.namespaceSelector)}`;
}

/**
 * Reads a pod's topology terms (topologySpreadConstraints, pod (anti-)affinity terms) from the
 * Kubernetes objects (pure). Kept apart from pod-spec.ts (requests, node affinity, ports) so the
 * topology semantics live next to topology.ts:
 * - a term without `labelSelector` selects no pod (metav1.LabelSelectorAsSelector(nil) is
 *   labels.Nothing()), so such a spread never constrains and such an affinity never finds a match;
 * - a spread's `matchLabelKeys` ANDs `key In (the incoming pod's value)` into its selector for each
 *   key the pod carries (keys it lacks are ignored), as the apiserver and Karpenter do;
 * - `nodeTaintsPolicy` and `nodeAffinityPolicy` are kept when given (topology.ts owns the defaults);
 * - an affinity term selects pods in `namespaces` plus the namespaces its `namespaceSelector`
 *   matches (an empty selector matches every namespace); with neither, the pod's own namespace.
 */
import { NO_POD } from "./selector.ts";
import type { LabelSelector, PodAffinityTerm, SpreadConstraint, WeightedPodAffinityTerm } from "./types.ts";

type Obj = Readonly<Record<string, unknown>>;

function obj(value: unknown): Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : {};
}

function list(value: unknown): Obj[] {
  return Array.isArray(value) ? value.map(obj) : [];
}

/** A label selector as written; undefined when the field is absent (not the same as `{}`). */
function labelSelector(value: unknown): LabelSelector | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const s = obj(value);
  const matchLabels: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj(s["matchLabels"]))) matchLabels[k] = String(v);
  const matchExpressions = list(s["matchExpressions"]).map((e) => ({
    key: String(e["key"]),
    operator: String(e["operator"]),
    values: Array.isArray(e["values"]) ? e["values"].map(String) : [],
  }));
  return { matchLabels, matchExpressions };
}

/** A node inclusion policy field, only when set to a valid value (topology.ts applies the defaults). */
function policy(c: Obj, field: "nodeTaintsPolicy" | "nodeAffinityPolicy"): Partial<SpreadConstraint> {
  const value = c[field];
  return value === "Honor" || value === "Ignore" ? { [field]: value } : {};
}

/** The spread's selector with matchLabelKeys folded in (needs the incoming pod's labels). */
function spreadSelector(c: Obj, podLabels: Readonly<Record<string, string>>): LabelSelector {
  const selector = labelSelector(c["labelSelector"]);
  if (selector === undefined) return NO_POD;
  const keys = Array.isArray(c["matchLabelKeys"]) ? c["matchLabelKeys"].map(String) : [];
  const added = keys
    .filter((k) => podLabels[k] !== undefined)
    .map((k) => ({ key: k, operator: "In", values: [podLabels[k]!] }));
  if (added.length === 0) return selector;
  return { ...selector, matchExpressions: [...(selector.matchExpressions ?? []), ...added] };
}

/** A pod's topologySpreadConstraints; `podLabels` are the pod's own labels (matchLabelKeys). */
export function spreadConstraints(value: unknown, podLabels: Readonly<Record<string, string>>): SpreadConstraint[] {
  return list(value).map((c) => ({
    maxSkew: Number(c["maxSkew"] ?? 1),
    topologyKey: String(c["topologyKey"] ?? ""),
    whenUnsatisfiable: c["whenUnsatisfiable"] === "ScheduleAnyway" ? "ScheduleAnyway" : "DoNotSchedule",
    selector: spreadSelector(c, podLabels),
    ...(typeof c["minDomains"] === "number" ? { minDomains: c["minDomains"] } : {}),
    ...policy(c, "nodeTaintsPolicy"),
    ...policy(c, "nodeAffinityPolicy"),
  }));
}

/** One pod (anti-)affinity term of a pod in `namespace`. */
export function affinityTerm(term: Obj, namespace: string): PodAffinityTerm {
  const listed = Array.isArray(term["namespaces"]) ? term["namespaces"].map(String) : [];
  const namespaceSelector = labelSelector(term["namespaceSelector"]);
  const namespaces = listed.length > 0 || namespaceSelector !== undefined ? listed : [namespace];
  return {
    selector: labelSelector(term["labelSelector"]) ?? NO_POD,
    namespaces,
    topologyKey: String(term["topologyKey"] ?? ""),
    ...(namespaceSelector === undefined ? {} : { namespaceSelector }),
  };
}

/** Required terms (a list of PodAffinityTerm objects). */
export function affinityTerms(value: unknown, namespace: string): PodAffinityTerm[] {
  return list(value).map((t) => affinityTerm(t, namespace));
}

/** Preferred terms (a list of WeightedPodAffinityTerm objects). */
export function weightedTerms(value: unknown, namespace: string): WeightedPodAffinityTerm[] {
  return list(value).map((w) => ({
    weight: Number(w["weight"] ?? 0),
    term: affinityTerm(obj(w["podAffinityTerm"]), namespace),
  }));
}

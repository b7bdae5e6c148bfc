/** Taints and tolerations: which taints a pod tolerates (Kubernetes toleration semantics). */

export type TaintEffect = "NoSchedule" | "PreferNoSchedule" | "NoExecute";

export interface Taint {
  readonly key: string;
  readonly value?: string | undefined;
  readonly effect: TaintEffect | string;
}

export interface Toleration {
  readonly key?: string | undefined;
  readonly operator?: "Exists" | "Equal" | string | undefined;
  readonly value?: string | undefined;
  readonly effect?: string | undefined;
}

/** Whether one toleration tolerates one taint (empty key + Exists tolerates everything). */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect !== undefined && toleration.effect !== "" && toleration.effect !== taint.effect) return false;
  const operator = toleration.operator ?? "Equal";
  if (toleration.key === undefined || toleration.key === "") return operator === "Exists";
  if (toleration.key !== taint.key) return false;
  return operator === "Exists" || (toleration.value ?? "") === (taint.value ?? "");
}

/**
 * The first taint the tolerations do not tolerate, or undefined. PreferNoSchedule taints are
 * soft and skipped unless `includePreferNoSchedule` (the scheduler treats them as hard until relaxed).
 */
export function untoleratedTaint(
  taints: readonly Taint[],
  tolerations: readonly Toleration[],
  includePreferNoSchedule = false,
): Taint | undefined {
  for (const taint of taints) {
    if (taint.effect === "PreferNoSchedule" && !includePreferNoSchedule) continue;
    if (!tolerations.some((t) => toleratesTaint(t, taint))) return taint;
  }
  return undefined;
}

/** `key=value:Effect`, as kubectl prints a taint. */
export function formatTaint(taint: Taint): string {
  return `${taint.key}${taint.value ? `=${taint.value}` : ""}:${taint.effect}`;
}

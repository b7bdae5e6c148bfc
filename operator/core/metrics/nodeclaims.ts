/**
 * Label values of Karpenter's NodeClaim counters (core pkg/metrics): `min_values_relaxed` of
 * `karpenter_nodeclaims_created_total`, `termination_mode` and `consolidation_policy` of
 * `karpenter_nodeclaims_disrupted_total` / `karpenter_pods_disruption_initiated_total`, `zone` of the terminated ones.
 * Each has a handful of values (true/false; graceful/eventual/forceful; three policies; the region's zones).
 */
import { Annotation, Label } from "../../../policies/domain/labels.ts";
import { DurationError, parseDuration } from "../../../policies/domain/duration.ts";
import type { NodeClaim } from "../lifecycle/objects.ts";

/** "true" when the NodeClaim was made with relaxed minValues (its annotation says so), else "false". */
export function minValuesRelaxed(claim: { readonly metadata?: NodeClaim["metadata"] }): string {
  return String(claim.metadata?.annotations?.[Annotation.minValuesRelaxed] === "true");
}

/**
 * How the NodeClaim terminates: "graceful" without a terminationGracePeriod (PDBs and do-not-disrupt hold),
 * "forceful" with a zero one, "eventual" with a positive one (it bounds the drain).
 */
export function terminationMode(claim: NodeClaim): "graceful" | "eventual" | "forceful" {
  const raw = claim.spec?.terminationGracePeriod;
  if (raw === undefined) return "graceful";
  try {
    const parsed = parseDuration(raw);
    return parsed === 0 ? "forceful" : "eventual";
  } catch (error) {
    if (error instanceof DurationError) return "graceful"; // the CRD rejects it; never reached for stored objects
    throw error;
  }
}

/**
 * A NodePool's consolidationPolicy as Karpenter labels it: snake case
 * (WhenEmptyOrUnderutilized → when_empty_…).
 */
export function consolidationPolicyLabel(policy: string | undefined): string {
  return (policy ?? "").replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

/** The zone label of a NodeClaim or Node ("" before it is known). */
export function zoneOf(
  obj:
    { readonly metadata?: { readonly labels?: Readonly<Record<string, string>> | undefined } | undefined } | undefined,
): string {
  return obj?.metadata?.labels?.[Label.zone] ?? "";
}

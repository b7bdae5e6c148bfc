/**
 * kerf extension: the NodePool annotation `kerf.dev/spot-to-spot-consolidation: "true" | "false"`
 * turns spot-to-spot consolidation on or off for that pool's nodes, whatever the operator-wide
 * SpotToSpotConsolidation feature gate says (Karpenter has only the global gate: core#1449). The
 * replacement rules stay Karpenter's (15 cheaper spot types). Read the same way by the webhook's
 * policy and the operator.
 */
export const SPOT_TO_SPOT_ANNOTATION = "kerf.dev/spot-to-spot-consolidation";

export type SpotToSpot =
  | { readonly kind: "absent" }
  | { readonly kind: "set"; readonly enabled: boolean }
  | { readonly kind: "invalid"; readonly message: string };

/** The annotation read from a NodePool's annotations. */
export function spotToSpotOf(annotations: Readonly<Record<string, unknown>> | undefined): SpotToSpot {
  const value = annotations?.[SPOT_TO_SPOT_ANNOTATION];
  if (value === undefined) return { kind: "absent" };
  if (value === "true" || value === "false") return { kind: "set", enabled: value === "true" };
  return { kind: "invalid", message: `${JSON.stringify(value)} is neither "true" nor "false"` };
}

/**
 * kerf extension: the NodePool annotation `kerf.dev/consolidate-empty-after` (a Go duration) lets
 * emptiness remove an empty node after that long, while underutilized nodes keep waiting for
 * `spec.disruption.consolidateAfter` (Karpenter has one knob for both: core#1757, core#2254). It
 * only ever makes empty nodes go sooner — with `consolidateAfter: Never` it removes empty nodes and
 * never reshuffles pods. Read the same way by the webhook's policy and the operator.
 */
import { NEVER, tryParseDuration } from "./duration.ts";

export const CONSOLIDATE_EMPTY_AFTER_ANNOTATION = "kerf.dev/consolidate-empty-after";

export type EmptyAfter =
  | { readonly kind: "absent" }
  | { readonly kind: "set"; readonly ms: number }
  | { readonly kind: "invalid"; readonly message: string };

/** The annotation read from a NodePool's annotations. */
export function emptyAfterOf(annotations: Readonly<Record<string, unknown>> | undefined): EmptyAfter {
  const value = annotations?.[CONSOLIDATE_EMPTY_AFTER_ANNOTATION];
  if (value === undefined) return { kind: "absent" };
  const text = typeof value === "string" ? value : "";
  const ms = tryParseDuration(text);
  if (ms === NEVER)
    return {
      kind: "invalid",
      message: `"Never" is not a delay; remove the annotation to leave empty nodes to consolidateAfter`,
    };
  if (ms === undefined || ms < 0)
    return { kind: "invalid", message: `"${text}" is not a Go duration of at least 0 such as "30s" or "5m"` };
  return { kind: "set", ms };
}

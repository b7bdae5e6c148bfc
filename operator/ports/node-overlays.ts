/** The NodeOverlay port (karpenter.sh/v1alpha1): the cached overlays, a direct list, and their status writes. */
import type { NodeOverlayObject } from "../core/overlay/apply.ts";

/** A NodeOverlay as the operator reads and writes it. */
export interface NodeOverlayLike extends NodeOverlayObject {
  readonly metadata?:
    | {
        readonly name?: string | undefined;
        readonly uid?: string | undefined;
        readonly generation?: number | undefined;
        readonly resourceVersion?: string | undefined;
      }
    | undefined;
  readonly status?: Readonly<Record<string, unknown>> | undefined;
}

export interface NodeOverlays {
  /** The informer's overlays (watched only with the NodeOverlay gate on). */
  cached(): readonly NodeOverlayLike[];
  /** One list from the apiserver; undefined when the NodeOverlay CRD is not installed. */
  list(): Promise<readonly NodeOverlayLike[] | undefined>;
  /** Writes status (a merge patch locked on the resourceVersion read); a deleted overlay is no failure. */
  patchStatus(overlay: NodeOverlayLike, status: Readonly<Record<string, unknown>>): Promise<void>;
}

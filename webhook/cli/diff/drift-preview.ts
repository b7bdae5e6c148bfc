/**
 * `kerf check --diff BASE [--cluster]`: reads the other side (base.ts) and, with --cluster, the live
 * NodeClaims (cluster.ts), applies the CRD defaults to the files' objects (the apiserver stores them
 * defaulted and the operator hashes what it stores), and hands everything to the pure previewDrift.
 */
import { previewDrift, type PreviewInput } from "../../../operator/core/drift-preview/preview.ts";
import type { NodeClaim } from "../../../operator/core/lifecycle/objects.ts";
import { applyDefaults } from "../../../policies/defaults.ts";
import { isKarpenterKind } from "../../../policies/evaluate.ts";
import type { SourceObject } from "../documents.ts";
import type { PreviewSection } from "../reporters/report.ts";
import { paint } from "../reporters/text.ts";
import { readBase, type Checked } from "./base.ts";
import { readCluster } from "./cluster.ts";
import { previewText } from "./render-text.ts";

export interface DiffOptions {
  /** A directory or a git revision. */
  readonly base: string;
  readonly cluster: boolean;
  readonly kubeconfig?: string | undefined;
  readonly now: Date;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The NodePools and EC2NodeClasses among `sources`, defaulted as the apiserver would store them. */
function previewInputs(sources: readonly SourceObject[]): PreviewInput[] {
  return sources.flatMap((s) => {
    const kind = isRecord(s.value) ? isKarpenterKind(s.value["apiVersion"], s.value["kind"]) : undefined;
    if (!isRecord(s.value) || (kind !== "NodePool" && kind !== "EC2NodeClass")) return [];
    return [{ kind, value: applyDefaults(kind, s.value), source: { file: s.file, line: s.position.line } }];
  });
}

/**
 * The drift preview of the checked objects against BASE, as a report section. Throws
 * KerfError for unreadable input.
 */
export async function driftPreviewSection(
  current: readonly SourceObject[],
  checked: Checked,
  options: DiffOptions,
): Promise<PreviewSection> {
  const [base, cluster] = await Promise.all([
    readBase(options.base, checked),
    options.cluster ? readCluster(options.kubeconfig) : undefined,
  ]);
  const live =
    cluster === undefined
      ? undefined
      : {
          nodeClaims: cluster.nodeClaims as readonly NodeClaim[],
          nodePools: cluster.nodePools,
          caBundle: cluster.caBundle,
        };
  const preview = previewDrift({ before: previewInputs(base), after: previewInputs(current), now: options.now, live });
  const origin = { against: options.base, cluster: cluster?.server };
  return {
    json: { against: origin.against, ...(origin.cluster === undefined ? {} : { cluster: origin.cluster }), ...preview },
    text: (render) => previewText(preview, origin, (colour, text) => paint(render, colour, text)),
  };
}

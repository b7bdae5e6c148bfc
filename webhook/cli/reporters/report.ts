/**
 * The result model every `kerf check` reporter renders: one entry per Karpenter object,
 * findings with source positions.
 */
import type { NodePoolExplanation } from "../explain.ts";

/** A policy finding placed in the source file. */
export interface Violation {
  readonly policy: string;
  /** "notice": a check that could not be made with the files given; never fails a run. */
  readonly severity: "deny" | "warn" | "notice";
  readonly path: string;
  readonly message: string;
  readonly line: number;
  readonly column: number;
}

/** An RFC 6902 operation defaulting would apply. */
export interface PatchOperation {
  readonly op: string;
  readonly path: string;
  readonly value?: unknown;
  readonly from?: string;
}

/** The verdict on one Karpenter object. */
export interface ObjectResult {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly kind: string;
  readonly name: string;
  readonly allowed: boolean;
  readonly violations: readonly Violation[];
  readonly patch: readonly PatchOperation[];
  /** With --explain, for NodePools whose requirements can be read. */
  readonly explain?: NodePoolExplanation;
}

/**
 * With `--diff`: the drift preview, rendered by its own module (webhook/cli/diff/) so the reporters need
 * not know the operator's data. `json` goes under the key "driftPreview"; `text` before the summary line.
 */
export interface PreviewSection {
  readonly json: unknown;
  readonly text: (options: RenderOptions) => readonly string[];
}

/** Everything one `kerf check` run found. */
export interface Report {
  readonly results: readonly ObjectResult[];
  /** Objects that are not NodePools, EC2NodeClasses or NodeClaims. */
  readonly skipped: number;
  readonly files: number;
  readonly driftPreview?: PreviewSection | undefined;
  /** Files that are not Kubernetes YAML (Helm templates, node_modules, …): notices, never failures. */
  readonly skippedFiles?: readonly SkippedFile[] | undefined;
  /** With `kerf check --cluster`: the cluster audited and the Karpenter API its objects were judged against. */
  readonly cluster?: ClusterNote | undefined;
}

/** The cluster a `--cluster` audit read. */
export interface ClusterNote {
  readonly context: string;
  readonly server: string;
  readonly karpenterApi: { readonly source: string; readonly version: string };
}

/** A file (or folder) `kerf check` did not read as manifests, and why. */
export interface SkippedFile {
  readonly file: string;
  readonly reason: string;
}

/** How a reporter renders. */
export interface RenderOptions {
  readonly color: boolean;
  readonly showDefaults: boolean;
}

/** Renders a report as the text written to stdout. */
export type Reporter = (report: Report, options: RenderOptions) => string;

/** Counts of deny, warn and notice findings over the whole report. */
export function tally(report: Report): { denied: number; warnings: number; notices: number; deniedObjects: number } {
  let denied = 0;
  let warnings = 0;
  let notices = 0;
  for (const result of report.results) {
    for (const v of result.violations) {
      if (v.severity === "deny") denied++;
      else if (v.severity === "warn") warnings++;
      else notices++;
    }
  }
  return { denied, warnings, notices, deniedObjects: report.results.filter((r) => !r.allowed).length };
}

/** `Kind/name` of a result, as shown to users. */
export function objectLabel(result: ObjectResult): string {
  return `${result.kind}/${result.name}`;
}

// The engine's public contract (Finding, Verdict, JsonPatchOp, EvaluateInput) and the internal Policy shape.
// Kind, Severity and JsonPatchOp live in the leaf modules that use them (no import circle) and are re-exported here.
import type { PolicyConfig, Severity } from "./config.ts";
import type { Catalog } from "./domain/catalog/catalog.ts";
import type { Fact } from "./facts.ts";
import type { KarpenterApi } from "./api/releases/index.ts";
import type { JsonPatchOp } from "./json-patch.ts";
import type { Kind } from "./kind.ts";

export type { Catalog, JsonPatchOp, Kind, Severity };

/**
 * A finding's severity: a configured Severity, or "notice" for a check that could not be made with
 * what was given (e.g. a NodePool checked without any EC2NodeClass). A notice never fails a run.
 */
export type FindingSeverity = Severity | "notice";

/**
 * One problem found in an object. `path` is apiserver style ("spec.disruption.budgets[1].schedule");
 * `policy` is "schema", "unknown-fields", "cel", "runtime", "strict" or a kerf policy id ("spot-diversity", ...).
 */
export interface Finding {
  policy: string;
  severity: FindingSeverity;
  path: string;
  message: string;
}

/** What evaluate() needs besides the object: the catalog, the policy config and (CLI) the render's node classes. */
export interface EvaluationContext {
  catalog: Catalog;
  config: PolicyConfig;
  /**
   * Names of EC2NodeClasses known in the same render (CLI); undefined in the webhook,
   * which skips nodeclassref-resolves.
   */
  nodeClassNames?: ReadonlySet<string>;
  /**
   * The Karpenter API (CRD schemas and CEL rules) to judge against: a bundled release or the cluster's installed
   * CRDs. Undefined = the bundled DEFAULT_KARPENTER_VERSION.
   */
  api?: KarpenterApi;
}

export interface EvaluateInput {
  kind: Kind;
  operation: "CREATE" | "UPDATE";
  object: unknown;
  oldObject?: unknown;
  context: EvaluationContext;
}

export interface Verdict {
  /** false iff some finding has severity "deny". */
  allowed: boolean;
  findings: Finding[];
  /**
   * The object with CRD (and kerf) defaults applied; shares unchanged subtrees with the
   * input (treat both as read-only).
   */
  defaulted: unknown;
  /** RFC 6902 patch from object to defaulted; [] when nothing was defaulted. */
  patch: JsonPatchOp[];
}

/** A finding as a rule reports it, before severity and exemptions are resolved. */
export interface Issue {
  path: string;
  message: string;
  /** Caps the severity at "warn" whatever the policy's configured severity (advisory sub-checks). */
  advisory?: boolean;
  /** Reported with severity "notice" (unless the policy is off): the check lacked the context to decide. */
  notice?: boolean;
  /** The fact stated, when another policy can state it too (policies/facts.ts keeps one finding per fact). */
  fact?: Fact;
}

/** Read-only view a policy gets: the defaulted object plus the evaluation context. */
export interface PolicyInput {
  kind: Kind;
  operation: "CREATE" | "UPDATE";
  /** The defaulted object (a plain JSON object; shape not yet guaranteed beyond schema validity). */
  object: Record<string, unknown>;
  oldObject: Record<string, unknown> | undefined;
  context: EvaluationContext;
}

/** A named, configurable check. Policies with `fixed: true` (schema, cel) ignore the config's severity. */
export interface Policy {
  id: string;
  kinds: readonly Kind[];
  defaultSeverity: Severity;
  description: string;
  /** The apiserver enforces it: its severity cannot be lowered and it cannot be exempted. */
  fixed?: boolean;
  /** Only when the CLI passes the render's node classes. */
  needsRender?: boolean;
  check(input: PolicyInput): Issue[];
}

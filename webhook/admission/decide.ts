/**
 * The admission decision as data: skip, evaluate, or fail closed on an engine error —
 * before any response is written.
 */
import { isDeepStrictEqual } from "node:util";
import type { Engine, Verdict } from "../engine.ts";
import type { DecodedRequest } from "./decode.ts";

/** Which endpoint answers: validation denies, mutation defaults. */
export type WebhookKind = "validate" | "mutate";

/** What to answer, and why. */
export interface Decision {
  readonly outcome: "allowed" | "denied" | "skipped" | "invalid" | "error";
  readonly allowed: boolean;
  /** HTTP-style code for a denial: 403 policy, 400 malformed object, 500 engine failure. */
  readonly code?: number;
  readonly message?: string;
  /** Findings of severity warn (validate) or defaults injected (mutate), already formatted. */
  readonly warnings: readonly string[];
  readonly patch: Verdict["patch"];
  readonly findings: Verdict["findings"];
  readonly skipReason?: string;
  readonly error?: unknown;
}

/** Policy inputs that do not come from the request. */
export interface DecideOptions {
  readonly engine: Engine;
  /** Callers whose writes are never checked (Karpenter's controller: it writes hash annotations). */
  readonly skipUsernames: ReadonlySet<string>;
}

const allow = (skipReason: string): Decision => ({
  outcome: "skipped",
  allowed: true,
  warnings: [],
  patch: [],
  findings: [],
  skipReason,
});

/**
 * Why kerf does not evaluate this request, or undefined when it does (the webhook
 * configuration should already filter these).
 */
export function skipReason(request: DecodedRequest, skipUsernames: ReadonlySet<string>): string | undefined {
  if (request.operation !== "CREATE" && request.operation !== "UPDATE") return `operation ${request.operation}`;
  if (request.kind === undefined) return `kind ${request.gvk} has no policies`;
  if (request.subResource !== "") return `subresource ${request.subResource}`;
  if (skipUsernames.has(request.username)) return `caller ${request.username}`;
  if (request.operation === "UPDATE" && isMetadataOnly(request.object, request.oldObject))
    return "metadata-only update";
  return undefined;
}

function isMetadataOnly(object: unknown, oldObject: unknown): boolean {
  const spec = (o: unknown): unknown =>
    typeof o === "object" && o !== null ? (o as { spec?: unknown }).spec : undefined;
  return oldObject !== undefined && spec(object) !== undefined && isDeepStrictEqual(spec(object), spec(oldObject));
}

/** Decides one request; never throws (an engine error becomes allowed:false with code 500). */
export function decide(request: DecodedRequest, webhook: WebhookKind, options: DecideOptions): Decision {
  const reason = skipReason(request, options.skipUsernames);
  if (reason !== undefined || request.kind === undefined) return allow(reason ?? "unknown kind");
  if (typeof request.object !== "object" || request.object === null) {
    return {
      outcome: "invalid",
      allowed: false,
      code: 400,
      message: "request.object: must be an object",
      warnings: [],
      patch: [],
      findings: [],
    };
  }
  let verdict: Verdict;
  try {
    verdict = options.engine.evaluate({
      kind: request.kind,
      operation: request.operation === "UPDATE" ? "UPDATE" : "CREATE",
      object: request.object,
      ...(request.operation === "UPDATE" && request.oldObject !== undefined ? { oldObject: request.oldObject } : {}),
      context: options.engine.context,
    });
  } catch (error) {
    return {
      outcome: "error",
      allowed: false,
      code: 500,
      message: "kerf could not evaluate the object; see the webhook log",
      warnings: [],
      patch: [],
      findings: [],
      error,
    };
  }
  return webhook === "validate" ? validation(verdict) : mutation(verdict);
}

function validation(verdict: Verdict): Decision {
  const denies = verdict.findings.filter((f) => f.severity === "deny");
  const warnings = verdict.findings.filter((f) => f.severity === "warn").map((f) => `${f.path}: ${f.message}`);
  if (denies.length === 0 && verdict.allowed)
    return { outcome: "allowed", allowed: true, warnings, patch: [], findings: verdict.findings };
  const message = denies.length > 0 ? denies.map((f) => `${f.path}: ${f.message}`).join("\n") : "denied by kerf policy";
  return { outcome: "denied", allowed: false, code: 403, message, warnings, patch: [], findings: verdict.findings };
}

/** Mutation only adds defaults; denying is the validating webhook's job, so a mutate answer is always allowed. */
function mutation(verdict: Verdict): Decision {
  const warnings = verdict.patch
    .filter((op) => op.op === "add")
    .map((op) => `kerf defaulted ${op.path} to ${JSON.stringify(op.value)}`);
  return { outcome: "allowed", allowed: true, warnings, patch: verdict.patch, findings: [] };
}

/**
 * Decision → admission.k8s.io/v1 AdmissionReview response: uid echo, status on deny, warnings
 * ≤ 120 chars, base64 JSONPatch.
 */
import type { Decision } from "./decide.ts";

/** Longest admission warning kerf sends; the apiserver may truncate longer ones. */
export const MAX_WARNING_LENGTH = 120;
/** Most warnings kerf attaches to one response; the apiserver may drop large numbers of them. */
export const MAX_WARNINGS = 20;

/** The AdmissionResponse kerf sends. */
export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: { code: number; message: string; reason?: string };
  warnings?: string[];
  patchType?: "JSONPatch";
  patch?: string;
}

/** The AdmissionReview answer envelope. */
export interface AdmissionReviewResponse {
  apiVersion: "admission.k8s.io/v1";
  kind: "AdmissionReview";
  response: AdmissionResponse;
}

/** Shortens a warning to MAX_WARNING_LENGTH characters, marking the cut with an ellipsis. */
export function clampWarning(text: string): string {
  const oneLine = text.replace(/\s*\n\s*/g, " ");
  return oneLine.length <= MAX_WARNING_LENGTH ? oneLine : `${oneLine.slice(0, MAX_WARNING_LENGTH - 1)}…`;
}

function reasonFor(code: number): string {
  if (code === 400) return "BadRequest";
  if (code === 500) return "InternalError";
  return "Forbidden";
}

/** Builds the review answering request `uid`. */
export function respond(uid: string, decision: Decision): AdmissionReviewResponse {
  const response: AdmissionResponse = { uid, allowed: decision.allowed };
  if (!decision.allowed) {
    const code = decision.code ?? 403;
    response.status = { code, message: decision.message ?? "denied by kerf", reason: reasonFor(code) };
  }
  if (decision.warnings.length > 0) {
    const shown = decision.warnings.slice(0, MAX_WARNINGS).map(clampWarning);
    if (decision.warnings.length > MAX_WARNINGS)
      shown[MAX_WARNINGS - 1] = `kerf: ${decision.warnings.length - MAX_WARNINGS + 1} more warnings not shown`;
    response.warnings = shown;
  }
  if (decision.allowed && decision.patch.length > 0) {
    response.patchType = "JSONPatch";
    response.patch = Buffer.from(JSON.stringify(decision.patch)).toString("base64");
  }
  return { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response };
}

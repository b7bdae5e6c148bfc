/** AdmissionReview request → the fields kerf decides on (kind, operation, objects, caller, dry-run). */
import type { Kind } from "../engine.ts";

/** The parts of admission.k8s.io/v1 AdmissionRequest kerf reads; the envelope schema has already checked the shape. */
export interface AdmissionRequest {
  readonly uid: string;
  readonly kind: { readonly group?: string; readonly version?: string; readonly kind: string };
  readonly operation: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  readonly subResource?: string;
  readonly userInfo?: { readonly username?: string };
  readonly object?: unknown;
  readonly oldObject?: unknown;
  readonly dryRun?: boolean;
}

/** The AdmissionReview body a webhook endpoint receives. */
export interface AdmissionReviewBody {
  readonly apiVersion: string;
  readonly kind: string;
  readonly request: AdmissionRequest;
}

/** A decoded request: `kind` is undefined for objects kerf has no policies for. */
export interface DecodedRequest {
  readonly uid: string;
  readonly kind: Kind | undefined;
  /** `group/version, Kind=X` of the request, for logs. */
  readonly gvk: string;
  readonly operation: AdmissionRequest["operation"];
  readonly subResource: string;
  readonly username: string;
  readonly object: unknown;
  readonly oldObject: unknown;
  readonly dryRun: boolean;
  readonly name: string;
}

/** Decodes a schema-checked review; `classify` maps apiVersion + kind to a Karpenter kind. */
export function decodeReview(
  body: AdmissionReviewBody,
  classify: (apiVersion: unknown, kind: unknown) => Kind | undefined,
): DecodedRequest {
  const request = body.request;
  const group = request.kind.group ?? "";
  const version = request.kind.version ?? "";
  const apiVersion = group === "" ? version : `${group}/${version}`;
  return {
    uid: request.uid,
    kind: classify(apiVersion, request.kind.kind),
    gvk: `${apiVersion}, Kind=${request.kind.kind}`,
    operation: request.operation,
    subResource: request.subResource ?? "",
    username: request.userInfo?.username ?? "",
    object: request.object ?? undefined,
    oldObject: request.oldObject ?? undefined,
    dryRun: request.dryRun === true,
    name: objectName(request.object) ?? objectName(request.oldObject) ?? "",
  };
}

function objectName(object: unknown): string | undefined {
  if (typeof object !== "object" || object === null) return undefined;
  const metadata = (object as { metadata?: unknown }).metadata;
  if (typeof metadata !== "object" || metadata === null) return undefined;
  const name = (metadata as { name?: unknown }).name;
  return typeof name === "string" ? name : undefined;
}

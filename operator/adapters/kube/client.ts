/**
 * The kube adapter's error boundary: maps ApiException status codes
 * (404/409/410/422/429) to typed errors, once, here.
 */
import { ApiException, PatchStrategy, setHeaderOptions, type ConfigurationOptions } from "@kubernetes/client-node";

/** A Kubernetes API failure with its HTTP status and the Status `reason` from the body. */
export class KubeApiError extends Error {
  readonly code: number;
  readonly reason: string;
  constructor(doing: string, code: number, reason: string, options?: { cause?: unknown }) {
    super(`${doing}: HTTP ${code} ${reason}`, options);
    this.name = "KubeApiError";
    this.code = code;
    this.reason = reason;
  }
}
/** 404: the object does not exist. */
export class NotFoundError extends KubeApiError {
  override name = "NotFoundError";
}
/** 409: resourceVersion conflict or already exists; requeue and re-read. */
export class ConflictError extends KubeApiError {
  override name = "ConflictError";
}
/** 410: the watch/list resource version is too old. */
export class GoneError extends KubeApiError {
  override name = "GoneError";
}
/** 422: the object (or a JSON Patch `test` op) was rejected. */
export class InvalidError extends KubeApiError {
  override name = "InvalidError";
}
/** 429: throttled, or an eviction blocked by a PodDisruptionBudget. */
export class TooManyRequestsError extends KubeApiError {
  override name = "TooManyRequestsError";
}

const byCode: Readonly<Record<number, typeof KubeApiError>> = {
  404: NotFoundError,
  409: ConflictError,
  410: GoneError,
  422: InvalidError,
  429: TooManyRequestsError,
};

function statusMessage(body: unknown): string {
  if (typeof body !== "string") return "";
  try {
    const parsed = JSON.parse(body) as { message?: string; reason?: string };
    return parsed.message ?? parsed.reason ?? "";
  } catch {
    return body.slice(0, 200);
  }
}

/** Converts any error from client-node into a typed KubeApiError (others pass through). */
export function classify(doing: string, error: unknown): unknown {
  if (!(error instanceof ApiException)) return error;
  const code = error.code;
  const Ctor = byCode[code] ?? KubeApiError;
  return new Ctor(doing, code, statusMessage(error.body), { cause: error });
}

/** Runs a kube call and rethrows its failure as a typed error whose message says what we were doing. */
export async function kube<T>(doing: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw classify(doing, error);
  }
}

/** Like `kube`, but resolves to undefined when the object is gone (404). */
export async function kubeIgnoreNotFound<T>(doing: string, call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await kube(doing, call);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/** Request options for a JSON merge patch (client-node defaults to JSON Patch). */
export const mergePatch: ConfigurationOptions = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

/** Whether `error` means "re-read and try again" (write conflict or failed JSON Patch test). */
export function isConflict(error: unknown): boolean {
  return error instanceof ConflictError || error instanceof InvalidError;
}

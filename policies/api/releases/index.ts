// The Karpenter API releases kerf validates against: each release's own CRD schemas (with their
// x-kubernetes-validations), vendored by .ci/crds/vendor-upstream-crds.ts. A cluster's installed CRDs can stand
// in for a bundled release (the webhook reads them); the engine treats both the same.
import type { Kind } from "../../types.ts";
import type { SchemaNode } from "../schemas/openapi.ts";
import v1_14_1 from "./karpenter-v1.14.1.json" with { type: "json" };

/** One Karpenter API: the openAPIV3Schema (v1) of each kind, as its CRDs define it. */
export interface KarpenterApi {
  /** A release ("1.14.1") or, for a cluster's CRDs, what they say they are. */
  readonly version: string;
  readonly source: "bundled" | "cluster";
  readonly schemas: Readonly<Record<Kind, SchemaNode>>;
}

/** The release kerf's contract is written against, and what is used when nothing else is said. */
export const DEFAULT_KARPENTER_VERSION = "1.14.1";

const RELEASES: Readonly<Record<string, { version: string; schemas: Record<string, unknown> }>> = {
  "1.14.1": v1_14_1,
};

/** The bundled releases, oldest first. */
export const BUNDLED_KARPENTER_VERSIONS: readonly string[] = Object.keys(RELEASES);

/** Thrown for a version kerf does not bundle; the message lists the ones it does. */
export class UnknownKarpenterVersionError extends Error {
  readonly version: string;
  constructor(version: string) {
    super(`selecting Karpenter API ${version}: not bundled (bundled: ${BUNDLED_KARPENTER_VERSIONS.join(", ")})`);
    this.name = "UnknownKarpenterVersionError";
    this.version = version;
  }
}

const CACHE = new Map<string, KarpenterApi>();

/** A bundled release's API; the same object for the same version (validators are cached per object). */
export function bundledKarpenterApi(version: string = DEFAULT_KARPENTER_VERSION): KarpenterApi {
  const key = version.replace(/^v/, "");
  let api = CACHE.get(key);
  if (api === undefined) {
    const release = Object.hasOwn(RELEASES, key) ? RELEASES[key] : undefined;
    if (release === undefined) throw new UnknownKarpenterVersionError(version);
    api = Object.freeze({ version: key, source: "bundled" as const, schemas: Object.freeze(release.schemas as unknown as Record<Kind, SchemaNode>) });
    CACHE.set(key, api);
  }
  return api;
}

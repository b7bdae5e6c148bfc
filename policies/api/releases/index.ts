// The Karpenter API releases kerf validates against: each release's own CRD schemas (with their
// x-kubernetes-validations), vendored by .ci/crds/vendor-upstream-crds.ts. A cluster's installed CRDs can stand
// in for a bundled release (the webhook reads them; see from-crds.ts); the engine treats both the same.
import type { Kind } from "../../kind.ts";
import { jsonEqual } from "../../json-patch.ts";
import type { SchemaNode } from "../schemas/openapi.ts";
import v1_0_8 from "./karpenter-v1.0.8.json" with { type: "json" };
import v1_8_2 from "./karpenter-v1.8.2.json" with { type: "json" };
import v1_9_3 from "./karpenter-v1.9.3.json" with { type: "json" };
import v1_10_2 from "./karpenter-v1.10.2.json" with { type: "json" };
import v1_11_0 from "./karpenter-v1.11.0.json" with { type: "json" };
import v1_12_0 from "./karpenter-v1.12.0.json" with { type: "json" };
import v1_13_1 from "./karpenter-v1.13.1.json" with { type: "json" };
import v1_14_1 from "./karpenter-v1.14.1.json" with { type: "json" };
import v1_14_3 from "./karpenter-v1.14.3.json" with { type: "json" };
import v1_15_1 from "./karpenter-v1.15.1.json" with { type: "json" };

/** One Karpenter API: the openAPIV3Schema (v1) of each kind, as its CRDs define it. */
export interface KarpenterApi {
  /** A release ("1.14.1") or, for a cluster's CRDs, what they say they are ("cluster" when they say nothing). */
  readonly version: string;
  readonly source: "bundled" | "cluster";
  readonly schemas: Readonly<Record<Kind, SchemaNode>>;
}

/** The release kerf's contract is written against, and what is used when nothing else is said. */
export const DEFAULT_KARPENTER_VERSION = "1.14.1";

interface Release {
  readonly version: string;
  readonly schemas: Record<string, unknown>;
}

// The newest patch of each minor the Go module proxy serves from v1.0 on (v1.1–v1.7 are not served), plus 1.14.1,
// the contract's release. Oldest first.
const RELEASES: readonly Release[] = [
  v1_0_8,
  v1_8_2,
  v1_9_3,
  v1_10_2,
  v1_11_0,
  v1_12_0,
  v1_13_1,
  v1_14_1,
  v1_14_3,
  v1_15_1,
];

/** The bundled releases, oldest first. */
export const BUNDLED_KARPENTER_VERSIONS: readonly string[] = Object.freeze(RELEASES.map((r) => r.version));

/** Thrown for a version kerf does not bundle; the message lists the ones it does. */
export class UnknownKarpenterVersionError extends Error {
  readonly version: string;
  constructor(version: string) {
    super(
      `selecting Karpenter API ${JSON.stringify(version)}: not bundled ` +
        `(bundled: ${BUNDLED_KARPENTER_VERSIONS.join(", ")})`,
    );
    this.name = "UnknownKarpenterVersionError";
    this.version = version;
  }
}

/**
 * The bundled release a user means: "1.14.1" or "v1.14.1" exactly, "1.14" (or "v1.14") the newest bundled 1.14.x.
 * Throws UnknownKarpenterVersionError otherwise.
 */
export function resolveKarpenterVersion(text: string): string {
  const key = text.trim().replace(/^v/, "");
  if (BUNDLED_KARPENTER_VERSIONS.includes(key)) return key;
  if (/^\d+\.\d+$/.test(key)) {
    const newest = BUNDLED_KARPENTER_VERSIONS.findLast((v) => v.startsWith(`${key}.`));
    if (newest !== undefined) return newest;
  }
  throw new UnknownKarpenterVersionError(text);
}

const CACHE = new Map<string, KarpenterApi>();

/** A bundled release's API (any form resolveKarpenterVersion takes); the same object for the same release. */
export function bundledKarpenterApi(version: string = DEFAULT_KARPENTER_VERSION): KarpenterApi {
  const key = resolveKarpenterVersion(version);
  let api = CACHE.get(key);
  if (api === undefined) {
    const release = RELEASES.find((r) => r.version === key) as Release;
    const schemas = Object.freeze(release.schemas as unknown as Record<Kind, SchemaNode>);
    api = Object.freeze({ version: key, source: "bundled" as const, schemas });
    CACHE.set(key, api);
  }
  return api;
}

/**
 * The bundled release whose schemas these are, exactly (key order aside; the newest when releases share them, as
 * 1.14.1 and 1.14.3 do), or undefined. Karpenter's own CRDs do not say which release they are; their schemas do.
 */
export function identifyKarpenterRelease(schemas: Readonly<Record<Kind, SchemaNode>>): string | undefined {
  return RELEASES.findLast((release) => jsonEqual(release.schemas, schemas))?.version;
}

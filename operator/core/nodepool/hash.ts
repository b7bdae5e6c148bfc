/**
 * The NodePool drift hash (karpenter-behaviour.md §4.10, karpenter-v1-api.md §9): the value of the
 * `karpenter.sh/nodepool-hash` annotation the operator writes on every NodePool and stamps on every
 * NodeClaim it creates, with `karpenter.sh/nodepool-hash-version`.
 *
 * Hashed, as Karpenter hashes `spec.template`: `metadata.labels` and `metadata.annotations` (maps:
 * key order never matters) and every field of `spec.template.spec` except `requirements` — today
 * taints, startupTaints, nodeClassRef, expireAfter and terminationGracePeriod; a field the CRD adds
 * later is hashed without a code change, as Karpenter's struct hash would.
 *
 * Not hashed, and why:
 * - `spec.template.spec.requirements` (Karpenter's `hash:"ignore"`): a requirements change is caught
 *   by RequirementsDrifted, which only drifts NodeClaims whose labels no longer fit.
 * - everything outside `spec.template` (disruption, limits, weight, replicas): changing those must
 *   not replace nodes.
 * - the spelling of durations: expireAfter and terminationGracePeriod are hashed by value ("1h" and
 *   "60m" agree; Karpenter keeps the raw bytes for GitOps under `hash:"ignore"`). `Never` hashes as
 *   an absent expireAfter (Karpenter's nil duration); the CRD defaults an absent one to 720h.
 * - empty values in spec ("" strings, empty lists and maps) and empty label/annotation maps, as
 *   hashstructure's IgnoreZeroValue/ZeroNil (a label whose value is "" is still hashed).
 *
 * taints and startupTaints are sets (hashstructure's SlicesAsSets): their order does not matter.
 *
 * The value is FNV-1a 64 over canonical JSON, not Karpenter's Go hashstructure bytes: stable and
 * deterministic, but a NodePool hashed by Karpenter carries a different number.
 */
import { NEVER, tryParseDuration } from "../../../policies/domain/duration.ts";
import { canonicalJson, fnv64, pruned } from "../launch-template/hash.ts";
import type { Condition } from "../lifecycle/objects.ts";

/** Annotation keys and the hash version this code writes. */
export const NodePoolHash = {
  key: "karpenter.sh/nodepool-hash",
  versionKey: "karpenter.sh/nodepool-hash-version",
  /**
   * kerf's own hash version. Karpenter writes "v3" (v1.0.0–v1.14.1) over Go hashstructure bytes that
   * kerf does not reproduce, so sharing "v3" would make either tool see the other's NodeClaims as
   * drifted and replace the fleet; a different version makes both re-stamp instead (behaviour §4.10).
   * Bump it whenever the hashed fields or their normalisation change.
   */
  version: "kerf-1",
} as const;

type Obj = Readonly<Record<string, unknown>>;
const obj = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});

const EXCLUDED = new Set(["requirements"]);
const DURATIONS = new Set(["expireAfter", "terminationGracePeriod"]);
const SETS = new Set(["taints", "startupTaints"]);

/** A label or annotation map as it is (values may be ""), undefined when empty. */
function nonEmptyMap(value: unknown): Obj | undefined {
  const map = obj(value);
  return Object.keys(map).length === 0 ? undefined : map;
}

/** A duration by value (milliseconds); Never as absent; an unparseable string as itself. */
function durationValue(raw: unknown): unknown {
  const parsed = tryParseDuration(raw);
  if (parsed === undefined) return raw;
  return parsed === NEVER ? undefined : parsed;
}

function normalisedField(field: string, value: unknown): unknown {
  if (DURATIONS.has(field)) return durationValue(value);
  const clean = pruned(value);
  return SETS.has(field) && Array.isArray(clean)
    ? clean
        .map((v) => [canonicalJson(v), v] as const)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([, v]) => v)
    : clean;
}

/** The part of a NodePool the hash covers, normalised (exported for tests and `kerf check` previews). */
export function hashedTemplate(pool: { readonly spec?: Obj | undefined }): unknown {
  const template = obj(pool.spec?.["template"]);
  const meta = obj(template["metadata"]);
  const spec = Object.entries(obj(template["spec"]))
    .filter(([k]) => !EXCLUDED.has(k))
    .map(([k, v]) => [k, normalisedField(k, v)] as const);
  return {
    metadata: { labels: nonEmptyMap(meta["labels"]), annotations: nonEmptyMap(meta["annotations"]) },
    spec: Object.fromEntries(spec.filter(([, v]) => v !== undefined)),
  };
}

/** The `karpenter.sh/nodepool-hash` value of a NodePool (a decimal uint64, like Karpenter's). */
export function nodePoolHash(pool: { readonly spec?: Obj | undefined }): string {
  return fnv64(canonicalJson(hashedTemplate(pool)));
}

/** The two annotations a NodePool and the NodeClaims created from it carry. */
export function hashAnnotations(pool: { readonly spec?: Obj | undefined }): Record<string, string> {
  return { [NodePoolHash.key]: nodePoolHash(pool), [NodePoolHash.versionKey]: NodePoolHash.version };
}

/** The NodePool fields the hash controller reads. */
export interface HashedPool {
  readonly metadata?: { readonly annotations?: Readonly<Record<string, string>> | undefined } | undefined;
  readonly spec?: Obj | undefined;
}

/** The NodeClaim fields a re-stamp reads. */
export interface StampedClaim {
  readonly metadata?: { readonly annotations?: Readonly<Record<string, string>> | undefined } | undefined;
  readonly status?: { readonly conditions?: readonly Condition[] | undefined } | undefined;
}

/** What the nodepool.hash controller writes for one NodePool. */
export interface HashUpdate<C> {
  /** The two annotations to merge into the NodePool; absent when it already carries them. */
  readonly pool?: Readonly<Record<string, string>>;
  /** NodeClaims to re-stamp, each with its whole new annotation map. */
  readonly claims: readonly { readonly claim: C; readonly annotations: Readonly<Record<string, string>> }[];
}

/**
 * Karpenter's nodepool.hash controller: the NodePool gets the current hash and version. When the
 * version it carried differs from ours (first stamp, or a hashing change), the hash cannot be
 * compared across versions, so each of its NodeClaims (`claims`: those labelled with the pool) whose
 * version differs is re-stamped with the version and — unless already Drifted, which must stay —
 * the new hash. Re-stamping never drifts a NodeClaim.
 */
export function planHashUpdate<C extends StampedClaim>(pool: HashedPool, claims: readonly C[]): HashUpdate<C> {
  const want = hashAnnotations(pool);
  const have = pool.metadata?.annotations ?? {};
  const poolUpdate = Object.entries(want).every(([k, v]) => have[k] === v) ? {} : { pool: want };
  if (have[NodePoolHash.versionKey] === NodePoolHash.version) return { ...poolUpdate, claims: [] };
  const stale = claims.filter((c) => c.metadata?.annotations?.[NodePoolHash.versionKey] !== NodePoolHash.version);
  return {
    ...poolUpdate,
    claims: stale.map((claim) => {
      const drifted = (claim.status?.conditions ?? []).some((c) => c.type === "Drifted");
      const stamp = drifted ? { [NodePoolHash.versionKey]: NodePoolHash.version } : want;
      return { claim, annotations: { ...(claim.metadata?.annotations ?? {}), ...stamp } };
    }),
  };
}

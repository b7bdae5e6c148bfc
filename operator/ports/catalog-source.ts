/** The catalog port: the instance types, offerings and prices the cloud provider offers the scheduler. */
import type { Catalog } from "../../policies/domain/catalog/catalog.ts";

/** The three parts of a catalog that refresh on their own cadence. */
export type CatalogPart = "instanceTypes" | "spotPrices" | "onDemandPrices";

/**
 * Where a part's figures come from: `api` (AWS answered), `bundled` (kerf's offline data for the region),
 * `on-demand-estimate` (spot only: the on-demand price stands in, as in Karpenter before its first spot
 * answer) or `none` (no data at all: a region kerf bundles nothing for, before AWS answered).
 */
export type CatalogDataSource = "api" | "bundled" | "on-demand-estimate" | "none";

/** One part's freshness: its source, when it was last refreshed and the last failure, if any. */
export interface PartFreshness {
  readonly source: CatalogDataSource;
  readonly refreshedAt?: Date | undefined;
  readonly failedAt?: Date | undefined;
  /** "doing X: cause" of the last failed refresh (kept until the next success). */
  readonly error?: string | undefined;
  /** Why a part is not asked of AWS (e.g. an isolated VPC skips the Pricing API). */
  readonly note?: string | undefined;
}

/** The catalog's freshness, part by part. */
export interface CatalogFreshness {
  readonly region: string;
  readonly parts: Readonly<Record<CatalogPart, PartFreshness>>;
}

/**
 * The catalog in force. `current()` returns the same object until a refresh changes it, so callers may
 * cache what they derive from it by identity.
 */
export interface CatalogSource {
  current(): Catalog;
}

/** A catalog that never changes (tests, offline tools). */
export function fixedCatalog(catalog: Catalog): CatalogSource {
  return { current: () => catalog };
}

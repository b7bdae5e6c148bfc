/**
 * The catalogs shipped with kerf: one per commercial region moto has offering files for, built by
 * scripts/catalog/build.ts (data/). Each region is parsed once, on first use.
 */
import typesDocument from "./data/types.json" with { type: "json" };
import { REGION_DOCUMENTS } from "./data/regions.ts";
import { parseRegionDocument, parseTypesDocument, type BundledCatalog } from "./bundled.ts";

/** The region kerf assumes when none is given (the one its first catalog covered). */
export const DEFAULT_REGION = "us-east-1";

let specs: ReturnType<typeof parseTypesDocument> | undefined;
const cached = new Map<string, BundledCatalog>();

/**
 * A region kerf has no bundled data for. (Not a CatalogError subclass: catalog.ts re-exports this module,
 * and extending a class of a module in an import cycle fails when that module loads first.)
 */
export class UnknownRegionError extends Error {
  readonly region: string;
  constructor(region: string) {
    super(`no bundled catalog for region "${region}" (bundled: ${bundledRegions().join(", ")})`);
    this.name = "UnknownRegionError";
    this.region = region;
  }
}

/** The regions with bundled data, sorted. */
export function bundledRegions(): readonly string[] {
  return Object.keys(REGION_DOCUMENTS).sort();
}

/** Whether kerf bundles data for `region`. */
export function isBundledRegion(region: string): boolean {
  return Object.hasOwn(REGION_DOCUMENTS, region);
}

/**
 * The bundled catalog of `region` (default us-east-1: 1,345 types); throws UnknownRegionError for a
 * region kerf has no data for. The same object on every call for a region.
 */
export function builtinCatalog(region: string = DEFAULT_REGION): BundledCatalog {
  let catalog = cached.get(region);
  if (catalog === undefined) {
    if (!isBundledRegion(region)) throw new UnknownRegionError(region);
    specs ??= parseTypesDocument(typesDocument, "data/types.json");
    catalog = parseRegionDocument(REGION_DOCUMENTS[region], specs, `data/regions/${region}.json`);
    cached.set(region, catalog);
  }
  return catalog;
}

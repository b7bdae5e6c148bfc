/**
 * Reads kerf's bundled data (data/types.json and data/regions/<region>.json, built by
 * scripts/catalog/build.ts) back into a Catalog (pure: the documents come in parsed).
 *
 * Contract: the entries have exactly the fields of the schemaVersion 1 catalog (CatalogEntry plus
 * its provenance fields), so us-east-1 reads as it always did. In a region whose spot figures are
 * not bundled, a spot-capable type's spot offerings are priced at its on-demand price: the cap a spot
 * price never exceeds, and what Karpenter's pricing provider assumes before its first spot price
 * update. `catalog.provenance.spot` is null there, and entries say `spotPriceSource: "on-demand-cap"`.
 */
import { CatalogError, type Catalog, type CatalogEntry } from "./catalog.ts";

/** Where a catalog's prices of one capacity type come from. */
export interface PriceSource {
  /** For people: the table or feed, and its caveats. */
  readonly description: string;
  /** When the figures were taken (a date or time; free text when the source does not record it). */
  readonly asOf: string;
  /** The region the figures are prices of (another region's when a source has none for this one). */
  readonly pricesOfRegion: string;
}

/** Where a catalog's data comes from: kerf's bundled files, with each price kind's source. */
export interface CatalogProvenance {
  readonly source: "bundled";
  /** When the bundled files were built (YYYY-MM-DD). */
  readonly generated: string;
  readonly onDemand: PriceSource;
  /** null: no spot figures are bundled for the region; spot offerings are priced at on-demand (the cap). */
  readonly spot: PriceSource | null;
}

/** A catalog read from the bundled files: a Catalog plus where its figures come from. */
export interface BundledCatalog extends Catalog {
  readonly provenance: CatalogProvenance;
}

/** The provenance of a catalog that has one (the bundled catalogs), else undefined. */
export function catalogProvenance(catalog: Catalog): CatalogProvenance | undefined {
  const provenance = (catalog as Partial<BundledCatalog>).provenance;
  return provenance?.source === "bundled" ? provenance : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A document's rows as objects keyed by its `columns`; CatalogError naming the file and row when malformed. */
function rows(document: Record<string, unknown>, file: string): Record<string, unknown>[] {
  const columns = document["columns"];
  const list = document["instanceTypes"];
  if (!Array.isArray(columns) || !columns.every((c) => typeof c === "string") || !Array.isArray(list)) {
    throw new CatalogError(`${file}: expected "columns" (strings) and "instanceTypes" (rows)`);
  }
  return list.map((row: unknown, index) => {
    if (!Array.isArray(row) || row.length !== columns.length || typeof row[0] !== "string") {
      throw new CatalogError(
        `${file}: instanceTypes[${index}] is not a row of ${columns.length} values ` + "starting with a name",
      );
    }
    // A plain loop: this runs for every row of every region read, on the CLI's and the webhook's start.
    const object: Record<string, unknown> = {};
    for (let i = 0; i < columns.length; i += 1) object[columns[i] as string] = row[i];
    return object;
  });
}

function header(document: unknown, file: string, kind: string): Record<string, unknown> {
  if (!isRecord(document) || document["schemaVersion"] !== 2 || document["kind"] !== kind) {
    throw new CatalogError(`${file}: not a schemaVersion 2 ${kind} document`);
  }
  return document;
}

/** The region-independent spec fields by type name (parseTypesDocument). */
export type Specs = ReadonlyMap<string, Record<string, unknown>>;

/** The region-independent specs by type name. */
export function parseTypesDocument(document: unknown, file = "types.json"): Specs {
  const specs = new Map<string, Record<string, unknown>>();
  for (const row of rows(header(document, file, "kerf-instance-type-specs"), file)) {
    const allocatable = row["allocatable"];
    if (!Array.isArray(allocatable) || allocatable.length !== 4) {
      throw new CatalogError(`${file}: ${String(row["name"])} allocatable is not 4 numbers`);
    }
    const [cpuMillicores, memoryMiB, ephemeralStorageGiB, pods] = allocatable as number[];
    specs.set(String(row["name"]), { ...row, allocatable: { cpuMillicores, memoryMiB, ephemeralStorageGiB, pods } });
  }
  return specs;
}

function provenanceOf(document: Record<string, unknown>, file: string): CatalogProvenance {
  const region = document["region"];
  const prices = document["prices"];
  const onDemand = isRecord(prices) ? prices["onDemand"] : undefined;
  const spot = isRecord(prices) ? prices["spot"] : undefined;
  const texts = (value: unknown, ...keys: string[]): value is Record<string, string> =>
    isRecord(value) && keys.every((key) => typeof value[key] === "string");
  if (!texts(onDemand, "description", "asOf", "table")) {
    throw new CatalogError(`${file}: prices.onDemand needs description, table and asOf`);
  }
  if (spot !== null && !texts(spot, "description", "asOf")) {
    throw new CatalogError(`${file}: prices.spot must be null or have description and asOf`);
  }
  return {
    source: "bundled",
    generated: String(document["generated"]),
    onDemand: {
      description: String(onDemand["description"]),
      asOf: String(onDemand["asOf"]),
      pricesOfRegion: String(onDemand["table"]),
    },
    spot:
      spot === null
        ? null
        : { description: String(spot["description"]), asOf: String(spot["asOf"]), pricesOfRegion: String(region) },
  };
}

interface SpotFields {
  readonly spotPricePerHour: number | null;
  readonly spotPriceDerived: boolean;
  readonly spotPriceSource: string | null;
  readonly spotAdvisorSavingsPct: unknown;
  readonly spotInterruptionRange: unknown;
}

function spotFields(row: Record<string, unknown>, spec: Record<string, unknown>, bundled: boolean): SpotFields {
  const capable = Array.isArray(spec["capacityTypes"]) && spec["capacityTypes"].includes("spot");
  if (bundled) {
    const price = typeof row["spotPricePerHour"] === "number" ? row["spotPricePerHour"] : null;
    return {
      spotPricePerHour: price,
      spotPriceDerived: false,
      spotPriceSource: price === null ? null : "aws-spot-pricing-feed",
      spotAdvisorSavingsPct: row["spotAdvisorSavingsPct"] ?? null,
      spotInterruptionRange: row["spotInterruptionRange"] ?? null,
    };
  }
  const price = capable ? (row["onDemandPricePerHour"] as number) : null;
  return {
    spotPricePerHour: price,
    spotPriceDerived: price !== null,
    spotPriceSource: price === null ? null : "on-demand-cap",
    spotAdvisorSavingsPct: null,
    spotInterruptionRange: null,
  };
}

/** The key order of the schemaVersion 1 entries (kept so a bundled entry serialises as before). */
const ENTRY_KEYS = [
  "name",
  "family",
  "category",
  "generation",
  "size",
  "arch",
  "vcpu",
  "memoryMiB",
  "gpuCount",
  "gpuName",
  "gpuManufacturer",
  "gpuMemoryMiB",
  "localNvmeGiB",
  "networkBandwidthMbps",
  "maxENIs",
  "ipv4PerENI",
  "hypervisor",
  "encryptionInTransit",
  "bareMetal",
  "onDemandPricePerHour",
  "spotPricePerHour",
  "spotPriceDerived",
  "zones",
  "capacityTypes",
  "spotPriceSource",
  "spotAdvisorSavingsPct",
  "spotInterruptionRange",
  "currentGeneration",
  "cpuManufacturer",
  "cpuSustainedClockSpeedMHz",
  "ebsBandwidthMbps",
  "acceleratorCount",
  "acceleratorName",
  "acceleratorManufacturer",
  "efaCount",
  "capabilityFlex",
  "maxPods",
  "allocatable",
] as const;

/** What every row of one region document is read with. */
interface RowContext {
  readonly specs: Specs;
  readonly region: string;
  readonly spotBundled: boolean;
  readonly file: string;
}

function entryOf(row: Record<string, unknown>, { specs, region, spotBundled, file }: RowContext): CatalogEntry {
  const name = String(row["name"]);
  const spec = specs.get(name);
  if (spec === undefined) throw new CatalogError(`${file}: ${name} has no row in types.json`);
  if (typeof row["zones"] !== "string" || typeof row["onDemandPricePerHour"] !== "number") {
    throw new CatalogError(`${file}: ${name} needs zones (letters) and onDemandPricePerHour (a number)`);
  }
  const merged: Record<string, unknown> = {
    ...spec,
    onDemandPricePerHour: row["onDemandPricePerHour"],
    zones: [...row["zones"]].map((letter) => `${region}${letter}`),
    ...spotFields(row, spec, spotBundled),
  };
  const entry: Record<string, unknown> = {};
  for (const key of ENTRY_KEYS) entry[key] = merged[key];
  return entry as unknown as CatalogEntry;
}

/** One region's Catalog from the shared specs and its region document; CatalogError naming the file on bad input. */
export function parseRegionDocument(document: unknown, specs: Specs, file: string): BundledCatalog {
  const doc = header(document, file, "kerf-region-offerings");
  const { region, zones, zoneIds } = doc;
  if (typeof region !== "string" || !Array.isArray(zones) || !isRecord(zoneIds)) {
    throw new CatalogError(`${file}: expected region, zones and zoneIds`);
  }
  const provenance = provenanceOf(doc, file);
  const context: RowContext = { specs, region, spotBundled: provenance.spot !== null, file };
  const instanceTypes = rows(doc, file).map((row) => entryOf(row, context));
  return { region, zones: zones as string[], zoneIds: zoneIds as Record<string, string>, instanceTypes, provenance };
}

/**
 * Derives kerf's bundled instance-type data from its sources (pure: bytes in, documents out).
 *
 * Output: one region-independent spec file (types.json: one row per instance type) and one compact
 * file per region (zones, zone IDs, per type its zone letters and on-demand price, and spot figures
 * only where they are bundled). policies/domain/catalog/bundled.ts reads them back into a Catalog.
 *
 * Where each column comes from (recorded in the files' source blocks too):
 * - moto (DescribeInstanceTypes dump): vcpu, memoryMiB, maxENIs, ipv4PerENI, bareMetal,
 *   currentGeneration, capacityTypes; per region, which zones offer a type (availability-zone files)
 *   and the zone IDs (availability-zone-id files: an AZ's ID is the ID whose set of offered types is
 *   identical to the AZ's, the rule the 2026-11-20 us-east-1 compilation used).
 * - Karpenter's generated on-demand price table: the price. It has one commercial-region map
 *   (us-east-1); for every other region Karpenter itself falls back to it (pricing.go Reset), and so
 *   does this data, saying so in the region file.
 * - Karpenter's generated bandwidth table: networkBandwidthMbps (null for the types it calls vague).
 * - Carried from the previous build (first from the 2026-11-20 us-east-1 compilation, which read
 *   Karpenter's instance-types reference page): the Karpenter label columns that no pinned package
 *   holds (family, category, generation, size, GPU/accelerator names, allocatable, …), checked here
 *   against moto where it has the same fact; and us-east-1's spot and Spot Advisor figures.
 */

/** The columns of types.json, in order. `allocatable` is [cpuMillicores, memoryMiB, ephemeralStorageGiB, pods]. */
export const SPEC_COLUMNS = [
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
  "capacityTypes",
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

/** Columns taken from moto's DescribeInstanceTypes dump on every build (networkBandwidthMbps: Karpenter's table). */
export const MOTO_COLUMNS = [
  "vcpu",
  "memoryMiB",
  "maxENIs",
  "ipv4PerENI",
  "bareMetal",
  "capacityTypes",
  "currentGeneration",
] as const;

/** Per-region columns; the spot ones only in regions whose spot figures are bundled. */
export const REGION_COLUMNS = ["name", "zones", "onDemandPricePerHour"] as const;
export const SPOT_COLUMNS = ["spotPricePerHour", "spotAdvisorSavingsPct", "spotInterruptionRange"] as const;

export type SpecRow = Record<(typeof SPEC_COLUMNS)[number], unknown>;
export type SpotFigures = Record<(typeof SPOT_COLUMNS)[number], unknown>;

/** A file a figure came from, as recorded in the data's source blocks. */
export interface SourceRecord {
  readonly source: string;
  readonly path: string;
  readonly sha256?: string;
  readonly license: string;
  readonly usedFor: string;
}

/** One region's raw moto offering lists ({InstanceType, Location} pairs). */
export interface RegionOfferings {
  readonly region: string;
  readonly byZone: readonly { InstanceType: string; Location: string }[];
  readonly byZoneId: readonly { InstanceType: string; Location: string }[];
  readonly sources: readonly SourceRecord[];
}

/** A parsed Go price table: per region map, and its "generated at … for …" header. */
export interface PriceTable {
  readonly generatedAt: string;
  readonly regions: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

/** The spot figures bundled for a region and where they came from. */
export interface BundledSpot {
  readonly byType: ReadonlyMap<string, SpotFigures>;
  readonly description: string;
  readonly asOf: string;
  readonly sources: readonly SourceRecord[];
}

export interface DeriveInput {
  readonly generated: string;
  /** moto's instance_types.json: DescribeInstanceTypes entries by name. */
  readonly motoTypes: Readonly<Record<string, MotoType>>;
  readonly offerings: readonly RegionOfferings[];
  readonly prices: PriceTable;
  /** Karpenter's bandwidth table (Mbps by type): networkBandwidthMbps. */
  readonly bandwidth: ReadonlyMap<string, number>;
  /** The carried spec rows by type name (MOTO_COLUMNS in them are replaced). */
  readonly carried: ReadonlyMap<string, SpecRow>;
  readonly spot: ReadonlyMap<string, BundledSpot>;
  readonly specSources: readonly SourceRecord[];
  readonly priceSource: SourceRecord & { readonly module: string };
}

/** The fields of a moto DescribeInstanceTypes entry read here. */
export interface MotoType {
  readonly InstanceType: string;
  readonly BareMetal?: boolean;
  readonly CurrentGeneration?: boolean;
  readonly Hypervisor?: string;
  readonly SupportedUsageClasses?: readonly string[];
  readonly VCpuInfo?: { readonly DefaultVCpus?: number };
  readonly MemoryInfo?: { readonly SizeInMiB?: number };
  readonly ProcessorInfo?: { readonly SupportedArchitectures?: readonly string[] };
  readonly NetworkInfo?: {
    readonly MaximumNetworkInterfaces?: number;
    readonly Ipv4AddressesPerInterface?: number;
    readonly EncryptionInTransitSupported?: boolean;
  };
  readonly GpuInfo?: { readonly Gpus?: readonly { readonly Count?: number }[] };
}

/** Source data that contradicts itself or the carried figures. */
export class DeriveError extends Error {
  constructor(message: string) {
    super(`deriving the bundled catalog: ${message}`);
    this.name = "DeriveError";
  }
}

/** Parses a Karpenter zz_generated.pricing_*.go file: the `"region": { "type": price, … }` maps. */
export function parsePriceTable(goSource: string, file: string): PriceTable {
  const header = /\/\/ generated at (\S+) for (\S+)/.exec(goSource);
  if (header?.[1] === undefined) throw new DeriveError(`${file}: no "// generated at … for …" header`);
  const regions = new Map<string, Map<string, number>>();
  let current: Map<string, number> | undefined;
  goSource.split("\n").forEach((line, index) => {
    const open = /^\t"([a-z0-9-]+)": \{$/.exec(line);
    if (open?.[1] !== undefined) {
      current = new Map();
      regions.set(open[1], current);
      return;
    }
    if (/^\t\},?$/.test(line)) current = undefined;
    if (current === undefined) return;
    for (const match of line.matchAll(/"([a-z0-9.-]+)": ([0-9.]+)/g)) {
      const price = Number(match[2]);
      if (match[1] === undefined || !Number.isFinite(price)) {
        throw new DeriveError(`${file}:${index + 1}: unreadable price "${match[0]}"`);
      }
      current.set(match[1], price);
    }
  });
  if (regions.size === 0) throw new DeriveError(`${file}: no region maps`);
  return { generatedAt: header[1], regions };
}

/** Parses Karpenter's zz_generated.bandwidth.go: `"type": megabits,` pairs. */
export function parseBandwidth(goSource: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const match of goSource.matchAll(/^\t\t"([a-z0-9.-]+)": *(\d+),/gm)) {
    if (match[1] !== undefined) out.set(match[1], Number(match[2]));
  }
  return out;
}

function capacityTypes(moto: MotoType): string[] {
  const classes = moto.SupportedUsageClasses ?? [];
  return ["on-demand", "spot"].filter((c) => classes.includes(c));
}

function motoColumns(moto: MotoType): Pick<SpecRow, (typeof MOTO_COLUMNS)[number]> {
  const need = (value: number | undefined, field: string): number => {
    if (value === undefined) throw new DeriveError(`moto instance_types.json: ${moto.InstanceType} has no ${field}`);
    return value;
  };
  return {
    vcpu: need(moto.VCpuInfo?.DefaultVCpus, "VCpuInfo.DefaultVCpus"),
    memoryMiB: need(moto.MemoryInfo?.SizeInMiB, "MemoryInfo.SizeInMiB"),
    maxENIs: need(moto.NetworkInfo?.MaximumNetworkInterfaces, "NetworkInfo.MaximumNetworkInterfaces"),
    ipv4PerENI: need(moto.NetworkInfo?.Ipv4AddressesPerInterface, "NetworkInfo.Ipv4AddressesPerInterface"),
    bareMetal: moto.BareMetal === true,
    capacityTypes: capacityTypes(moto),
    currentGeneration: moto.CurrentGeneration === true,
  };
}

/** Differences between a carried row and moto (empty when consistent). */
function crossCheck(row: SpecRow, moto: MotoType): string[] {
  const archs = (moto.ProcessorInfo?.SupportedArchitectures ?? []).map((a) => (a === "x86_64" ? "amd64" : a));
  const gpus = (moto.GpuInfo?.Gpus ?? []).reduce((sum, g) => sum + (g.Count ?? 0), 0);
  const checks: [string, unknown, unknown][] = [
    ["arch", row.arch, archs.includes(String(row.arch)) ? row.arch : archs.join("|")],
    ["hypervisor", row.hypervisor, row.bareMetal === true ? "" : (moto.Hypervisor ?? "")],
    ["encryptionInTransit", row.encryptionInTransit, moto.NetworkInfo?.EncryptionInTransitSupported === true],
    ["gpuCount", row.gpuCount, gpus],
  ];
  return checks
    .filter(([, a, b]) => a !== b)
    .map(([field, a, b]) => `${String(row.name)} ${field}: carried ${JSON.stringify(a)}, source ${JSON.stringify(b)}`);
}

function letters(region: string, zones: Iterable<string>): string {
  return [...zones]
    .map((zone) => {
      const letter = zone.slice(region.length);
      if (!zone.startsWith(region) || !/^[a-z]$/.test(letter)) {
        throw new DeriveError(`${region}: zone "${zone}" is not ${region} plus one letter`);
      }
      return letter;
    })
    .sort()
    .join("");
}

function groupBy(pairs: readonly { InstanceType: string; Location: string }[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const { InstanceType, Location } of pairs) {
    const set = out.get(Location) ?? new Set<string>();
    set.add(InstanceType);
    out.set(Location, set);
  }
  return out;
}

/** AZ name → AZ ID where the two files agree on exactly one ID with the AZ's set of types; the others unresolved. */
function zoneIds(offerings: RegionOfferings): { ids: Record<string, string>; unresolved: string[] } {
  const key = (set: ReadonlySet<string>): string => [...set].sort().join(",");
  const idsBySet = new Map<string, string[]>();
  for (const [id, set] of groupBy(offerings.byZoneId)) idsBySet.set(key(set), [...(idsBySet.get(key(set)) ?? []), id]);
  const ids: Record<string, string> = {};
  const unresolved: string[] = [];
  for (const [zone, set] of [...groupBy(offerings.byZone)].sort(([a], [b]) => a.localeCompare(b))) {
    const candidates = idsBySet.get(key(set)) ?? [];
    if (candidates.length === 1 && candidates[0] !== undefined) ids[zone] = candidates[0];
    else unresolved.push(zone);
  }
  return { ids, unresolved };
}

/** The on-demand table a region uses: its own map, else us-east-1's as Karpenter's pricing provider does. */
function tableFor(prices: PriceTable, region: string): { table: string; map: ReadonlyMap<string, number> } {
  const own = prices.regions.get(region);
  if (own !== undefined) return { table: region, map: own };
  const fallback = prices.regions.get("us-east-1");
  if (fallback === undefined) throw new DeriveError("the price table has no us-east-1 map to fall back to");
  return { table: "us-east-1", map: fallback };
}

/** The types.json document. */
export interface TypesDocument {
  readonly schemaVersion: 2;
  readonly kind: "kerf-instance-type-specs";
  readonly generated: string;
  readonly source: { readonly summary: string; readonly files: readonly SourceRecord[] };
  readonly columns: readonly string[];
  readonly allocatableColumns: readonly string[];
  readonly instanceTypes: readonly unknown[][];
}

/** A region's document. */
export interface RegionDocument {
  readonly schemaVersion: 2;
  readonly kind: "kerf-region-offerings";
  readonly region: string;
  readonly generated: string;
  readonly source: { readonly summary: string; readonly files: readonly SourceRecord[] };
  readonly zones: readonly string[];
  readonly zoneIds: Readonly<Record<string, string>>;
  readonly currency: "USD";
  readonly priceUnit: string;
  readonly prices: {
    readonly onDemand: { readonly description: string; readonly table: string; readonly asOf: string };
    readonly spot: { readonly description: string; readonly asOf: string } | null;
  };
  readonly counts: Readonly<Record<string, number | readonly string[]>>;
  readonly columns: readonly string[];
  readonly instanceTypes: readonly unknown[][];
}

export interface Derived {
  readonly types: TypesDocument;
  readonly regions: readonly RegionDocument[];
}

interface RegionSelection {
  readonly rows: unknown[][];
  readonly zones: string[];
  readonly counts: Record<string, number | string[]>;
}

function zonesByType(offerings: RegionOfferings): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const { InstanceType, Location } of offerings.byZone) {
    out.set(InstanceType, (out.get(InstanceType) ?? new Set()).add(Location));
  }
  return out;
}

/** A region row; with bundled spot figures also the spot columns (null for a type moto says cannot run spot). */
type RowHead = readonly [name: string, zones: string, price: number];

function regionRow(input: DeriveInput, head: RowHead, spot: BundledSpot | undefined): unknown[] {
  const [name] = head;
  const row: unknown[] = [...head];
  if (spot === undefined) return row;
  const figures = spot.byType.get(name);
  const spotCapable = input.motoTypes[name] !== undefined && capacityTypes(input.motoTypes[name]).includes("spot");
  row.push(
    spotCapable ? (figures?.spotPricePerHour ?? null) : null,
    figures?.spotAdvisorSavingsPct ?? null,
    figures?.spotInterruptionRange ?? null,
  );
  return row;
}

function selectRegion(input: DeriveInput, offerings: RegionOfferings, spot: BundledSpot | undefined): RegionSelection {
  const { region } = offerings;
  const { map } = tableFor(input.prices, region);
  const byType = zonesByType(offerings);
  const unpriced: string[] = [];
  const noSpecs: string[] = [];
  const rows: unknown[][] = [];
  for (const name of [...byType.keys()].sort()) {
    const price = map.get(name);
    if (price === undefined) unpriced.push(name);
    else if (!input.carried.has(name) || input.motoTypes[name] === undefined) noSpecs.push(name);
    else rows.push(regionRow(input, [name, letters(region, byType.get(name) ?? []), price], spot));
  }
  const zones = [...new Set(offerings.byZone.map((o) => o.Location))].sort();
  const counts: Record<string, number | string[]> = {
    instanceTypes: rows.length,
    offeredTypes: byType.size,
    excludedNoPrice: unpriced,
    excludedNoSpecs: noSpecs,
  };
  if (spot !== undefined) counts["spotPrices"] = rows.filter((r) => r[3] !== null).length;
  return { rows, zones, counts };
}

const PRICE_UNIT = "per instance-hour, Linux/UNIX, shared tenancy";

function onDemandNote(input: DeriveInput, region: string): RegionDocument["prices"]["onDemand"] {
  const { table } = tableFor(input.prices, region);
  const asOf = input.prices.generatedAt;
  const { module, path } = input.priceSource;
  const from = `Karpenter's generated on-demand price table (${module}, ${path}, generated ${asOf})`;
  const description =
    table === region
      ? `${from}, ${region} map`
      : `${from}: it has no ${region} map, so its us-east-1 prices are used, as Karpenter's pricing provider does ` +
        `for a region without one until the Pricing API answers; ${region}'s real prices differ`;
  return { description, table, asOf };
}

function regionDocument(input: DeriveInput, offerings: RegionOfferings): RegionDocument {
  const { region } = offerings;
  const spot = input.spot.get(region);
  const { rows, zones, counts } = selectRegion(input, offerings, spot);
  const { ids, unresolved } = zoneIds(offerings);
  if (unresolved.length > 0) counts["zonesWithoutId"] = unresolved;
  return {
    schemaVersion: 2,
    kind: "kerf-region-offerings",
    region,
    generated: input.generated,
    source: {
      summary:
        "Built by scripts/catalog/build.ts from public package data (facts only; no code copied). " +
        "Specs are in types.json.",
      files: [...offerings.sources, input.priceSource, ...(spot?.sources ?? [])],
    },
    zones,
    zoneIds: ids,
    currency: "USD",
    priceUnit: PRICE_UNIT,
    prices: {
      onDemand: onDemandNote(input, region),
      spot: spot === undefined ? null : { description: spot.description, asOf: spot.asOf },
    },
    counts,
    columns: spot === undefined ? [...REGION_COLUMNS] : [...REGION_COLUMNS, ...SPOT_COLUMNS],
    instanceTypes: rows,
  };
}

function specRow(input: DeriveInput, name: string, problems: string[]): unknown[] {
  const carried = input.carried.get(name);
  const moto = input.motoTypes[name];
  if (carried === undefined || moto === undefined) throw new DeriveError(`${name}: no spec row`);
  // Karpenter leaves the bandwidth label unset for the types its table calls vague ("Moderate", "High").
  const row: SpecRow = { ...carried, ...motoColumns(moto), networkBandwidthMbps: input.bandwidth.get(name) ?? null };
  problems.push(...crossCheck(row, moto));
  return SPEC_COLUMNS.map((column) => {
    const value = row[column];
    if (value === undefined) throw new DeriveError(`${name}: carried spec has no ${column}`);
    return value;
  });
}

/** Both documents kinds from the sources; throws DeriveError listing every cross-check failure. */
export function derive(input: DeriveInput): Derived {
  const regions = [...input.offerings]
    .sort((a, b) => a.region.localeCompare(b.region))
    .map((o) => regionDocument(input, o));
  const used = new Set(regions.flatMap((doc) => doc.instanceTypes.map((row) => String(row[0]))));
  const problems: string[] = [];
  const rows = [...used].sort().map((name) => specRow(input, name, problems));
  if (problems.length > 0) {
    throw new DeriveError(`carried figures disagree with the sources:\n  ${problems.join("\n  ")}`);
  }
  const types: TypesDocument = {
    schemaVersion: 2,
    kind: "kerf-instance-type-specs",
    generated: input.generated,
    source: {
      summary:
        "Built by scripts/catalog/build.ts from public package data (facts only; no code copied). " +
        "MOTO_COLUMNS come from moto and networkBandwidthMbps from Karpenter's bandwidth table on every build; " +
        "the other columns are carried from the 2026-11-20 compilation (Karpenter's instance-types reference page) " +
        "and checked against moto. See policies/domain/catalog/README.md.",
      files: input.specSources,
    },
    columns: [...SPEC_COLUMNS],
    allocatableColumns: ["cpuMillicores", "memoryMiB", "ephemeralStorageGiB", "pods"],
    instanceTypes: rows,
  };
  return { types, regions };
}

/** A document as committed: top-level keys one per line, each instance-type row on its own line. */
export function formatDocument(document: TypesDocument | RegionDocument): string {
  const lines = Object.entries(document).map(([key, value]) => {
    if (key !== "instanceTypes") return `  ${JSON.stringify(key)}: ${JSON.stringify(value)}`;
    const rows = (value as unknown[][]).map((row) => `    ${JSON.stringify(row)}`);
    return `  "instanceTypes": [\n${rows.join(",\n")}\n  ]`;
  });
  return `{\n${lines.join(",\n")}\n}\n`;
}

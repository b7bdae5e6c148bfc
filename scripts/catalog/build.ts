/**
 * Builds kerf's bundled instance-type data for every commercial region moto has offering files for:
 * policies/domain/catalog/data/types.json (specs), data/regions/<region>.json and data/regions.ts.
 *
 *   npm run catalog:build                 rebuild from the pinned sources (scripts/catalog/sources.ts)
 *   npm run catalog:build -- --check      exit 1 when the committed files differ from a rebuild
 *   … -- --carry-from FILE.json           carry label columns and us-east-1 spot figures from a
 *                                         schemaVersion 1 catalog (the 2026-11-20 compilation) instead
 *                                         of the committed data
 *   … -- --generated YYYY-MM-DD           the date written into the files (default: today, or the
 *                                         committed date with --check)
 *
 * Re-running with the same pins reproduces the committed files byte for byte
 * (test/unit/catalog-bundle.test.ts checks that).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  derive,
  formatDocument,
  parseBandwidth,
  parsePriceTable,
  SPEC_COLUMNS,
  SPOT_COLUMNS,
  type BundledSpot,
  type DeriveInput,
  type MotoType,
  type RegionOfferings,
  type SourceRecord,
  type SpecRow,
  type SpotFigures,
} from "./derive.ts";
import {
  KARPENTER,
  MOTO,
  MOTO_RESOURCES,
  motoJson,
  motoRegions,
  openKarpenterModule,
  openMoto,
  type SourceFile,
} from "./sources.ts";

const root = path.resolve(import.meta.dirname, "..", "..");
export const DATA_DIR = path.join(root, "policies", "domain", "catalog", "data");

const PRICE_FILE = "pkg/providers/pricing/zz_generated.pricing_aws.go";
const BANDWIDTH_FILE = "pkg/providers/instancetype/zz_generated.bandwidth.go";

/** The carried sources of the 2026-11-20 compilation (see policies/domain/catalog/README.md). */
const KDOCS: SourceRecord = {
  source:
    "aws/karpenter-provider-aws@1d927085dd81a9df9301e613f371dac5b4d16bfe " +
    "(carried from the 2026-11-20 compilation)",
  path: "website/content/en/docs/reference/instance-types.md",
  license: "Apache-2.0",
  usedFor:
    "family, category, generation, size, arch, gpu*, accelerator*, localNvmeGiB, ebsBandwidthMbps, " +
    "hypervisor, encryptionInTransit, cpuManufacturer, cpuSustainedClockSpeedMHz, capabilityFlex, maxPods, " +
    "allocatable, efaCount",
};
const SPOT_SOURCES: readonly SourceRecord[] = [
  {
    source: "alexei-led/spotinfo@69bcec6705869f89302ee456159dfe39f8dc2b7b (carried from the 2026-11-20 compilation)",
    path: "internal/spot/data/spot-price-data.json",
    license:
      "Apache-2.0 (repository); data is AWS's public spot pricing feed " +
      "https://website.spot.ec2.aws.a2z.com/spot.json",
    usedFor: "spotPricePerHour (us-east-1, linux column; one regional figure per type, not per zone)",
  },
  {
    source: "alexei-led/spotinfo@05e933139449b888c78795b28af8e9370429a031 (carried from the 2026-11-20 compilation)",
    path: "internal/spot/data/spot-advisor-data.json",
    license:
      "Apache-2.0 (repository); data is AWS's public Spot Advisor feed " +
      "https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json",
    usedFor: "spotAdvisorSavingsPct, spotInterruptionRange (us-east-1, Linux; file last changed 2025-06-28)",
  },
];
const SPOT_DESCRIPTION =
  "AWS's public spot pricing feed as copied in alexei-led/spotinfo " +
  "(a 2026 capture; its time is not recorded): " +
  "one regional us-east-1 Linux figure per type, not per zone";
const SPOT_AS_OF = "2026 (capture time not recorded)";

function motoSource(file: SourceFile, usedFor: string): SourceRecord {
  const source = `PyPI ${MOTO.package}==${MOTO.version} (${MOTO.wheel}, sha256 ${MOTO.wheelSha256})`;
  return { source, path: file.path, sha256: file.sha256, license: MOTO.license, usedFor };
}

function karpenterSource(file: SourceFile, usedFor: string): SourceRecord & { module: string } {
  const module = `${KARPENTER.module}@${KARPENTER.version}`;
  const source = `Go module ${module} (${KARPENTER.sum})`;
  return { source, module, path: file.path, sha256: file.sha256, license: KARPENTER.license, usedFor };
}

/** What the previous build (or a schemaVersion 1 file) carries into the next one. */
export interface Carried {
  readonly specs: ReadonlyMap<string, SpecRow>;
  readonly use1Spot: ReadonlyMap<string, SpotFigures>;
  readonly generated: string | undefined;
}

function readJson(file: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`reading ${file}: ${(error as Error).message}`, { cause: error });
  }
}

function rowsOf(document: Record<string, unknown>, file: string): Record<string, unknown>[] {
  const columns = document["columns"];
  const rows = document["instanceTypes"];
  if (!Array.isArray(columns) || !Array.isArray(rows)) throw new Error(`reading ${file}: no columns or instanceTypes`);
  return rows.map((row: unknown[]) => Object.fromEntries(columns.map((c: string, i) => [c, row[i]])));
}

function allocatableArray(value: unknown): unknown {
  if (Array.isArray(value)) return value;
  const a = value as { cpuMillicores: number; memoryMiB: number; ephemeralStorageGiB: number; pods: number };
  return [a.cpuMillicores, a.memoryMiB, a.ephemeralStorageGiB, a.pods];
}

function spotOf(entry: Record<string, unknown>): SpotFigures {
  return Object.fromEntries(SPOT_COLUMNS.map((c) => [c, entry[c] ?? null])) as SpotFigures;
}

function specOf(entry: Record<string, unknown>): SpecRow {
  const row = Object.fromEntries(SPEC_COLUMNS.map((c) => [c, entry[c]])) as SpecRow;
  return { ...row, allocatable: allocatableArray(entry["allocatable"]) };
}

/** The carried figures: from a schemaVersion 1 catalog, else from the committed data. */
export function readCarried(carryFrom: string | undefined, dataDir = DATA_DIR): Carried {
  if (carryFrom !== undefined) {
    const v1 = readJson(carryFrom);
    if (v1["schemaVersion"] !== 1 || v1["region"] !== "us-east-1") {
      throw new Error(`reading ${carryFrom}: not a schemaVersion 1 us-east-1 catalog`);
    }
    const entries = v1["instanceTypes"] as Record<string, unknown>[];
    return {
      specs: new Map(entries.map((e) => [String(e["name"]), specOf(e)])),
      use1Spot: new Map(entries.map((e) => [String(e["name"]), spotOf(e)])),
      generated: undefined,
    };
  }
  const typesFile = path.join(dataDir, "types.json");
  const use1File = path.join(dataDir, "regions", "us-east-1.json");
  const types = readJson(typesFile);
  return {
    specs: new Map(rowsOf(types, typesFile).map((e) => [String(e["name"]), specOf(e)])),
    use1Spot: new Map(rowsOf(readJson(use1File), use1File).map((e) => [String(e["name"]), spotOf(e)])),
    generated: typeof types["generated"] === "string" ? types["generated"] : undefined,
  };
}

function regionOfferings(wheel: ReturnType<typeof openMoto>, region: string): RegionOfferings {
  const byZoneFile = wheel.read(`${MOTO_RESOURCES}/instance_type_offerings/availability-zone/${region}.json.gz`);
  const byIdFile = wheel.read(`${MOTO_RESOURCES}/instance_type_offerings/availability-zone-id/${region}.json.gz`);
  return {
    region,
    byZone: motoJson(wheel, byZoneFile) as RegionOfferings["byZone"],
    byZoneId: motoJson(wheel, byIdFile) as RegionOfferings["byZoneId"],
    sources: [
      motoSource(byZoneFile, "zones (which AZs offer each type) and the region's set of types"),
      motoSource(byIdFile, "zoneIds (the AZ ID whose set of offered types equals the AZ's)"),
    ],
  };
}

/** Every output file (path relative to the data folder → contents) rebuilt from the pinned sources. */
export function buildBundle(carried: Carried, generated: string, env = process.env): Map<string, string> {
  const wheel = openMoto(env);
  const module = openKarpenterModule(env);
  const typesFile = wheel.read(`${MOTO_RESOURCES}/instance_types.json.gz`);
  const priceFile = module.read(PRICE_FILE);
  const bandwidthFile = module.read(BANDWIDTH_FILE);
  const spot: BundledSpot = {
    byType: carried.use1Spot,
    description: SPOT_DESCRIPTION,
    asOf: SPOT_AS_OF,
    sources: SPOT_SOURCES,
  };
  const input: DeriveInput = {
    generated,
    motoTypes: motoJson(wheel, typesFile) as Record<string, MotoType>,
    offerings: motoRegions(wheel).map((region) => regionOfferings(wheel, region)),
    prices: parsePriceTable(priceFile.bytes.toString("utf8"), PRICE_FILE),
    bandwidth: parseBandwidth(bandwidthFile.bytes.toString("utf8")),
    carried: carried.specs,
    spot: new Map([["us-east-1", spot]]),
    specSources: [
      motoSource(
        typesFile,
        "vcpu, memoryMiB, maxENIs, ipv4PerENI, bareMetal, currentGeneration, " +
          "capacityTypes (SupportedUsageClasses); " +
          "cross-check of arch, hypervisor, encryptionInTransit, gpuCount",
      ),
      KDOCS,
      karpenterSource(bandwidthFile, "networkBandwidthMbps (null for the types the table calls vague)"),
    ],
    priceSource: karpenterSource(priceFile, "onDemandPricePerHour (Linux, shared tenancy, USD)"),
  };
  const derived = derive(input);
  const files = new Map<string, string>([["types.json", formatDocument(derived.types)]]);
  for (const doc of derived.regions) files.set(`regions/${doc.region}.json`, formatDocument(doc));
  files.set("regions.ts", regionsModule(derived.regions.map((d) => d.region)));
  return files;
}

function identifier(region: string): string {
  return region.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
}

/** The generated module that imports every region file (static imports: pure code reads no files). */
function regionsModule(regions: readonly string[]): string {
  const imports = regions.map((r) => `import ${identifier(r)} from "./regions/${r}.json" with { type: "json" };`);
  const entries = regions.map((r) => `  ${JSON.stringify(r)}: ${identifier(r)},`);
  return [
    "// Generated by scripts/catalog/build.ts: do not edit. The bundled region documents, by region.",
    ...imports,
    "",
    "/** Each bundled region's document (validated by bundled.ts on first use). */",
    "export const REGION_DOCUMENTS: Readonly<Record<string, unknown>> = {",
    ...entries,
    "};",
    "",
  ].join("\n");
}

/** The files whose committed contents differ from `files` (missing counts as different). */
export function differences(files: ReadonlyMap<string, string>, dataDir = DATA_DIR): string[] {
  return [...files]
    .filter(([name, text]) => {
      const file = path.join(dataDir, name);
      return !existsSync(file) || readFileSync(file, "utf8") !== text;
    })
    .map(([name]) => name);
}

function main(): number {
  const { values } = parseArgs({
    options: {
      check: { type: "boolean", default: false },
      "carry-from": { type: "string" },
      generated: { type: "string" },
    },
  });
  const carried = readCarried(values["carry-from"]);
  const today = new Date().toISOString().slice(0, 10);
  const generated = values.generated ?? (values.check ? carried.generated : undefined) ?? today;
  const files = buildBundle(carried, generated);
  if (values.check) {
    const changed = differences(files);
    const differs = `catalog data differs from a rebuild: ${changed.join(", ")}\n`;
    process.stdout.write(changed.length === 0 ? "catalog data is up to date\n" : differs);
    return changed.length === 0 ? 0 : 1;
  }
  mkdirSync(path.join(DATA_DIR, "regions"), { recursive: true });
  for (const [name, text] of files) writeFileSync(path.join(DATA_DIR, name), text);
  process.stdout.write(`wrote ${files.size} files to ${path.relative(root, DATA_DIR)}\n`);
  return 0;
}

if (import.meta.main) {
  try {
    process.exitCode = main();
  } catch (error) {
    process.stderr.write(`catalog:build: ${(error as Error).message}\n`);
    process.exitCode = 2;
  }
}

/** Turns the parsed offline EC2 catalog JSON into validated entries and scheduler InstanceTypes (pure). */
import { raid0StorageBytes } from "../ephemeral-storage.ts";
import { computeAllocatable, computeCapacity, type AllocatableOptions } from "../allocatable.ts";
import { Label, type CapacityType } from "../labels.ts";
import type { InstanceType, Offering } from "../instance-types.ts";
import { offeringKey } from "../instance-types.ts";
import type { ResourceList } from "../quantity.ts";

/** One instance type in the catalog file (see README.md in this folder for each field). */
export interface CatalogEntry {
  readonly name: string;
  readonly family: string;
  readonly category: string;
  readonly generation: number;
  readonly size: string;
  readonly arch: string;
  readonly vcpu: number;
  readonly memoryMiB: number;
  readonly gpuCount: number;
  readonly gpuName: string | null;
  readonly gpuManufacturer: string | null;
  readonly gpuMemoryMiB: number;
  readonly localNvmeGiB: number;
  readonly networkBandwidthMbps: number | null;
  readonly maxENIs: number;
  readonly ipv4PerENI: number;
  readonly hypervisor: string;
  readonly encryptionInTransit: boolean;
  readonly bareMetal: boolean;
  readonly onDemandPricePerHour: number;
  readonly spotPricePerHour: number | null;
  /**
   * Spot price per zone when known (catalogs built from EC2's answers); a zone missing here has no spot
   * offering. Absent (the bundled catalogs): `spotPricePerHour` holds for every zone.
   */
  readonly spotPriceByZone?: Readonly<Record<string, number>> | undefined;
  readonly zones: readonly string[];
  readonly capacityTypes: readonly string[];
  readonly cpuManufacturer: string | null;
  readonly cpuSustainedClockSpeedMHz: number | null;
  readonly ebsBandwidthMbps: number | null;
  readonly acceleratorCount: number;
  readonly acceleratorName: string | null;
  readonly acceleratorManufacturer: string | null;
  readonly efaCount: number;
  readonly capabilityFlex: boolean;
  readonly maxPods: number;
  /** Karpenter's documented allocatable for AL2023 defaults (a cross-check; kerf computes its own). */
  readonly allocatable: {
    readonly cpuMillicores: number;
    readonly memoryMiB: number;
    readonly ephemeralStorageGiB: number;
    readonly pods: number;
  };
}

/** The parsed catalog file. */
export interface Catalog {
  readonly region: string;
  readonly zones: readonly string[];
  readonly zoneIds: Readonly<Record<string, string>>;
  readonly instanceTypes: readonly CatalogEntry[];
}

/** A catalog document that does not have the expected shape. */
export class CatalogError extends Error {
  constructor(message: string) {
    super(`reading instance-type catalog: ${message}`);
    this.name = "CatalogError";
  }
}

const NUMBER_FIELDS = [
  "generation",
  "vcpu",
  "memoryMiB",
  "gpuCount",
  "maxENIs",
  "ipv4PerENI",
  "onDemandPricePerHour",
  "maxPods",
] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function checkEntry(entry: unknown, index: number): CatalogEntry {
  if (!isRecord(entry) || typeof entry["name"] !== "string")
    throw new CatalogError(`instanceTypes[${index}] has no name`);
  for (const field of NUMBER_FIELDS) {
    if (typeof entry[field] !== "number")
      throw new CatalogError(`instanceTypes[${index}] (${entry["name"]}) field ${field} is not a number`);
  }
  if (!Array.isArray(entry["zones"]) || !Array.isArray(entry["capacityTypes"]))
    throw new CatalogError(`instanceTypes[${index}] (${entry["name"]}) lacks zones or capacityTypes`);
  return entry as unknown as CatalogEntry;
}

/** Validates the shape of a parsed catalog document; throws CatalogError. */
export function parseCatalog(document: unknown): Catalog {
  if (!isRecord(document)) throw new CatalogError("the document is not an object");
  const { region, zones, zoneIds, instanceTypes } = document;
  if (typeof region !== "string" || !Array.isArray(zones) || !isRecord(zoneIds) || !Array.isArray(instanceTypes)) {
    throw new CatalogError("expected region, zones, zoneIds and instanceTypes");
  }
  return {
    region,
    zones: zones as string[],
    zoneIds: zoneIds as Record<string, string>,
    instanceTypes: instanceTypes.map(checkEntry),
  };
}

function optional(
  labels: Record<string, string>,
  key: string,
  value: string | number | null | undefined,
  skipZero = false,
): void {
  if (value === null || value === undefined || (skipZero && value === 0)) return;
  labels[key] = String(value);
}

/**
 * The AMI families whose nodes run Windows, with the `node.kubernetes.io/windows-build` value
 * Karpenter's AWS provider labels their nodes with. Every other family runs Linux and has no
 * windows-build label.
 */
export const WINDOWS_BUILDS: Readonly<Record<string, string>> = {
  Windows2019: "10.0.17763",
  Windows2022: "10.0.20348",
  Windows2025: "10.0.26100",
};

/**
 * Whether an entry can run an AMI family: Windows AMIs exist for x86-64 only, so Karpenter's
 * provider gives arm64 types no operating system under a Windows family (they never match).
 */
export function runsFamily(entry: CatalogEntry, amiFamily: string | undefined): boolean {
  return amiFamily === undefined || WINDOWS_BUILDS[amiFamily] === undefined || entry.arch === "amd64";
}

/**
 * The well-known labels of a catalog entry (offering labels excluded) under an AMI family:
 * `kubernetes.io/os` is windows for the Windows families (with their windows-build), else linux.
 */
export function entryLabels(entry: CatalogEntry, region: string, amiFamily?: string): Record<string, string> {
  const windowsBuild = amiFamily === undefined ? undefined : WINDOWS_BUILDS[amiFamily];
  const labels: Record<string, string> = {
    [Label.instanceType]: entry.name,
    [Label.arch]: entry.arch,
    [Label.os]: windowsBuild === undefined ? "linux" : "windows",
    [Label.region]: region,
    [Label.instanceCategory]: entry.category,
    [Label.instanceFamily]: entry.family,
    [Label.instanceGeneration]: String(entry.generation),
    [Label.instanceSize]: entry.size,
    [Label.instanceCpu]: String(entry.vcpu),
    [Label.instanceMemory]: String(entry.memoryMiB),
    [Label.instanceHypervisor]: entry.hypervisor,
    [Label.instanceEncryptionInTransit]: String(entry.encryptionInTransit),
    [Label.instanceCapabilityFlex]: String(entry.capabilityFlex),
    [Label.instanceTenancy]: "default",
  };
  optional(labels, Label.instanceCpuManufacturer, entry.cpuManufacturer);
  optional(labels, Label.instanceCpuClock, entry.cpuSustainedClockSpeedMHz);
  optional(labels, Label.instanceNetworkBandwidth, entry.networkBandwidthMbps);
  optional(labels, Label.instanceEbsBandwidth, entry.ebsBandwidthMbps);
  optional(labels, Label.instanceLocalNvme, entry.localNvmeGiB, true);
  optional(labels, Label.instanceGpuName, entry.gpuName);
  optional(labels, Label.instanceGpuManufacturer, entry.gpuManufacturer);
  optional(labels, Label.instanceGpuCount, entry.gpuCount, true);
  if (entry.gpuName !== null) optional(labels, Label.instanceGpuMemory, entry.gpuMemoryMiB);
  optional(labels, Label.instanceAcceleratorName, entry.acceleratorName);
  optional(labels, Label.instanceAcceleratorManufacturer, entry.acceleratorManufacturer);
  optional(labels, Label.instanceAcceleratorCount, entry.acceleratorCount, true);
  optional(labels, Label.windowsBuild, windowsBuild);
  return labels;
}

/** Extended resources a type exposes (GPUs, Neuron devices, EFA). */
export function entryExtendedResources(entry: CatalogEntry): ResourceList {
  const out: Record<string, number> = {};
  if (entry.gpuCount > 0 && entry.gpuManufacturer === "nvidia") out["nvidia.com/gpu"] = entry.gpuCount;
  if (entry.gpuCount > 0 && entry.gpuManufacturer === "amd") out["amd.com/gpu"] = entry.gpuCount;
  if (entry.acceleratorCount > 0 && entry.acceleratorManufacturer === "aws")
    out["aws.amazon.com/neuron"] = entry.acceleratorCount;
  if (entry.efaCount > 0) out["vpc.amazonaws.com/efa"] = entry.efaCount;
  return out;
}

/** Options for building InstanceTypes: the allocatable model's knobs, ICE-cached offerings, a zone subset. */
export interface InstanceTypeOptions extends AllocatableOptions {
  /** Offering keys (`capacityType:type:zone`) currently unavailable. */
  readonly unavailable?: ReadonlySet<string>;
  /** Only offer these zones (e.g. the EC2NodeClass subnets' zones). */
  readonly zones?: ReadonlySet<string>;
  /**
   * The EC2NodeClass's AMI family (`AL2023`, `Windows2022`, …), which decides `kubernetes.io/os` and
   * `node.kubernetes.io/windows-build`; undefined means a Linux family. Under a Windows family only
   * the amd64 types are returned. (Allocatable keeps the Linux model either way.)
   */
  readonly amiFamily?: string;
  /** spec.instanceStorePolicy: "RAID0" makes a type's instance-store total its ephemeral-storage capacity. */
  readonly instanceStorePolicy?: string | undefined;
}

function entryOfferings(entry: CatalogEntry, catalog: Catalog, options: InstanceTypeOptions): Offering[] {
  const offerings: Offering[] = [];
  for (const zone of entry.zones) {
    if (options.zones !== undefined && !options.zones.has(zone)) continue;
    for (const ct of entry.capacityTypes) {
      const price =
        ct !== "spot"
          ? entry.onDemandPricePerHour
          : entry.spotPriceByZone === undefined
            ? entry.spotPricePerHour
            : (entry.spotPriceByZone[zone] ?? null);
      if (price === null || (ct !== "spot" && ct !== "on-demand")) continue;
      const available = options.unavailable?.has(offeringKey(ct, entry.name, zone)) !== true;
      offerings.push({
        zone,
        zoneId: catalog.zoneIds[zone],
        capacityType: ct as CapacityType,
        pricePerHour: price,
        available,
      });
    }
  }
  return offerings;
}

/**
 * Every catalog entry the AMI family runs on as an InstanceType, with capacity and
 * allocatable from Karpenter's AWS model.
 */
export function toInstanceTypes(catalog: Catalog, options: InstanceTypeOptions = {}): InstanceType[] {
  return catalog.instanceTypes
    .filter((entry) => runsFamily(entry, options.amiFamily))
    .map((entry) => {
      const spec = {
        vcpu: entry.vcpu,
        memoryMiB: entry.memoryMiB,
        arch: entry.arch,
        maxENIs: entry.maxENIs,
        ipv4PerENI: entry.ipv4PerENI,
        defaultCardMaxPods: entry.maxPods,
        extended: entryExtendedResources(entry),
      };
      const raid0 = raid0StorageBytes(options.instanceStorePolicy, entry.localNvmeGiB);
      const capacity = computeCapacity(
        spec,
        raid0 === undefined ? options : { ...options, ephemeralStorageBytes: raid0 },
      );
      return {
        name: entry.name,
        labels: entryLabels(entry, catalog.region, options.amiFamily),
        capacity,
        allocatable: computeAllocatable(capacity, options.kubelet ?? {}),
        offerings: entryOfferings(entry, catalog, options),
      };
    });
}

/**
 * The Windows side of the catalog, for checks made without an EC2NodeClass (whose AMI family would
 * decide): the amd64 types once per Windows family. With `toInstanceTypes(catalog)` (Linux, every
 * type) these are all the types Karpenter can offer: every type for Linux, every x86-64 type for Windows.
 */
export function windowsVariants(catalog: Catalog, options: InstanceTypeOptions = {}): InstanceType[] {
  return Object.keys(WINDOWS_BUILDS).flatMap((amiFamily) => toInstanceTypes(catalog, { ...options, amiFamily }));
}

/**
 * Catalog entries from EC2's own answers (pure): DescribeInstanceTypes records, DescribeInstanceTypeOfferings
 * zones, DescribeAvailabilityZones IDs and the prices of prices.ts. The operator builds its catalog this way
 * from the region it runs in, as Karpenter's AWS provider builds its instance types; the bundled catalogs are
 * the offline fallback. The label values follow Karpenter's derivation from the same fields (instance family,
 * category and generation from the name, GPU and accelerator names in lower kebab case, clock speed in MHz).
 */
import type { Catalog, CatalogEntry } from "./catalog.ts";

/** The fields of an EC2 `InstanceTypeInfo` kerf reads (the SDK's shape, every field optional as there). */
export interface Ec2InstanceTypeInfo {
  readonly InstanceType?: string | undefined;
  readonly BareMetal?: boolean | undefined;
  readonly Hypervisor?: string | undefined;
  readonly SupportedUsageClasses?: readonly string[] | undefined;
  readonly VCpuInfo?: { readonly DefaultVCpus?: number | undefined } | undefined;
  readonly MemoryInfo?: { readonly SizeInMiB?: number | undefined } | undefined;
  readonly ProcessorInfo?:
    | {
        readonly SupportedArchitectures?: readonly string[] | undefined;
        readonly Manufacturer?: string | undefined;
        readonly SustainedClockSpeedInGhz?: number | undefined;
      }
    | undefined;
  readonly GpuInfo?: { readonly Gpus?: readonly Ec2Device[] | undefined } | undefined;
  readonly InferenceAcceleratorInfo?: { readonly Accelerators?: readonly Ec2Device[] | undefined } | undefined;
  readonly NeuronInfo?: { readonly NeuronDevices?: readonly Ec2Device[] | undefined } | undefined;
  readonly InstanceStorageInfo?:
    | {
        readonly TotalSizeInGB?: number | undefined;
        readonly NvmeSupport?: string | undefined;
      }
    | undefined;
  readonly EbsInfo?:
    | {
        readonly EbsOptimizedSupport?: string | undefined;
        readonly EbsOptimizedInfo?: { readonly MaximumBandwidthInMbps?: number | undefined } | undefined;
      }
    | undefined;
  readonly NetworkInfo?:
    | {
        readonly MaximumNetworkInterfaces?: number | undefined;
        readonly Ipv4AddressesPerInterface?: number | undefined;
        readonly EncryptionInTransitSupported?: boolean | undefined;
        readonly DefaultNetworkCardIndex?: number | undefined;
        readonly NetworkCards?:
          | readonly {
              readonly NetworkCardIndex?: number | undefined;
              readonly MaximumNetworkInterfaces?: number | undefined;
              readonly BaselineBandwidthInGbps?: number | undefined;
            }[]
          | undefined;
        readonly EfaInfo?: { readonly MaximumEfaInterfaces?: number | undefined } | undefined;
      }
    | undefined;
}

/** A GPU, inference accelerator or Neuron device of an instance type. */
export interface Ec2Device {
  readonly Name?: string | undefined;
  readonly Manufacturer?: string | undefined;
  readonly Count?: number | undefined;
  readonly MemoryInfo?: { readonly SizeInMiB?: number | undefined } | undefined;
}

/** Prices for the region: on-demand per type, spot per type and zone (absent: not known). */
export interface RegionPrices {
  readonly onDemand: ReadonlyMap<string, number>;
  readonly spot: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

/** Everything the region's catalog is built from. */
export interface Ec2CatalogInput {
  readonly region: string;
  readonly instanceTypes: readonly Ec2InstanceTypeInfo[];
  /** Zones offering each type (DescribeInstanceTypeOfferings, location type availability-zone). */
  readonly offerings: ReadonlyMap<string, readonly string[]>;
  /** Zone name → zone ID (DescribeAvailabilityZones). */
  readonly zoneIds: Readonly<Record<string, string>>;
  readonly prices: RegionPrices;
  /**
   * Facts EC2 does not answer, per type, from a bundled catalog: Karpenter labels network bandwidth from its
   * own generated table, as the bundled catalogs do. Types the reference lacks fall back to the network
   * cards' baseline bandwidth.
   */
  readonly reference?: ReadonlyMap<string, CatalogEntry> | undefined;
}

/** A shape of fields to keep: `true` keeps a value, an object its listed fields, a one-element array each item. */
type Shape = true | { readonly [field: string]: Shape } | readonly [Shape];

const DEVICE: Shape = { Name: true, Manufacturer: true, Count: true, MemoryInfo: { SizeInMiB: true } };

/** The fields of an `InstanceTypeInfo` this module reads (Ec2InstanceTypeInfo). */
const READ: Shape = {
  InstanceType: true,
  BareMetal: true,
  Hypervisor: true,
  SupportedUsageClasses: true,
  VCpuInfo: { DefaultVCpus: true },
  MemoryInfo: { SizeInMiB: true },
  ProcessorInfo: { SupportedArchitectures: true, Manufacturer: true, SustainedClockSpeedInGhz: true },
  GpuInfo: { Gpus: [DEVICE] },
  InferenceAcceleratorInfo: { Accelerators: [DEVICE] },
  NeuronInfo: { NeuronDevices: [DEVICE] },
  InstanceStorageInfo: { TotalSizeInGB: true, NvmeSupport: true },
  EbsInfo: { EbsOptimizedSupport: true, EbsOptimizedInfo: { MaximumBandwidthInMbps: true } },
  NetworkInfo: {
    MaximumNetworkInterfaces: true,
    Ipv4AddressesPerInterface: true,
    EncryptionInTransitSupported: true,
    DefaultNetworkCardIndex: true,
    NetworkCards: [{ NetworkCardIndex: true, MaximumNetworkInterfaces: true, BaselineBandwidthInGbps: true }],
    EfaInfo: { MaximumEfaInterfaces: true },
  },
};

function pick(value: unknown, shape: Shape): unknown {
  if (shape === true || value === null || typeof value !== "object") return value;
  if (Array.isArray(shape)) {
    return Array.isArray(value) ? value.map((item: unknown) => pick(item, shape[0] as Shape)) : undefined;
  }
  const out: Record<string, unknown> = {};
  for (const [field, inner] of Object.entries(shape as Record<string, Shape>)) {
    const v = (value as Record<string, unknown>)[field];
    if (v !== undefined) out[field] = pick(v, inner);
  }
  return out;
}

/**
 * Only the fields of an `InstanceTypeInfo` this module reads: EC2's records carry dozens more, and the operator
 * keeps the last answer (about 1,300 records) between refreshes.
 */
export function trimInstanceTypeInfo(info: Ec2InstanceTypeInfo): Ec2InstanceTypeInfo {
  return pick(info, READ) as Ec2InstanceTypeInfo;
}

/** Karpenter's reading of an instance type name: category, an optional `-<n>tb` and the generation digits. */
const NAME_SCHEME = /^([a-z]+)(-[0-9]+tb)?([0-9]+).*\./;

const ARCHITECTURES: Readonly<Record<string, string>> = { x86_64: "amd64", arm64: "arm64" };

function lowerKebab(value: string | undefined): string | null {
  return value === undefined ? null : value.replaceAll(" ", "-").toLowerCase();
}

function architecture(info: Ec2InstanceTypeInfo): string | undefined {
  return (info.ProcessorInfo?.SupportedArchitectures ?? []).map((a) => ARCHITECTURES[a]).find((a) => a !== undefined);
}

/** The one device of a kind Karpenter labels: it labels a type only when it has exactly one device model. */
function single(devices: readonly Ec2Device[] | undefined): Ec2Device | undefined {
  return devices?.length === 1 ? devices[0] : undefined;
}

function accelerator(info: Ec2InstanceTypeInfo): { name: string | null; manufacturer: string | null; count: number } {
  const neuron = single(info.NeuronInfo?.NeuronDevices);
  if (neuron !== undefined) return { name: lowerKebab(neuron.Name), manufacturer: "aws", count: neuron.Count ?? 0 };
  const inference = info.NeuronInfo === undefined ? single(info.InferenceAcceleratorInfo?.Accelerators) : undefined;
  if (inference !== undefined) {
    const manufacturer = lowerKebab(inference.Manufacturer);
    return { name: lowerKebab(inference.Name), manufacturer, count: inference.Count ?? 0 };
  }
  return { name: null, manufacturer: null, count: 0 };
}

/** ENI-limited pods on the default network card, the figure Karpenter's VPC limits give multi-card types. */
function defaultCardMaxPods(info: Ec2InstanceTypeInfo, maxENIs: number, ipv4PerENI: number): number {
  const network = info.NetworkInfo;
  const index = network?.DefaultNetworkCardIndex ?? 0;
  const card = network?.NetworkCards?.find((c) => (c.NetworkCardIndex ?? 0) === index);
  const enis = card?.MaximumNetworkInterfaces ?? maxENIs;
  return enis === 0 ? 0 : enis * (ipv4PerENI - 1) + 2;
}

function cardBandwidthMbps(info: Ec2InstanceTypeInfo): number | null {
  const cards = info.NetworkInfo?.NetworkCards ?? [];
  if (cards.length === 0 || cards.some((c) => c.BaselineBandwidthInGbps === undefined)) return null;
  return Math.round(cards.reduce((sum, c) => sum + (c.BaselineBandwidthInGbps ?? 0), 0) * 1000);
}

function nameParts(name: string): { family: string; size: string; category: string; generation: number } {
  const [family = name, size = ""] = name.split(".");
  const match = NAME_SCHEME.exec(name);
  return { family, size, category: match?.[1] ?? "", generation: match === null ? 0 : Number(match[3]) };
}

/** The GPU and accelerator facts of a type (Karpenter labels one device model per kind). */
function deviceFacts(
  info: Ec2InstanceTypeInfo,
): Pick<
  CatalogEntry,
  | "gpuCount"
  | "gpuName"
  | "gpuManufacturer"
  | "gpuMemoryMiB"
  | "acceleratorCount"
  | "acceleratorName"
  | "acceleratorManufacturer"
> {
  const gpu = single(info.GpuInfo?.Gpus);
  const acc = accelerator(info);
  return {
    gpuCount: gpu?.Count ?? 0,
    gpuName: lowerKebab(gpu?.Name),
    gpuManufacturer: lowerKebab(gpu?.Manufacturer),
    gpuMemoryMiB: gpu?.MemoryInfo?.SizeInMiB ?? 0,
    acceleratorCount: acc.count,
    acceleratorName: acc.name,
    acceleratorManufacturer: acc.manufacturer,
  };
}

/** Local NVMe, EBS and processor facts. */
function hostFacts(
  info: Ec2InstanceTypeInfo,
): Pick<CatalogEntry, "localNvmeGiB" | "ebsBandwidthMbps" | "cpuManufacturer" | "cpuSustainedClockSpeedMHz"> {
  const storage = info.InstanceStorageInfo;
  const ebs = info.EbsInfo;
  const clock = info.ProcessorInfo?.SustainedClockSpeedInGhz;
  return {
    localNvmeGiB: storage !== undefined && storage.NvmeSupport !== "unsupported" ? (storage.TotalSizeInGB ?? 0) : 0,
    ebsBandwidthMbps:
      ebs?.EbsOptimizedSupport === "default" ? (ebs.EbsOptimizedInfo?.MaximumBandwidthInMbps ?? null) : null,
    cpuManufacturer: lowerKebab(info.ProcessorInfo?.Manufacturer),
    cpuSustainedClockSpeedMHz: clock === undefined ? null : Math.round(clock * 1000),
  };
}

/** Network facts: bandwidth, ENI limits and the ENI-limited pod count, EFA, encryption in transit. */
function networkFacts(
  info: Ec2InstanceTypeInfo,
  reference: CatalogEntry | undefined,
): Pick<
  CatalogEntry,
  "networkBandwidthMbps" | "maxENIs" | "ipv4PerENI" | "encryptionInTransit" | "efaCount" | "maxPods"
> {
  const network = info.NetworkInfo;
  const maxENIs = network?.MaximumNetworkInterfaces ?? 0;
  const ipv4PerENI = network?.Ipv4AddressesPerInterface ?? 0;
  return {
    networkBandwidthMbps: reference?.networkBandwidthMbps ?? cardBandwidthMbps(info),
    maxENIs,
    ipv4PerENI,
    encryptionInTransit: network?.EncryptionInTransitSupported === true,
    efaCount: network?.EfaInfo?.MaximumEfaInterfaces ?? 0,
    maxPods: defaultCardMaxPods(info, maxENIs, ipv4PerENI),
  };
}

/**
 * The type's prices and the capacity types it can be bought as: the on-demand price, the spot price per zone
 * of `zones`, and `spotPricePerHour` as the cheapest zone's (the figure offline views show). No price, no
 * offering: Karpenter marks an offering it cannot price unavailable.
 */
function priceFacts(
  info: Ec2InstanceTypeInfo,
  name: string,
  zones: readonly string[],
  prices: RegionPrices,
): Pick<CatalogEntry, "onDemandPricePerHour" | "spotPricePerHour" | "spotPriceByZone" | "capacityTypes"> {
  const onDemand = prices.onDemand.get(name);
  const byZone = [...(prices.spot.get(name)?.entries() ?? [])].filter(([zone]) => zones.includes(zone));
  const spot = byZone.map(([, p]) => p);
  return {
    onDemandPricePerHour: onDemand ?? 0,
    spotPricePerHour: spot.length === 0 ? null : Math.min(...spot),
    spotPriceByZone: Object.fromEntries(byZone),
    capacityTypes: (info.SupportedUsageClasses ?? []).filter(
      (c) => (c === "on-demand" && onDemand !== undefined) || (c === "spot" && spot.length > 0),
    ),
  };
}

/**
 * One catalog entry, or undefined for a record kerf cannot place (no name, no vCPU or memory figure, or an
 * architecture Kubernetes has no name for).
 */
export function entryFromEc2(
  info: Ec2InstanceTypeInfo,
  zones: readonly string[],
  prices: RegionPrices,
  reference?: CatalogEntry,
): CatalogEntry | undefined {
  const name = info.InstanceType;
  const arch = architecture(info);
  const vcpu = info.VCpuInfo?.DefaultVCpus;
  const memoryMiB = info.MemoryInfo?.SizeInMiB;
  if (name === undefined || arch === undefined || vcpu === undefined || memoryMiB === undefined) return undefined;
  const network = networkFacts(info, reference);
  return {
    name,
    ...nameParts(name),
    arch,
    vcpu,
    memoryMiB,
    ...deviceFacts(info),
    ...hostFacts(info),
    ...network,
    hypervisor: info.Hypervisor ?? "",
    bareMetal: info.BareMetal === true,
    ...priceFacts(info, name, zones, prices),
    zones: [...zones].sort(),
    capabilityFlex: name.split(".")[0]?.includes("-flex") === true,
    // Karpenter's documented allocatable is a cross-check of the bundled data only; kerf computes its own.
    allocatable: reference?.allocatable ?? {
      cpuMillicores: 0,
      memoryMiB: 0,
      ephemeralStorageGiB: 0,
      pods: network.maxPods,
    },
  };
}

/**
 * The region's catalog: every described type offered in at least one zone, with its zones; a type without an
 * on-demand price keeps only its spot offerings, one without spot prices only its on-demand ones.
 */
export function catalogFromEc2(input: Ec2CatalogInput): Catalog {
  const entries: CatalogEntry[] = [];
  for (const info of input.instanceTypes) {
    const zones = info.InstanceType === undefined ? undefined : input.offerings.get(info.InstanceType);
    if (zones === undefined || zones.length === 0) continue;
    const entry = entryFromEc2(info, zones, input.prices, input.reference?.get(info.InstanceType ?? ""));
    if (entry !== undefined) entries.push(entry);
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const zones = [...new Set(entries.flatMap((e) => e.zones))].sort();
  const zoneIds = Object.fromEntries(
    zones.flatMap((z) => {
      const id = input.zoneIds[z];
      return id === undefined ? [] : [[z, id] as const];
    }),
  );
  return { region: input.region, zones, zoneIds, instanceTypes: entries };
}

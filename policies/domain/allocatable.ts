/**
 * Karpenter's AWS capacity and allocatable model (aws `pkg/providers/instancetype/types.go`):
 * VM memory overhead, Graviton CMA reservation, ENI-limited max pods, kube-reserved CPU tiers and
 * memory, hard eviction thresholds and the EC2NodeClass kubelet overrides.
 */
import { parseQuantity, resourceValue, type ResourceList } from "./quantity.ts";

const MI = 2 ** 20;
const GI = 2 ** 30;

/** The EC2NodeClass `spec.kubelet` fields that change capacity or allocatable. */
export interface KubeletConfig {
  readonly maxPods?: number;
  readonly podsPerCore?: number;
  readonly kubeReserved?: Readonly<Record<string, string>>;
  readonly systemReserved?: Readonly<Record<string, string>>;
  readonly evictionHard?: Readonly<Record<string, string>>;
}

/** Knobs of the model; defaults are Karpenter's (AL2023, 20Gi root volume, 7.5% VM overhead, no reserved ENIs). */
export interface AllocatableOptions {
  readonly kubelet?: KubeletConfig | undefined;
  readonly vmMemoryOverheadPercent?: number;
  readonly reservedENIs?: number;
  /** Ephemeral storage capacity in bytes (root volume, or RAID0 instance store). */
  readonly ephemeralStorageBytes?: number;
  /** False for AMI families that are not ENI-limited (pods default to 110). */
  readonly eniLimitedPods?: boolean;
}

/** The raw hardware facts the model needs. */
export interface InstanceSpec {
  readonly vcpu: number;
  readonly memoryMiB: number;
  readonly arch: string;
  readonly maxENIs: number;
  readonly ipv4PerENI: number;
  /** ENI-limited pods from the default network card when known (multi-card types); overrides the formula. */
  readonly defaultCardMaxPods?: number | undefined;
  readonly extended?: ResourceList;
}

/** ENI-limited max pods: `max(ENIs − reserved, 0) × (IPv4 per ENI − 1) + 2`, or 0 when no ENI is usable. */
export function eniLimitedPods(spec: InstanceSpec, reservedENIs = 0): number {
  if (reservedENIs === 0 && spec.defaultCardMaxPods !== undefined) return spec.defaultCardMaxPods;
  const usable = Math.max(spec.maxENIs - reservedENIs, 0);
  return usable === 0 ? 0 : usable * (spec.ipv4PerENI - 1) + 2;
}

function pods(spec: InstanceSpec, options: AllocatableOptions): number {
  const kubelet = options.kubelet ?? {};
  let count =
    kubelet.maxPods ?? (options.eniLimitedPods === false ? 110 : eniLimitedPods(spec, options.reservedENIs ?? 0));
  if (kubelet.podsPerCore !== undefined && kubelet.podsPerCore > 0)
    count = Math.min(count, kubelet.podsPerCore * spec.vcpu);
  return count;
}

/** Memory capacity in MiB after the arm64 CMA reservation and the VM overhead. */
export function memoryCapacityMiB(spec: InstanceSpec, overheadPercent = 0.075): number {
  const m = spec.arch === "arm64" ? spec.memoryMiB - 64 : spec.memoryMiB;
  return m - Math.ceil(m * overheadPercent);
}

/** Node capacity: cpu (millicores), memory and ephemeral-storage (bytes), pods, extended resources. */
export function computeCapacity(spec: InstanceSpec, options: AllocatableOptions = {}): ResourceList {
  return {
    cpu: spec.vcpu * 1000,
    memory: memoryCapacityMiB(spec, options.vmMemoryOverheadPercent) * MI,
    "ephemeral-storage": options.ephemeralStorageBytes ?? 20 * GI,
    pods: pods(spec, options),
    ...spec.extended,
  };
}

/** Kube-reserved CPU in millicores: 6% / 1% / 0.5% / 0.25% bands, truncated per band. */
export function kubeReservedCpu(cpuMillis: number): number {
  const bands: readonly [number, number, number][] = [
    [0, 1000, 0.06],
    [1000, 2000, 0.01],
    [2000, 4000, 0.005],
    [4000, Infinity, 0.0025],
  ];
  let total = 0;
  for (const [start, end, rate] of bands) {
    if (cpuMillis > start) total += Math.floor((Math.min(cpuMillis, end) - start) * rate);
  }
  return total;
}

function overrides(raw: Readonly<Record<string, string>> | undefined): ResourceList {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(raw ?? {})) out[k] = resourceValue(k, v);
  return out;
}

/** Kube-reserved resources: defaults (11Mi × pods + 255Mi memory, CPU bands, 1Gi storage) overridden per key. */
export function kubeReserved(capacity: ResourceList, kubelet: KubeletConfig = {}): ResourceList {
  return {
    cpu: kubeReservedCpu(capacity["cpu"] ?? 0),
    memory: (11 * (capacity["pods"] ?? 0) + 255) * MI,
    "ephemeral-storage": GI,
    ...overrides(kubelet.kubeReserved),
  };
}

function threshold(raw: string | undefined, capacity: number, fallback: number): number {
  if (raw === undefined) return fallback;
  if (raw.endsWith("%")) return Math.ceil((capacity * Number(raw.slice(0, -1))) / 100);
  return Math.ceil(parseQuantity(raw));
}

/** Hard eviction thresholds: memory 100Mi, ephemeral-storage 10% (rounded up), or evictionHard overrides. */
export function evictionThreshold(capacity: ResourceList, kubelet: KubeletConfig = {}): ResourceList {
  const memory = capacity["memory"] ?? 0;
  const storage = capacity["ephemeral-storage"] ?? 0;
  return {
    memory: threshold(kubelet.evictionHard?.["memory.available"], memory, 100 * MI),
    "ephemeral-storage": threshold(kubelet.evictionHard?.["nodefs.available"], storage, Math.ceil(storage * 0.1)),
  };
}

/** Allocatable = capacity − kubeReserved − systemReserved − hard eviction threshold (never below zero). */
export function computeAllocatable(capacity: ResourceList, kubelet: KubeletConfig = {}): ResourceList {
  const minus = [
    kubeReserved(capacity, kubelet),
    overrides(kubelet.systemReserved),
    evictionThreshold(capacity, kubelet),
  ];
  const out: Record<string, number> = { ...capacity };
  for (const list of minus) {
    for (const [k, v] of Object.entries(list)) if (k in out) out[k] = Math.max((out[k] ?? 0) - v, 0);
  }
  return out;
}

/** Well-known and restricted label keys, beta-key normalisation and well-known values (Karpenter v1, AWS). */

/** Label keys kerf reads or writes, spelled exactly as Karpenter does. */
export const Label = {
  zone: "topology.kubernetes.io/zone",
  region: "topology.kubernetes.io/region",
  zoneId: "topology.k8s.aws/zone-id",
  hostname: "kubernetes.io/hostname",
  instanceType: "node.kubernetes.io/instance-type",
  arch: "kubernetes.io/arch",
  os: "kubernetes.io/os",
  windowsBuild: "node.kubernetes.io/windows-build",
  capacityType: "karpenter.sh/capacity-type",
  nodePool: "karpenter.sh/nodepool",
  nodeClass: "karpenter.k8s.aws/ec2nodeclass",
  instanceCategory: "karpenter.k8s.aws/instance-category",
  instanceFamily: "karpenter.k8s.aws/instance-family",
  instanceGeneration: "karpenter.k8s.aws/instance-generation",
  instanceSize: "karpenter.k8s.aws/instance-size",
  instanceCpu: "karpenter.k8s.aws/instance-cpu",
  instanceCpuManufacturer: "karpenter.k8s.aws/instance-cpu-manufacturer",
  instanceCpuClock: "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz",
  instanceMemory: "karpenter.k8s.aws/instance-memory",
  instanceEbsBandwidth: "karpenter.k8s.aws/instance-ebs-bandwidth",
  instanceNetworkBandwidth: "karpenter.k8s.aws/instance-network-bandwidth",
  instanceGpuName: "karpenter.k8s.aws/instance-gpu-name",
  instanceGpuManufacturer: "karpenter.k8s.aws/instance-gpu-manufacturer",
  instanceGpuCount: "karpenter.k8s.aws/instance-gpu-count",
  instanceGpuMemory: "karpenter.k8s.aws/instance-gpu-memory",
  instanceAcceleratorName: "karpenter.k8s.aws/instance-accelerator-name",
  instanceAcceleratorManufacturer: "karpenter.k8s.aws/instance-accelerator-manufacturer",
  instanceAcceleratorCount: "karpenter.k8s.aws/instance-accelerator-count",
  instanceLocalNvme: "karpenter.k8s.aws/instance-local-nvme",
  instanceHypervisor: "karpenter.k8s.aws/instance-hypervisor",
  instanceEncryptionInTransit: "karpenter.k8s.aws/instance-encryption-in-transit-supported",
  instanceCapabilityFlex: "karpenter.k8s.aws/instance-capability-flex",
  instanceTenancy: "karpenter.k8s.aws/instance-tenancy",
  capacityReservationId: "karpenter.k8s.aws/capacity-reservation-id",
  capacityReservationType: "karpenter.k8s.aws/capacity-reservation-type",
  capacityReservationInterruptible: "karpenter.k8s.aws/capacity-reservation-interruptible",
} as const;

/** The `karpenter.k8s.aws/*` keys a NodePool may use (v1.14.1 CEL allow-list; 28 keys). */
export const AWS_ALLOWED_LABELS: ReadonlySet<string> = new Set(
  [
    "instance-tenancy",
    "capacity-reservation-type",
    "capacity-reservation-id",
    "capacity-reservation-interruptible",
    "ec2nodeclass",
    "instance-encryption-in-transit-supported",
    "instance-category",
    "instance-hypervisor",
    "instance-family",
    "instance-generation",
    "instance-local-nvme",
    "instance-size",
    "instance-cpu",
    "instance-cpu-manufacturer",
    "instance-cpu-sustained-clock-speed-mhz",
    "instance-memory",
    "instance-ebs-bandwidth",
    "instance-network-bandwidth",
    "instance-gpu-name",
    "instance-gpu-manufacturer",
    "instance-gpu-count",
    "instance-gpu-memory",
    "instance-accelerator-name",
    "instance-accelerator-manufacturer",
    "instance-accelerator-count",
    "instance-capability-flex",
    "placement-group-id",
    "placement-group-partition",
  ].map((k) => `karpenter.k8s.aws/${k}`),
);

const CORE_WELL_KNOWN = [
  Label.nodePool,
  Label.zone,
  Label.region,
  Label.instanceType,
  Label.arch,
  Label.os,
  Label.capacityType,
  Label.windowsBuild,
];

/** Labels whose values Karpenter knows (core + AWS): pods and NodePools may constrain them freely. */
export const WELL_KNOWN_LABELS: ReadonlySet<string> = new Set([
  ...CORE_WELL_KNOWN,
  ...[...AWS_ALLOWED_LABELS].filter((k) => k !== Label.nodeClass),
  Label.zoneId,
]);

/** Label domains Karpenter reserves (Go runtime check). */
export const RESTRICTED_LABEL_DOMAINS: readonly string[] = ["karpenter.sh", "karpenter.k8s.aws"];

/** Beta label keys and the GA key each is normalised to before any comparison. */
export const NORMALIZED_LABELS: Readonly<Record<string, string>> = {
  "failure-domain.beta.kubernetes.io/zone": Label.zone,
  "failure-domain.beta.kubernetes.io/region": Label.region,
  "beta.kubernetes.io/arch": Label.arch,
  "beta.kubernetes.io/os": Label.os,
  "beta.kubernetes.io/instance-type": Label.instanceType,
};

/** The GA spelling of a label key (beta keys normalised, others unchanged). */
export function normalizeLabelKey(key: string): string {
  // Own keys only: a requirement key "__proto__" or "constructor" must not find Object.prototype's members.
  return Object.hasOwn(NORMALIZED_LABELS, key) ? (NORMALIZED_LABELS[key] as string) : key;
}

/** The domain part of a key: the text before the first "/", or the whole key. */
export function labelDomain(key: string): string {
  const slash = key.indexOf("/");
  return slash < 0 ? key : key.slice(0, slash);
}

/**
 * Go runtime semantics (`IsRestrictedLabel`): a key is restricted when its domain equals or ends
 * with "." + a restricted domain, unless it is well known. Looser than the CEL rule below.
 */
export function isRestrictedLabel(key: string): boolean {
  if (WELL_KNOWN_LABELS.has(key)) return false;
  const domain = labelDomain(key);
  return RESTRICTED_LABEL_DOMAINS.some((d) => domain === d || domain.endsWith(`.${d}`));
}

/**
 * CEL admission semantics: any key whose domain merely ends with `karpenter.sh` (no dot boundary)
 * is rejected except capacity-type and nodepool; `karpenter.k8s.aws` domains unless allow-listed.
 */
export function isRestrictedByCel(key: string): boolean {
  const domain = labelDomain(key);
  if (domain.endsWith("karpenter.sh")) return key !== Label.capacityType && key !== Label.nodePool;
  if (domain.endsWith("karpenter.k8s.aws")) return !AWS_ALLOWED_LABELS.has(key);
  return false;
}

/** Capacity types Karpenter knows. */
export const CAPACITY_TYPES = ["spot", "on-demand", "reserved"] as const;
export type CapacityType = (typeof CAPACITY_TYPES)[number];

/** Label keys whose values are a closed set: an `In` listing only other values matches nothing. */
export const WELL_KNOWN_VALUES: Readonly<Record<string, readonly string[]>> = {
  [Label.capacityType]: CAPACITY_TYPES,
  [Label.instanceTenancy]: ["default", "dedicated"],
  [Label.arch]: ["amd64", "arm64"],
  [Label.os]: ["linux", "windows"],
};

/** The labels a reserved offering carries (absent on spot and on-demand offerings): Karpenter's reservation keys. */
export const RESERVATION_LABELS: readonly string[] = [
  Label.capacityReservationId,
  Label.capacityReservationType,
  Label.capacityReservationInterruptible,
];

/** Label keys whose values live on an instance type's offerings rather than on the type itself. */
export const OFFERING_LABELS: ReadonlySet<string> = new Set([
  Label.zone,
  Label.zoneId,
  Label.capacityType,
  ...RESERVATION_LABELS,
]);

/** Resources Karpenter knows besides cpu, memory, ephemeral-storage and pods (AWS). */
export const WELL_KNOWN_RESOURCES: readonly string[] = [
  "cpu",
  "memory",
  "ephemeral-storage",
  "pods",
  "nvidia.com/gpu",
  "amd.com/gpu",
  "aws.amazon.com/neuron",
  "aws.amazon.com/neuroncore",
  "habana.ai/gaudi",
  "vpc.amazonaws.com/pod-eni",
  "vpc.amazonaws.com/efa",
];

/** Extended resources that make an instance type "exotic" for the launch filter. */
export const EXOTIC_RESOURCES: readonly string[] = [
  "nvidia.com/gpu",
  "amd.com/gpu",
  "aws.amazon.com/neuron",
  "aws.amazon.com/neuroncore",
  "habana.ai/gaudi",
];

/** Taints Karpenter owns. */
export const Taint = {
  disrupted: "karpenter.sh/disrupted",
  unregistered: "karpenter.sh/unregistered",
} as const;

/** Annotations Karpenter owns that the simulation reads. */
export const Annotation = {
  doNotDisrupt: "karpenter.sh/do-not-disrupt",
  minValuesRelaxed: "karpenter.sh/nodeclaim-min-values-relaxed",
} as const;

/**
 * A node's ephemeral-storage capacity as Karpenter computes it (aws instancetype `ephemeralStorage`):
 * the instance-store total under instanceStorePolicy RAID0, else the EC2NodeClass volume that holds the
 * kubelet's data (the rootVolume mapping, else the family's ephemeral device), else the family's default.
 */
import { parseQuantity } from "./quantity.ts";

const GI = 2 ** 30;

/** The EC2NodeClass fields the capacity depends on. */
export interface StorageSource {
  readonly amiFamily: string;
  readonly blockDeviceMappings?:
    | readonly {
        readonly deviceName?: string | undefined;
        readonly rootVolume?: boolean | undefined;
        readonly ebs?: { readonly volumeSize?: string | undefined } | undefined;
      }[]
    | undefined;
  readonly instanceStorePolicy?: string | undefined;
}

/** The device the kubelet's data lives on and its default size, per family (Karpenter's EphemeralBlockDevice). */
function ephemeralDevice(family: string): { device: string; bytes: number } {
  if (family === "Bottlerocket") return { device: "/dev/xvdb", bytes: 20 * GI };
  if (family.startsWith("Windows")) return { device: "/dev/sda1", bytes: 50 * GI };
  return { device: "/dev/xvda", bytes: 20 * GI };
}

type Mapping = NonNullable<StorageSource["blockDeviceMappings"]>[number];

/** The volume size of the first mapping that matches, in bytes. */
function sizeOf(mappings: readonly Mapping[], match: (m: Mapping) => boolean): number | undefined {
  const volumeSize = mappings.find(match)?.ebs?.volumeSize;
  return volumeSize === undefined ? undefined : parseQuantity(volumeSize);
}

/** Ephemeral storage from EBS (bytes): what every instance type of the node class gets without RAID0. */
export function ebsEphemeralStorageBytes(source: StorageSource): number {
  const mappings = source.blockDeviceMappings ?? [];
  const fallback = ephemeralDevice(source.amiFamily);
  if (mappings.length === 0) return fallback.bytes;
  const root = sizeOf(mappings, (m) => m.rootVolume === true);
  if (root !== undefined) return root;
  // A Custom AMI's layout is unknown: Karpenter takes the last mapping.
  if (source.amiFamily === "Custom") return sizeOf(mappings.slice(-1), () => true) ?? 20 * GI;
  return sizeOf(mappings, (m) => m.deviceName === fallback.device) ?? fallback.bytes;
}

/**
 * Under RAID0, an instance type's instance-store total in bytes: EC2's TotalSizeInGB read as decimal GB
 * ("<n>G"), as Karpenter reads it. Undefined without RAID0 or instance storage.
 */
export function raid0StorageBytes(
  instanceStorePolicy: string | undefined,
  instanceStoreGB: number,
): number | undefined {
  return instanceStorePolicy === "RAID0" && instanceStoreGB > 0 ? instanceStoreGB * 1e9 : undefined;
}

/** Ephemeral storage of one instance type (bytes): the RAID0 instance store, else the EBS figure. */
export function ephemeralStorageBytes(source: StorageSource, instanceStoreGB: number): number {
  return raid0StorageBytes(source.instanceStorePolicy, instanceStoreGB) ?? ebsEphemeralStorageBytes(source);
}

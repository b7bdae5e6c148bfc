/**
 * Resolved option set → launch-template content, named `karpenter.k8s.aws/<content hash>` so equal
 * content maps to one template and any change (AMI, user data, devices, IMDS, groups) to a new one.
 */
import { parseQuantity } from "../../../policies/domain/quantity.ts";
import { UNREGISTERED_TAINT, type BootstrapTaint } from "./bootstrap.ts";
import { contentHash } from "./hash.ts";
import { amiFamilyOf, type BlockDeviceMapping, type EC2NodeClassSpec, type NodeClassKubelet } from "./node-class.ts";
import { networkInterfaces, type NetworkInterface } from "./network-interfaces.ts";
import { userDataFor } from "./user-data.ts";

/** Name prefix of every launch template kerf owns (Karpenter's). */
export const LAUNCH_TEMPLATE_PREFIX = "karpenter.k8s.aws/";

/** One EBS device in launch-template terms (sizes in GiB). */
export interface BlockDevice {
  readonly deviceName: string;
  readonly ebs: {
    readonly volumeSizeGiB?: number | undefined;
    readonly volumeType: string;
    readonly encrypted: boolean;
    readonly deleteOnTermination: boolean;
    readonly iops?: number | undefined;
    readonly throughput?: number | undefined;
    readonly kmsKeyId?: string | undefined;
    readonly snapshotId?: string | undefined;
  };
}

/** IMDS settings. */
export interface Imds {
  readonly httpEndpoint: string;
  readonly httpProtocolIPv6: string;
  readonly httpPutResponseHopLimit: number;
  readonly httpTokens: string;
}

/** The launch-template content kerf creates; the adapter maps it to the SDK shape. */
export interface LaunchTemplateSpec {
  readonly name: string;
  readonly imageId: string;
  /** Plain text; the adapter base64-encodes it. */
  readonly userData: string;
  readonly securityGroupIds: readonly string[];
  readonly instanceProfile?: string | undefined;
  readonly blockDeviceMappings: readonly BlockDevice[];
  readonly metadataOptions: Imds;
  readonly detailedMonitoring: boolean;
  readonly associatePublicIPAddress?: boolean | undefined;
  /** Declared interfaces (EFA, IPv6, a public-IP choice); the security groups then live in them. */
  readonly networkInterfaces?: readonly NetworkInterface[] | undefined;
  /**
   * A reserved launch: the capacity reservation the template targets (one template per
   * reservation, as in Karpenter).
   */
  readonly capacityReservation?: TemplateReservation | undefined;
}

/** The reservation a template targets: `capacity-reservations-only` into it, in the market its type needs. */
export interface TemplateReservation {
  readonly id: string;
  readonly type: "default" | "capacity-block";
  readonly interruptible: boolean;
}

/** Everything one launch template depends on. */
export interface LaunchOptions {
  readonly clusterName: string;
  readonly clusterEndpoint: string;
  readonly caBundle?: string | undefined;
  readonly clusterCIDR?: string | undefined;
  /**
   * The `kube-dns` Service's clusterIP: the kubelet's clusterDNS unless spec.kubelet.clusterDNS is set
   * (Karpenter's default, for every family). Undefined: each family derives it from the service CIDR.
   */
  readonly clusterDNS?: string | undefined;
  readonly nodeClass: EC2NodeClassSpec;
  readonly imageId: string;
  readonly securityGroupIds: readonly string[];
  /** Labels the node registers with (NodeClaim labels incl. nodepool and capacity type). */
  readonly labels: Readonly<Record<string, string>>;
  /** NodeClaim taints and startup taints; the unregistered taint is added here. */
  readonly taints: readonly BootstrapTaint[];
  /**
   * The resolved instance profile (launchInstanceProfile: spec.instanceProfile, or the managed profile
   * for spec.role). Omitted: spec.instanceProfile. Part of the content hash.
   */
  readonly instanceProfile?: string | undefined;
  /**
   * EFA interfaces for the instance types of this template (their vpc.amazonaws.com/efa when
   * requested); 0 or omitted: none.
   */
  readonly efaCount?: number | undefined;
  /** Set for a reserved launch only, so other templates keep their content and name. */
  readonly capacityReservation?: TemplateReservation | undefined;
}

/** CRD defaults for metadataOptions (IMDSv2 required, hop limit 1). */
export const DEFAULT_IMDS: Imds = {
  httpEndpoint: "enabled",
  httpProtocolIPv6: "disabled",
  httpPutResponseHopLimit: 1,
  httpTokens: "required",
};

const GP3 = (deviceName: string, volumeSize: string): BlockDeviceMapping => ({
  deviceName,
  ebs: { volumeSize, volumeType: "gp3", encrypted: true, deleteOnTermination: true },
});

/** Karpenter's default block devices per AMI family when spec.blockDeviceMappings is unset. */
export function defaultBlockDevices(family: string): BlockDeviceMapping[] {
  if (family === "Bottlerocket") return [GP3("/dev/xvda", "4Gi"), GP3("/dev/xvdb", "20Gi")];
  if (family.startsWith("Windows")) return [GP3("/dev/sda1", "50Gi")];
  return [GP3("/dev/xvda", "20Gi")];
}

function toBlockDevice(m: BlockDeviceMapping): BlockDevice {
  const e = m.ebs ?? {};
  return {
    deviceName: m.deviceName ?? "/dev/xvda",
    ebs: {
      volumeSizeGiB: e.volumeSize === undefined ? undefined : Math.ceil(parseQuantity(e.volumeSize) / 2 ** 30),
      volumeType: e.volumeType ?? "gp3",
      encrypted: e.encrypted ?? false,
      deleteOnTermination: e.deleteOnTermination ?? true,
      iops: e.iops,
      throughput: e.throughput,
      kmsKeyId: e.kmsKeyID,
      snapshotId: e.snapshotID,
    },
  };
}

/** spec.kubelet with clusterDNS defaulted to the discovered kube-dns address; the user's setting wins. */
function withClusterDNS(kubelet: NodeClassKubelet, clusterDNS: string | undefined): NodeClassKubelet {
  if (clusterDNS === undefined || (kubelet.clusterDNS !== undefined && kubelet.clusterDNS.length > 0)) return kubelet;
  return { ...kubelet, clusterDNS: [clusterDNS] };
}

/**
 * Karpenter's families other than Custom register nodes with karpenter.sh/do-not-sync-taints=true: the
 * taints come from the user data, so the NodeClaim's taints are not synced onto the Node (a race otherwise).
 */
function withDoNotSyncTaints(
  family: string,
  labels: Readonly<Record<string, string>>,
): Readonly<Record<string, string>> {
  return family === "Custom" ? labels : { ...labels, "karpenter.sh/do-not-sync-taints": "true" };
}

function withUnregistered(taints: readonly BootstrapTaint[]): BootstrapTaint[] {
  return taints.some((t) => t.key === UNREGISTERED_TAINT.key) ? [...taints] : [...taints, UNREGISTERED_TAINT];
}

/** Builds the launch-template content and its content-hash name. */
export function buildLaunchTemplate(options: LaunchOptions): LaunchTemplateSpec {
  const spec = options.nodeClass;
  const family = amiFamilyOf(spec);
  const userData = userDataFor(family, {
    clusterName: options.clusterName,
    clusterEndpoint: options.clusterEndpoint,
    caBundle: options.caBundle,
    clusterCIDR: options.clusterCIDR,
    kubelet: withClusterDNS(spec.kubelet ?? {}, options.clusterDNS),
    labels: withDoNotSyncTaints(family, options.labels),
    taints: withUnregistered(options.taints),
    customUserData: spec.userData,
    instanceStorePolicy: spec.instanceStorePolicy,
  });
  const content = {
    imageId: options.imageId,
    userData,
    securityGroupIds: [...options.securityGroupIds].sort(),
    instanceProfile: options.instanceProfile ?? spec.instanceProfile,
    blockDeviceMappings: (spec.blockDeviceMappings ?? defaultBlockDevices(family)).map(toBlockDevice),
    metadataOptions: { ...DEFAULT_IMDS, ...definedOnly(spec.metadataOptions ?? {}) } as Imds,
    detailedMonitoring: spec.detailedMonitoring ?? false,
    associatePublicIPAddress: spec.associatePublicIPAddress,
    networkInterfaces: networkInterfaces({
      efaCount: options.efaCount ?? 0,
      ipv6: isIPv6Cluster(options),
      securityGroupIds: options.securityGroupIds,
      associatePublicIPAddress: spec.associatePublicIPAddress,
    }),
    capacityReservation: options.capacityReservation,
  };
  return { name: `${LAUNCH_TEMPLATE_PREFIX}${contentHash(content)}`, ...content };
}

/** Karpenter's cluster IP family: IPv6 when the kube-dns address is (else the discovered service CIDR). */
function isIPv6Cluster(options: LaunchOptions): boolean {
  return (options.clusterDNS ?? options.clusterCIDR ?? "").includes(":");
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

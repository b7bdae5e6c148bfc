/**
 * The EC2NodeClass (karpenter.k8s.aws/v1) fields the cloud provider reads, typed locally until
 * policies/api carries the full API types; field names are exactly the CRD's.
 */
import type {
  CapacityReservationSelectorTerm,
  CapacityReservationStatus,
} from "../capacity-reservations/reservations.ts";

/** Tags and/or id (subnets); tags, id or name (security groups). Fields AND, terms OR. */
export interface SelectorTerm {
  readonly tags?: Readonly<Record<string, string>> | undefined;
  readonly id?: string | undefined;
  readonly name?: string | undefined;
}

/** One amiSelectorTerms entry. */
export interface AmiSelectorTerm extends SelectorTerm {
  readonly alias?: string | undefined;
  readonly owner?: string | undefined;
  readonly ssmParameter?: string | undefined;
}

/** spec.blockDeviceMappings[]. */
export interface BlockDeviceMapping {
  readonly deviceName?: string | undefined;
  readonly rootVolume?: boolean | undefined;
  readonly ebs?:
    | {
        readonly deleteOnTermination?: boolean | undefined;
        readonly encrypted?: boolean | undefined;
        readonly iops?: number | undefined;
        readonly kmsKeyID?: string | undefined;
        readonly snapshotID?: string | undefined;
        readonly throughput?: number | undefined;
        readonly volumeSize?: string | undefined;
        readonly volumeType?: string | undefined;
      }
    | undefined;
}

/** spec.metadataOptions (defaulted by the CRD). */
export interface MetadataOptions {
  readonly httpEndpoint?: string | undefined;
  readonly httpProtocolIPv6?: string | undefined;
  readonly httpPutResponseHopLimit?: number | undefined;
  readonly httpTokens?: string | undefined;
}

/** spec.kubelet. */
export interface NodeClassKubelet {
  readonly clusterDNS?: readonly string[] | undefined;
  readonly cpuCFSQuota?: boolean | undefined;
  readonly evictionHard?: Readonly<Record<string, string>> | undefined;
  readonly evictionSoft?: Readonly<Record<string, string>> | undefined;
  readonly evictionSoftGracePeriod?: Readonly<Record<string, string>> | undefined;
  readonly evictionMaxPodGracePeriod?: number | undefined;
  readonly imageGCHighThresholdPercent?: number | undefined;
  readonly imageGCLowThresholdPercent?: number | undefined;
  readonly kubeReserved?: Readonly<Record<string, string>> | undefined;
  readonly systemReserved?: Readonly<Record<string, string>> | undefined;
  readonly maxPods?: number | undefined;
  readonly podsPerCore?: number | undefined;
}

/** The EC2NodeClass spec fields kerf uses. */
export interface EC2NodeClassSpec {
  readonly amiFamily?: string | undefined;
  readonly amiSelectorTerms: readonly AmiSelectorTerm[];
  readonly subnetSelectorTerms: readonly SelectorTerm[];
  readonly securityGroupSelectorTerms: readonly SelectorTerm[];
  readonly role?: string | undefined;
  readonly instanceProfile?: string | undefined;
  readonly userData?: string | undefined;
  readonly tags?: Readonly<Record<string, string>> | undefined;
  readonly blockDeviceMappings?: readonly BlockDeviceMapping[] | undefined;
  readonly metadataOptions?: MetadataOptions | undefined;
  readonly kubelet?: NodeClassKubelet | undefined;
  /** "RAID0": the instance-store disks become one array for containerd, kubelet and pod logs. */
  readonly instanceStorePolicy?: string | undefined;
  readonly detailedMonitoring?: boolean | undefined;
  readonly associatePublicIPAddress?: boolean | undefined;
  readonly capacityReservationSelectorTerms?: readonly CapacityReservationSelectorTerm[] | undefined;
}

/** A status condition (metav1.Condition). */
export interface Condition {
  readonly type: string;
  readonly status: "True" | "False" | "Unknown";
  readonly reason: string;
  readonly message: string;
  readonly lastTransitionTime: string;
  readonly observedGeneration?: number | undefined;
}

/** One status.amis entry. */
export interface AmiStatus {
  readonly id: string;
  readonly name?: string | undefined;
  readonly deprecated?: boolean | undefined;
  readonly requirements: readonly {
    readonly key: string;
    readonly operator: string;
    readonly values?: readonly string[] | undefined;
  }[];
}

/** EC2NodeClass status as kerf writes it. */
export interface EC2NodeClassStatus {
  readonly subnets?:
    readonly { readonly id: string; readonly zone: string; readonly zoneID?: string | undefined }[] | undefined;
  readonly securityGroups?: readonly { readonly id: string; readonly name?: string | undefined }[] | undefined;
  readonly amis?: readonly AmiStatus[] | undefined;
  readonly instanceProfile?: string | undefined;
  /** null only in a status write: a merge patch removes the field when nothing is selected any more. */
  readonly capacityReservations?: readonly CapacityReservationStatus[] | null | undefined;
  readonly conditions?: readonly Condition[] | undefined;
}

/** An EC2NodeClass object. */
export interface EC2NodeClassLike {
  readonly metadata: {
    readonly name: string;
    readonly generation?: number | undefined;
    readonly uid?: string | undefined;
    readonly resourceVersion?: string | undefined;
    readonly finalizers?: readonly string[] | undefined;
    readonly deletionTimestamp?: string | undefined;
  };
  readonly spec: EC2NodeClassSpec;
  readonly status?: EC2NodeClassStatus | undefined;
}

export { amiFamilyOf } from "../../../policies/ec2nodeclass/ami-family.ts";

/** The cloud-provider port: what controllers may ask of the cloud (launch, find, terminate, list, offer types). */
import type { InstanceType } from "../../policies/domain/instance-types.ts";
import type { NodeSelectorRequirement } from "../../policies/domain/requirements.ts";

/** A taint as written on NodeClaims and Nodes. */
export interface TaintLike {
  readonly key: string;
  readonly value?: string | undefined;
  readonly effect: string;
}

/**
 * The fields of a karpenter.sh/v1 NodeClaim the cloud provider reads. Requirements carry the
 * instance-type, zone and capacity-type options the scheduler left open; labels the NodePool
 * template labels (including karpenter.sh/nodepool).
 */
export interface NodeClaimLike {
  readonly metadata: {
    readonly name: string;
    readonly labels?: Readonly<Record<string, string>> | undefined;
    /** karpenter.sh/price-overlay-applied: the launch follows the overlaid prices (prioritized allocation). */
    readonly annotations?: Readonly<Record<string, string>> | undefined;
  };
  readonly spec: {
    readonly nodeClassRef: { readonly group: string; readonly kind: string; readonly name: string };
    readonly requirements: readonly NodeSelectorRequirement[];
    readonly taints?: readonly TaintLike[] | undefined;
    readonly startupTaints?: readonly TaintLike[] | undefined;
    readonly resources?: { readonly requests?: Readonly<Record<string, string | number>> | undefined } | undefined;
  };
}

/** What a launched (or found) instance contributes to the NodeClaim status and labels. */
export interface LaunchedInstance {
  /** `aws:///<zone>/<instance-id>`. */
  readonly providerID: string;
  readonly instanceID: string;
  readonly imageID: string;
  readonly instanceType: string;
  readonly zone: string;
  readonly capacityType: string;
  /** Kubernetes quantities, cpu in cores ("2"), memory in Mi/Gi. */
  readonly capacity: Readonly<Record<string, string>>;
  readonly allocatable: Readonly<Record<string, string>>;
  /** Instance-type labels plus zone, zone-id, capacity-type and instance-type labels. */
  readonly labels: Readonly<Record<string, string>>;
  /** True when create() found the instance an earlier attempt launched instead of calling CreateFleet. */
  readonly adopted: boolean;
}

/** An instance as the cloud reports it, with the Karpenter tags kerf reads back. */
export interface CloudInstance {
  readonly providerID: string;
  readonly instanceID: string;
  readonly imageID: string;
  readonly instanceType: string;
  readonly zone: string;
  readonly capacityType: string;
  /** pending | running | shutting-down | stopping | stopped (terminated instances are never returned). */
  readonly state: string;
  readonly launchTime: Date;
  /** Security group ids of the instance (its own and its network interfaces'). */
  readonly securityGroupIDs?: readonly string[];
  /** Subnet of the instance ("" when unknown). */
  readonly subnetID?: string;
  /** Value of the karpenter.sh/nodeclaim tag ("" when absent). */
  readonly nodeClaimName: string;
  readonly nodePoolName: string;
  readonly nodeClassName: string;
  readonly tags: Readonly<Record<string, string>>;
  /** The capacity reservation the instance runs in, when it was launched into one as reserved capacity. */
  readonly capacityReservation?: InstanceReservation | undefined;
}

/** An instance's capacity reservation (Karpenter's CapacityReservationDetails). */
export interface InstanceReservation {
  readonly id: string;
  readonly type: "default" | "capacity-block";
  readonly interruptible: boolean;
}

/**
 * `knownNew`: the caller guarantees no instance can exist for this NodeClaim yet (it created the
 * NodeClaim in this process and has never called create for it), so the idempotency lookup is skipped.
 */
export interface CreateOptions {
  readonly knownNew?: boolean;
}

/** The port every controller uses; AwsCloudProvider implements it, tests may fake it. */
export interface CloudProvider {
  /**
   * Launches one instance for the NodeClaim and returns what its status needs. Idempotent per
   * NodeClaim name: when an instance tagged karpenter.sh/nodeclaim=<name> already exists (a crash
   * between CreateFleet and the status write), that instance is returned and nothing is launched.
   * Throws InsufficientCapacityError (the failed offerings are already marked unavailable, so the
   * caller deletes the NodeClaim and re-simulates), NodeClassNotReadyError (missing or unresolved
   * EC2NodeClass; delete the NodeClaim) or CreateError (anything else; retry).
   */
  create(nodeClaim: NodeClaimLike, options?: CreateOptions): Promise<LaunchedInstance>;
  /** Terminates the instance; throws NodeClaimNotFoundError when it is already gone. */
  delete(providerID: string): Promise<void>;
  /** The instance behind a providerID; throws NodeClaimNotFoundError when it is gone or terminated. */
  get(providerID: string): Promise<CloudInstance>;
  /**
   * Every instance tagged kubernetes.io/cluster/<name>=owned and karpenter.sh/nodeclaim, not terminated;
   * with `nodeClaimName`, only those tagged karpenter.sh/nodeclaim=<nodeClaimName> (how termination finds
   * the instance of a NodeClaim deleted before its providerID was written).
   */
  list(nodeClaimName?: string): Promise<CloudInstance[]>;
  /**
   * Instance types for an EC2NodeClass: catalog types with offerings in the node class's subnet
   * zones, allocatable from its kubelet settings, ICE-cached offerings marked unavailable.
   * Throws NodeClassNotReadyError when the node class is missing or resolves no subnet.
   */
  getInstanceTypes(nodeClassName: string): Promise<InstanceType[]>;
}

/** Parses `aws:///<zone>/<instance-id>`; undefined when it is not an AWS provider id. */
export function parseProviderID(providerID: string): { zone: string; instanceID: string } | undefined {
  const match = /^aws:\/\/\/([^/]+)\/(i-[0-9a-z]+)$/.exec(providerID);
  return match === null ? undefined : { zone: match[1] ?? "", instanceID: match[2] ?? "" };
}

/** Formats the providerID of an instance. */
export function formatProviderID(zone: string, instanceID: string): string {
  return `aws:///${zone}/${instanceID}`;
}

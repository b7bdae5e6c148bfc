/** The node-class resolver port: selector terms → the subnets, security groups and AMIs they select right now. */
import type { CapacityReservationStatus } from "../core/capacity-reservations/reservations.ts";
import type { ResolvedAmi } from "../core/launch-template/amis.ts";
import type { EC2NodeClassLike } from "../core/launch-template/node-class.ts";

/** What an EC2NodeClass's selectors resolve to; a failed lookup leaves its list empty and says why. */
export interface NodeClassFacts {
  readonly subnets: readonly {
    readonly id: string;
    readonly zone: string;
    readonly zoneId?: string | undefined;
    readonly availableIpCount: number;
  }[];
  readonly securityGroups: readonly { readonly id: string; readonly name?: string | undefined }[];
  readonly amis: readonly ResolvedAmi[];
  /**
   * The capacity reservations spec.capacityReservationSelectorTerms select, as status entries sorted by id
   * (absent: none selected, or the ReservedCapacity gate is off).
   */
  readonly capacityReservations?: readonly CapacityReservationStatus[] | undefined;
  /** Lookup failures by part, as "doing X: cause" messages. */
  readonly errors: Readonly<Partial<Record<"subnets" | "securityGroups" | "amis" | "capacityReservations", string>>>;
}

/** `fresh`: ask the cloud now even if a cached answer exists (and refresh the cache). */
export interface ResolveOptions {
  readonly fresh?: boolean;
}

/** Resolves selectors; never throws for AWS failures (they land in `errors`). */
export interface NodeClassResolver {
  resolve(nodeClass: EC2NodeClassLike, options?: ResolveOptions): Promise<NodeClassFacts>;
}

/** Whether the facts are enough to launch: at least one subnet, security group and AMI. */
export function launchable(facts: NodeClassFacts): boolean {
  return facts.subnets.length > 0 && facts.securityGroups.length > 0 && facts.amis.length > 0;
}

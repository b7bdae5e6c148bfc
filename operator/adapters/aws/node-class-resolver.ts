/**
 * Resolves an EC2NodeClass's subnet, security-group, AMI and capacity-reservation
 * selectors through the AWS providers.
 */
import { resolveReservations, type CapacityReservationStatus } from "../../core/capacity-reservations/reservations.ts";
import type { EC2NodeClassLike } from "../../core/launch-template/node-class.ts";
import type { NodeClassFacts, NodeClassResolver } from "../../ports/node-class-resolver.ts";
import type { AmiProvider } from "./providers/ami.ts";
import type { CapacityReservationProvider } from "./providers/capacityreservation.ts";
import type { SecurityGroupProvider } from "./providers/securitygroup.ts";
import type { SubnetProvider } from "./providers/subnet.ts";

async function attempt<T>(run: () => Promise<T[]>, errors: Record<string, string>, part: string): Promise<T[]> {
  try {
    return await run();
  } catch (error) {
    errors[part] = error instanceof Error ? error.message : String(error);
    return [];
  }
}

/** NodeClassResolver over the subnet, security-group and AMI providers. */
export class AwsNodeClassResolver implements NodeClassResolver {
  private readonly subnets: SubnetProvider;
  private readonly securityGroups: SecurityGroupProvider;
  private readonly amis: AmiProvider;
  /** Absent: the ReservedCapacity gate is off and reservations are not looked up. */
  private readonly reservations:
    { readonly provider: CapacityReservationProvider; readonly now: () => Date } | undefined;

  constructor(deps: {
    subnets: SubnetProvider;
    securityGroups: SecurityGroupProvider;
    amis: AmiProvider;
    reservations?: { readonly provider: CapacityReservationProvider; readonly now: () => Date } | undefined;
  }) {
    this.subnets = deps.subnets;
    this.securityGroups = deps.securityGroups;
    this.amis = deps.amis;
    this.reservations = deps.reservations;
  }

  async resolve(nodeClass: EC2NodeClassLike): Promise<NodeClassFacts> {
    const errors: Record<string, string> = {};
    const spec = nodeClass.spec;
    const [subnets, securityGroups, amis, capacityReservations] = await Promise.all([
      attempt(() => this.subnets.list(spec.subnetSelectorTerms), errors, "subnets"),
      attempt(() => this.securityGroups.list(spec.securityGroupSelectorTerms), errors, "securityGroups"),
      attempt(() => this.amis.list(spec.amiSelectorTerms), errors, "amis"),
      attempt(() => this.listReservations(nodeClass), errors, "capacityReservations"),
    ]);
    return {
      subnets,
      securityGroups,
      amis,
      ...(capacityReservations.length === 0 ? {} : { capacityReservations }),
      errors,
    };
  }

  private async listReservations(nodeClass: EC2NodeClassLike): Promise<CapacityReservationStatus[]> {
    const terms = nodeClass.spec.capacityReservationSelectorTerms ?? [];
    if (this.reservations === undefined || terms.length === 0) return [];
    const resolved = resolveReservations(await this.reservations.provider.list(terms), this.reservations.now());
    // Karpenter logs and skips reservations it cannot represent; kerf keeps the others too.
    return [...resolved.reservations];
  }
}

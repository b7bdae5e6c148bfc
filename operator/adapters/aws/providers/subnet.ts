/** Resolves EC2NodeClass subnetSelectorTerms to subnets (id, zone, zone id, free IPs). */
import type { SelectorTerm } from "../../../core/launch-template/node-class.ts";
import type { Ec2Api } from "../sdk.ts";
import { describeAwsError } from "../errors.ts";
import { termFilters } from "./selector-filters.ts";

/** A resolved subnet. */
export interface Subnet {
  readonly id: string;
  readonly zone: string;
  readonly zoneId?: string | undefined;
  readonly availableIpCount: number;
}

/** Subnets for selector terms; terms OR, the result sorted by free IPs (most first), then id. */
export interface SubnetProvider {
  list(terms: readonly SelectorTerm[]): Promise<Subnet[]>;
}

/** A failed Describe call while resolving selectors. */
export class SelectorResolutionError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = "SelectorResolutionError";
  }
}

/** SubnetProvider over EC2 DescribeSubnets (one call per term, available subnets only). */
export class DefaultSubnetProvider implements SubnetProvider {
  private readonly ec2: Ec2Api;

  constructor(ec2: Ec2Api) {
    this.ec2 = ec2;
  }

  async list(terms: readonly SelectorTerm[]): Promise<Subnet[]> {
    const byId = new Map<string, Subnet>();
    for (const term of terms) {
      const filters = [...termFilters(term, { id: "subnet-id" }), { Name: "state", Values: ["available"] }];
      let out;
      try {
        out = await this.ec2.describeSubnets({ Filters: filters });
      } catch (error) {
        throw new SelectorResolutionError(describeAwsError("describing subnets", error), { cause: error });
      }
      for (const s of out.Subnets ?? []) {
        if (s.SubnetId === undefined || s.AvailabilityZone === undefined) continue;
        byId.set(s.SubnetId, {
          id: s.SubnetId,
          zone: s.AvailabilityZone,
          zoneId: s.AvailabilityZoneId,
          availableIpCount: s.AvailableIpAddressCount ?? 0,
        });
      }
    }
    return [...byId.values()].sort((a, b) => b.availableIpCount - a.availableIpCount || a.id.localeCompare(b.id));
  }
}

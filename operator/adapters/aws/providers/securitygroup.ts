/** Resolves EC2NodeClass securityGroupSelectorTerms (tags, id or name) to security groups. */
import type { SelectorTerm } from "../../../core/launch-template/node-class.ts";
import type { Ec2Api } from "../sdk.ts";
import { describeAwsError } from "../errors.ts";
import { termFilters } from "./selector-filters.ts";
import { SelectorResolutionError } from "./subnet.ts";

/** A resolved security group. */
export interface SecurityGroup {
  readonly id: string;
  readonly name?: string | undefined;
}

/** Security groups for selector terms; terms OR, sorted by id. */
export interface SecurityGroupProvider {
  list(terms: readonly SelectorTerm[]): Promise<SecurityGroup[]>;
}

/** SecurityGroupProvider over EC2 DescribeSecurityGroups (one call per term). */
export class DefaultSecurityGroupProvider implements SecurityGroupProvider {
  private readonly ec2: Ec2Api;

  constructor(ec2: Ec2Api) {
    this.ec2 = ec2;
  }

  async list(terms: readonly SelectorTerm[]): Promise<SecurityGroup[]> {
    const byId = new Map<string, SecurityGroup>();
    for (const term of terms) {
      let out;
      try {
        out = await this.ec2.describeSecurityGroups({
          Filters: termFilters(term, { id: "group-id", name: "group-name" }),
        });
      } catch (error) {
        throw new SelectorResolutionError(describeAwsError("describing security groups", error), { cause: error });
      }
      for (const g of out.SecurityGroups ?? [])
        if (g.GroupId !== undefined) byId.set(g.GroupId, { id: g.GroupId, name: g.GroupName });
    }
    return [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
  }
}

/** Resolves an EC2NodeClass's subnet, security-group and AMI selectors through the AWS providers. */
import type { EC2NodeClassLike } from "../../core/launch-template/node-class.ts";
import type { NodeClassFacts, NodeClassResolver } from "../../ports/node-class-resolver.ts";
import type { AmiProvider } from "./providers/ami.ts";
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

  constructor(deps: { subnets: SubnetProvider; securityGroups: SecurityGroupProvider; amis: AmiProvider }) {
    this.subnets = deps.subnets;
    this.securityGroups = deps.securityGroups;
    this.amis = deps.amis;
  }

  async resolve(nodeClass: EC2NodeClassLike): Promise<NodeClassFacts> {
    const errors: Record<string, string> = {};
    const spec = nodeClass.spec;
    const [subnets, securityGroups, amis] = await Promise.all([
      attempt(() => this.subnets.list(spec.subnetSelectorTerms), errors, "subnets"),
      attempt(() => this.securityGroups.list(spec.securityGroupSelectorTerms), errors, "securityGroups"),
      attempt(() => this.amis.list(spec.amiSelectorTerms), errors, "amis"),
    ]);
    return { subnets, securityGroups, amis, errors };
  }
}

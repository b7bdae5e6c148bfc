/** NodeClassCloud over the instance-profile and launch-template providers (launch-template GC included). */
import type { EC2NodeClassLike } from "../../core/launch-template/node-class.ts";
import type { NodeClassNow } from "../../core/launch-template/garbage-collection.ts";
import type { InstanceProfileOutcome, LaunchTemplateCollection, NodeClassCloud } from "../../ports/node-class-cloud.ts";
import type { InstanceProfileProvider } from "./providers/instanceprofile.ts";
import type { LaunchTemplateProvider } from "./providers/launchtemplate.ts";

function failure(name: string | undefined, reason: string, message: string): InstanceProfileOutcome {
  return { ready: false, name, reason, message };
}

/** What the node class's lifecycle and the launch-template GC use of the launch-template provider. */
type NodeClassTemplates = Pick<LaunchTemplateProvider, "deleteForNodeClass" | "collect">;

/** The AWS side of an EC2NodeClass's lifecycle. */
export class AwsNodeClassCloud implements NodeClassCloud {
  private readonly instanceProfiles: InstanceProfileProvider;
  private readonly launchTemplates: NodeClassTemplates;

  constructor(deps: { instanceProfiles: InstanceProfileProvider; launchTemplates: NodeClassTemplates }) {
    this.instanceProfiles = deps.instanceProfiles;
    this.launchTemplates = deps.launchTemplates;
  }

  async reconcileInstanceProfile(nodeClass: EC2NodeClassLike): Promise<InstanceProfileOutcome> {
    const { instanceProfile, role } = nodeClass.spec;
    const name = this.instanceProfiles.profileName(nodeClass);
    try {
      if (instanceProfile !== undefined) {
        if (await this.instanceProfiles.exists(instanceProfile)) return { ready: true, name: instanceProfile };
        return failure(name, "InstanceProfileNotFound", `instance profile ${instanceProfile} does not exist`);
      }
      if (role !== undefined) return { ready: true, name: await this.instanceProfiles.ensure(nodeClass) };
      return failure(name, "InstanceProfileNotFound", "neither role nor instanceProfile is set");
    } catch (error) {
      return failure(
        name,
        instanceProfile === undefined ? "InstanceProfileCreationFailed" : "InstanceProfileNotFound",
        error instanceof Error ? error.message : String(error),
      );
    }
  }

  async deleteResources(nodeClass: EC2NodeClassLike): Promise<void> {
    const name = nodeClass.metadata.name;
    // The managed profile goes even after a switch to spec.instanceProfile, unless that names it.
    if (nodeClass.spec.instanceProfile !== this.instanceProfiles.managedName(name))
      await this.instanceProfiles.delete(name);
    await this.launchTemplates.deleteForNodeClass(name);
  }

  collectLaunchTemplates(nodeClasses: ReadonlyMap<string, NodeClassNow>): Promise<LaunchTemplateCollection> {
    return this.launchTemplates.collect(nodeClasses);
  }
}

/** The node-class cloud port: what an EC2NodeClass owns in the cloud beyond its selectors (its instance profile, its launch templates). */
import type { EC2NodeClassLike } from "../core/launch-template/node-class.ts";

/** Which instance profile the node class's instances get, and whether it is usable (exists, holds the role). */
export type InstanceProfileOutcome =
  | { readonly ready: true; readonly name: string }
  | { readonly ready: false; readonly name?: string | undefined; readonly reason: string; readonly message: string };

/** Creates, checks and deletes a node class's cloud resources. */
export interface NodeClassCloud {
  /**
   * spec.role: creates the managed profile when missing and leaves exactly that role in it;
   * spec.instanceProfile: checks the profile exists. Never throws: failures come back not ready.
   */
  reconcileInstanceProfile(nodeClass: EC2NodeClassLike): Promise<InstanceProfileOutcome>;
  /** Deletes what kerf created for a node class that is going away: its managed instance profile and its launch templates. Throws "doing X: cause". */
  deleteResources(nodeClass: EC2NodeClassLike): Promise<void>;
}

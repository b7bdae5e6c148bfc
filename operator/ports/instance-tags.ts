/** The instance-tags port: reads and adds tags of one instance (the nodeclaim.tagging controller's cloud side). */

/** Tags of cloud instances. */
export interface InstanceTags {
  /** The tags of a live instance; undefined when it is gone (terminated, or unknown to the cloud). */
  tagsOf(instanceID: string): Promise<Readonly<Record<string, string>> | undefined>;
  /** Adds (or overwrites) the tags; resolves to false when the instance is gone. */
  createTags(instanceID: string, tags: Readonly<Record<string, string>>): Promise<boolean>;
}

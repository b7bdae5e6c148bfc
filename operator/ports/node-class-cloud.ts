/**
 * The node-class cloud port: what an EC2NodeClass owns in the cloud beyond its selectors (its instance
 * profile, its launch templates).
 */
import type { NodeClassNow, TemplateDeletion } from "../core/launch-template/garbage-collection.ts";
import type { EC2NodeClassLike } from "../core/launch-template/node-class.ts";

/** Which instance profile the node class's instances get, and whether it is usable (exists, holds the role). */
export type InstanceProfileOutcome =
  | { readonly ready: true; readonly name: string }
  | { readonly ready: false; readonly name?: string | undefined; readonly reason: string; readonly message: string };

/** A launch-template deletion that failed (retried next pass). */
export interface TemplateDeletionError {
  readonly name: string;
  readonly nodeClass?: string | undefined;
  /** "deleting launch template X: cause". */
  readonly message: string;
}

/** What one launch-template collection pass found and did. */
export interface LaunchTemplateCollection {
  readonly deleted: readonly TemplateDeletion[];
  /** Superseded templates a launch asked for within the in-flight grace: deleted later. */
  readonly retiring: readonly string[];
  /** Templates still current. */
  readonly kept: readonly string[];
  /** When the next kept template becomes deletable if no launch asks for it, in ms from now. */
  readonly nextDueMs?: number | undefined;
  readonly errors: readonly TemplateDeletionError[];
}

/** Creates, checks and deletes a node class's cloud resources. */
export interface NodeClassCloud {
  /**
   * spec.role: creates the managed profile when missing and leaves exactly that role in it;
   * spec.instanceProfile: checks the profile exists. Never throws: failures come back not ready.
   */
  reconcileInstanceProfile(nodeClass: EC2NodeClassLike): Promise<InstanceProfileOutcome>;
  /**
   * Deletes what kerf created for a node class that is going away: its managed instance profile and its
   * launch templates. Throws "doing X: cause".
   */
  deleteResources(nodeClass: EC2NodeClassLike): Promise<void>;
  /**
   * Deletes the cluster's launch templates no launch can use any more (core/launch-template/garbage-collection.ts),
   * given every EC2NodeClass by name and what it resolves to now. Throws "doing X: cause" when the listing fails.
   */
  collectLaunchTemplates(nodeClasses: ReadonlyMap<string, NodeClassNow>): Promise<LaunchTemplateCollection>;
}

/**
 * Instance profiles over IAM. For an EC2NodeClass with spec.role kerf manages one profile, named and
 * tagged by core (instance-profile.ts): ensure() creates it when missing and leaves exactly the node
 * class's role in it (a different role is removed first: a profile holds at most one). What IAM
 * confirmed is cached by profile name for the TTL, so the status controller's per-minute reconcile
 * calls IAM only when the role changed or the entry expired.
 */
import {
  instanceProfilePath,
  instanceProfileTags,
  launchInstanceProfile,
  managedInstanceProfileName,
  roleNameOf,
  type ManagedProfileScope,
} from "../../../core/launch-template/instance-profile.ts";
import type { EC2NodeClassLike } from "../../../core/launch-template/node-class.ts";
import { describeAwsError, isAlreadyExists, isNotFound } from "../errors.ts";
import type { IamApi } from "../sdk.ts";
import type { Clock } from "./unavailable-offerings.ts";

/** How long an IAM answer is trusted (Karpenter's instance-profile cache TTL). */
export const INSTANCE_PROFILE_CACHE_TTL_MS = 15 * 60 * 1000;

/** A failed IAM call, phrased "doing X: cause". */
export class InstanceProfileError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = "InstanceProfileError";
  }
}

/** Instance profiles of EC2NodeClasses. */
export interface InstanceProfileProvider {
  /**
   * The profile instances of this node class launch with (no I/O): spec.instanceProfile, or
   * the managed one for spec.role.
   */
  profileName(nodeClass: EC2NodeClassLike): string | undefined;
  /** The managed profile's name for a node class (no I/O). */
  managedName(nodeClassName: string): string;
  /** Creates the managed profile if missing and attaches spec.role; returns its name. Throws InstanceProfileError. */
  ensure(nodeClass: EC2NodeClassLike): Promise<string>;
  /** Whether a profile of this name exists. Throws InstanceProfileError for anything but "not found". */
  exists(name: string): Promise<boolean>;
  /**
   * Removes the role from and deletes the managed profile of a node class; false when there was
   * none. Throws InstanceProfileError.
   */
  delete(nodeClassName: string): Promise<boolean>;
}

async function iam<T>(doing: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new InstanceProfileError(describeAwsError(doing, error), { cause: error });
  }
}

async function ignoringNotFound(doing: string, run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (!isNotFound(error)) throw new InstanceProfileError(describeAwsError(doing, error), { cause: error });
  }
}

/** InstanceProfileProvider over IAM, with an in-memory name → (role, confirmed at) cache. */
export class DefaultInstanceProfileProvider implements InstanceProfileProvider {
  private readonly iam: IamApi;
  private readonly clusterName: string;
  private readonly region: string;
  private readonly clock: Clock;
  private readonly ttlMs: number;
  private readonly cache = new Map<string, { role: string | undefined; at: number }>();

  constructor(options: { iam: IamApi; clusterName: string; region: string; clock: Clock; ttlMs?: number }) {
    this.iam = options.iam;
    this.clusterName = options.clusterName;
    this.region = options.region;
    this.clock = options.clock;
    this.ttlMs = options.ttlMs ?? INSTANCE_PROFILE_CACHE_TTL_MS;
  }

  profileName(nodeClass: EC2NodeClassLike): string | undefined {
    return launchInstanceProfile(nodeClass.spec, this.managedName(nodeClass.metadata.name));
  }

  managedName(nodeClassName: string): string {
    return managedInstanceProfileName(this.scope(nodeClassName));
  }

  async ensure(nodeClass: EC2NodeClassLike): Promise<string> {
    const role = nodeClass.spec.role;
    if (role === undefined)
      throw new InstanceProfileError(
        `ensuring the instance profile of EC2NodeClass ${nodeClass.metadata.name}: spec.role is not set`,
      );
    const name = this.managedName(nodeClass.metadata.name);
    const roleName = roleNameOf(role);
    if (this.confirmed(name)?.role === roleName) return name;
    const roles = (await this.get(name)) ?? (await this.create(nodeClass, name));
    await this.attach(name, roles, roleName);
    this.remember(name, roleName);
    return name;
  }

  async exists(name: string): Promise<boolean> {
    if (this.confirmed(name) !== undefined) return true;
    const roles = await this.get(name);
    if (roles !== undefined) this.remember(name, roles[0]);
    return roles !== undefined;
  }

  async delete(nodeClassName: string): Promise<boolean> {
    const name = this.managedName(nodeClassName);
    this.cache.delete(name);
    const roles = await this.get(name);
    if (roles === undefined) return false;
    for (const role of roles) {
      await ignoringNotFound(`removing role ${role} from instance profile ${name}`, () =>
        this.iam.removeRoleFromInstanceProfile({ InstanceProfileName: name, RoleName: role }),
      );
    }
    await ignoringNotFound(`deleting instance profile ${name}`, () =>
      this.iam.deleteInstanceProfile({ InstanceProfileName: name }),
    );
    return true;
  }

  private scope(nodeClassName: string): ManagedProfileScope {
    return { clusterName: this.clusterName, region: this.region, nodeClassName };
  }

  private confirmed(name: string): { role: string | undefined } | undefined {
    const entry = this.cache.get(name);
    return entry !== undefined && this.clock.now().getTime() - entry.at < this.ttlMs ? entry : undefined;
  }

  private remember(name: string, role: string | undefined): void {
    this.cache.set(name, { role, at: this.clock.now().getTime() });
  }

  /** The roles in the profile; undefined when it does not exist. */
  private async get(name: string): Promise<string[] | undefined> {
    try {
      const out = await this.iam.getInstanceProfile({ InstanceProfileName: name });
      return (out.InstanceProfile?.Roles ?? []).map((r) => r.RoleName ?? "");
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw new InstanceProfileError(describeAwsError(`getting instance profile ${name}`, error), { cause: error });
    }
  }

  /** Creates the profile; returns its roles (none, unless another writer won the race and added one). */
  private async create(nodeClass: EC2NodeClassLike, name: string): Promise<string[]> {
    const scope = this.scope(nodeClass.metadata.name);
    const tags = instanceProfileTags(scope, nodeClass.spec.tags);
    try {
      await this.iam.createInstanceProfile({
        InstanceProfileName: name,
        Path: instanceProfilePath(scope, nodeClass.metadata.uid),
        Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
      });
      return [];
    } catch (error) {
      // Another replica (or a run before a restart) created it first: use that one.
      const existing = isAlreadyExists(error) ? await this.get(name) : undefined;
      if (existing !== undefined) return existing;
      throw new InstanceProfileError(describeAwsError(`creating instance profile ${name}`, error), { cause: error });
    }
  }

  private async attach(name: string, current: readonly string[], roleName: string): Promise<void> {
    if (current.includes(roleName)) return;
    for (const other of current) {
      await ignoringNotFound(`removing role ${other} from instance profile ${name}`, () =>
        this.iam.removeRoleFromInstanceProfile({ InstanceProfileName: name, RoleName: other }),
      );
    }
    await iam(`adding role ${roleName} to instance profile ${name}`, () =>
      this.iam.addRoleToInstanceProfile({ InstanceProfileName: name, RoleName: roleName }),
    );
  }
}

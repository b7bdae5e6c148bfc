/**
 * Launch templates by content: ensure() creates `karpenter.k8s.aws/<hash>` once and reuses it for
 * equal content; templates unused for the TTL (or whose EC2NodeClass is gone) are deleted.
 */
import type { LaunchTemplate, RequestLaunchTemplateData } from "@aws-sdk/client-ec2";
import type { LaunchTemplateSpec } from "../../../core/launch-template/template.ts";
import { describeAwsError, isAlreadyExists, isNotFound } from "../errors.ts";
import type { Ec2Api } from "../sdk.ts";
import { tagRecord } from "./selector-filters.ts";
import type { Clock } from "./unavailable-offerings.ts";

/** How long a template may go unused before collectUnused deletes it (Karpenter's cache TTL). */
export const LAUNCH_TEMPLATE_TTL_MS = 5 * 60 * 1000;

/** Tag marking the cluster that owns a launch template. */
export const CLUSTER_TAG = "karpenter.k8s.aws/cluster";

/** A launch template kerf can reference in CreateFleet. */
export interface ResolvedLaunchTemplate {
  readonly id: string;
  readonly name: string;
}

/** Launch templates by content. */
export interface LaunchTemplateProvider {
  /** Returns the template for this content, creating it on first use. Throws LaunchTemplateError. */
  ensure(spec: LaunchTemplateSpec, nodeClassName: string): Promise<ResolvedLaunchTemplate>;
  /** Forgets a cached template (CreateFleet said it no longer exists). */
  invalidate(name: string): void;
  /** Deletes this cluster's templates not used within the TTL; returns the deleted names. */
  collectUnused(): Promise<string[]>;
  /** Deletes every template of an EC2NodeClass (it is being deleted); returns the deleted names. */
  deleteForNodeClass(nodeClassName: string): Promise<string[]>;
}

/** A failed launch-template call. */
export class LaunchTemplateError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = "LaunchTemplateError";
  }
}

/** The SDK shape of launch-template content. */
export function toLaunchTemplateData(spec: LaunchTemplateSpec): RequestLaunchTemplateData {
  const nic = spec.associatePublicIPAddress !== undefined;
  return {
    ImageId: spec.imageId,
    UserData: Buffer.from(spec.userData, "utf8").toString("base64"),
    ...(nic ? { NetworkInterfaces: [{ DeviceIndex: 0, AssociatePublicIpAddress: spec.associatePublicIPAddress, Groups: [...spec.securityGroupIds] }] } : { SecurityGroupIds: [...spec.securityGroupIds] }),
    ...(spec.instanceProfile === undefined ? {} : { IamInstanceProfile: { Name: spec.instanceProfile } }),
    BlockDeviceMappings: spec.blockDeviceMappings.map((d) => ({
      DeviceName: d.deviceName,
      Ebs: { VolumeSize: d.ebs.volumeSizeGiB, VolumeType: d.ebs.volumeType as "gp3", Encrypted: d.ebs.encrypted, DeleteOnTermination: d.ebs.deleteOnTermination, Iops: d.ebs.iops, Throughput: d.ebs.throughput, KmsKeyId: d.ebs.kmsKeyId, SnapshotId: d.ebs.snapshotId },
    })),
    MetadataOptions: {
      HttpEndpoint: spec.metadataOptions.httpEndpoint as "enabled", HttpProtocolIpv6: spec.metadataOptions.httpProtocolIPv6 as "disabled",
      HttpPutResponseHopLimit: spec.metadataOptions.httpPutResponseHopLimit, HttpTokens: spec.metadataOptions.httpTokens as "required",
    },
    Monitoring: { Enabled: spec.detailedMonitoring },
  };
}

/** LaunchTemplateProvider over EC2, with an in-memory name → (id, last use) cache. */
export class DefaultLaunchTemplateProvider implements LaunchTemplateProvider {
  private readonly ec2: Ec2Api;
  private readonly clusterName: string;
  private readonly clock: Clock;
  private readonly ttlMs: number;
  private readonly cache = new Map<string, { id: string; lastUsed: number }>();

  constructor(options: { ec2: Ec2Api; clusterName: string; clock: Clock; ttlMs?: number }) {
    this.ec2 = options.ec2;
    this.clusterName = options.clusterName;
    this.clock = options.clock;
    this.ttlMs = options.ttlMs ?? LAUNCH_TEMPLATE_TTL_MS;
  }

  async ensure(spec: LaunchTemplateSpec, nodeClassName: string): Promise<ResolvedLaunchTemplate> {
    const now = this.clock.now().getTime();
    const cached = this.cache.get(spec.name);
    if (cached !== undefined) {
      cached.lastUsed = now;
      return { id: cached.id, name: spec.name };
    }
    const id = (await this.findByName(spec.name)) ?? (await this.create(spec, nodeClassName));
    this.cache.set(spec.name, { id, lastUsed: now });
    return { id, name: spec.name };
  }

  invalidate(name: string): void {
    this.cache.delete(name);
  }

  async collectUnused(): Promise<string[]> {
    const now = this.clock.now().getTime();
    const stale: LaunchTemplate[] = [];
    for (const lt of await this.owned([])) {
      const name = lt.LaunchTemplateName ?? "";
      const entry = this.cache.get(name) ?? { id: lt.LaunchTemplateId ?? "", lastUsed: now };
      // Templates found after a restart start their TTL now: they may still be in use.
      this.cache.set(name, entry);
      if (now - entry.lastUsed >= this.ttlMs) stale.push(lt);
    }
    return this.deleteAll(stale);
  }

  async deleteForNodeClass(nodeClassName: string): Promise<string[]> {
    return this.deleteAll(await this.owned([{ Name: "tag:karpenter.k8s.aws/ec2nodeclass", Values: [nodeClassName] }]));
  }

  private async owned(extra: { Name: string; Values: string[] }[]): Promise<LaunchTemplate[]> {
    try {
      const out = await this.ec2.describeLaunchTemplates({ Filters: [{ Name: `tag:${CLUSTER_TAG}`, Values: [this.clusterName] }, ...extra] });
      return out.LaunchTemplates ?? [];
    } catch (error) {
      throw new LaunchTemplateError(describeAwsError("listing launch templates", error), { cause: error });
    }
  }

  private async deleteAll(templates: readonly LaunchTemplate[]): Promise<string[]> {
    const deleted: string[] = [];
    for (const lt of templates) {
      const name = lt.LaunchTemplateName ?? "";
      try {
        await this.ec2.deleteLaunchTemplate({ LaunchTemplateId: lt.LaunchTemplateId });
      } catch (error) {
        if (!isNotFound(error)) throw new LaunchTemplateError(describeAwsError(`deleting launch template ${name}`, error), { cause: error });
      }
      this.cache.delete(name);
      deleted.push(name);
    }
    return deleted;
  }

  private async findByName(name: string): Promise<string | undefined> {
    try {
      const out = await this.ec2.describeLaunchTemplates({ Filters: [{ Name: "launch-template-name", Values: [name] }] });
      return out.LaunchTemplates?.find((lt) => lt.LaunchTemplateName === name)?.LaunchTemplateId;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw new LaunchTemplateError(describeAwsError(`describing launch template ${name}`, error), { cause: error });
    }
  }

  private async create(spec: LaunchTemplateSpec, nodeClassName: string): Promise<string> {
    const tags = { [CLUSTER_TAG]: this.clusterName, [`kubernetes.io/cluster/${this.clusterName}`]: "owned", "karpenter.k8s.aws/ec2nodeclass": nodeClassName };
    try {
      const out = await this.ec2.createLaunchTemplate({
        LaunchTemplateName: spec.name,
        LaunchTemplateData: toLaunchTemplateData(spec),
        TagSpecifications: [{ ResourceType: "launch-template", Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) }],
      });
      return out.LaunchTemplate?.LaunchTemplateId ?? "";
    } catch (error) {
      // Another replica (or a run before a restart) created it first: use that one.
      const existing = isAlreadyExists(error) ? await this.findByName(spec.name) : undefined;
      if (existing !== undefined) return existing;
      throw new LaunchTemplateError(describeAwsError(`creating launch template ${spec.name}`, error), { cause: error });
    }
  }
}

/** Tags of a described template, for tests and diagnostics. */
export function templateTags(lt: LaunchTemplate): Record<string, string> {
  return tagRecord(lt.Tags);
}

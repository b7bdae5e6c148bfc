/**
 * Launch templates by content: ensure() creates `karpenter.k8s.aws/<hash>` once and reuses it for equal
 * content, tagged with the cluster, the EC2NodeClass and what it was made from (AMI, security groups,
 * node-class inputs). collect() deletes the cluster's templates no launch can use any more (superseded,
 * after the in-flight grace) or none used within the TTL (core/launch-template/garbage-collection.ts);
 * deleteForNodeClass() deletes a deleted EC2NodeClass's templates. The only state in memory is when each
 * template was last asked for: after a restart every template starts as just used, so a kill at any point
 * delays a deletion by at most the TTL and never deletes one a launch is about to use.
 */
import type { LaunchTemplate, RequestLaunchTemplateData } from "@aws-sdk/client-ec2";
import {
  LAUNCH_TEMPLATE_TTL_MS,
  NODE_CLASS_TAG,
  nodeClassInputsHash,
  originOf,
  originTags,
  planTemplateCollection,
  securityGroupsKey,
  type NodeClassNow,
  type OwnedTemplate,
  type TemplateDeletion,
} from "../../../core/launch-template/garbage-collection.ts";
import type { EC2NodeClassLike } from "../../../core/launch-template/node-class.ts";
import type { LaunchTemplateCollection, TemplateDeletionError } from "../../../ports/node-class-cloud.ts";
import type { LaunchTemplateSpec } from "../../../core/launch-template/template.ts";
import { describeAwsError, isAlreadyExists, isNotFound } from "../errors.ts";
import type { Ec2Api } from "../sdk.ts";
import { tagRecord } from "./selector-filters.ts";
import type { Clock } from "./unavailable-offerings.ts";

export { LAUNCH_TEMPLATE_TTL_MS } from "../../../core/launch-template/garbage-collection.ts";
export type { LaunchTemplateCollection } from "../../../ports/node-class-cloud.ts";

/** Tag marking the cluster that owns a launch template. */
export const CLUSTER_TAG = "karpenter.k8s.aws/cluster";

const EKS_CLUSTER_TAG = "eks:eks-cluster-name";
const NODE_POOL_TAG = "karpenter.sh/nodepool";

/** A launch template kerf can reference in CreateFleet. */
export interface ResolvedLaunchTemplate {
  readonly id: string;
  readonly name: string;
}

/** Launch templates by content. */
export interface LaunchTemplateProvider {
  /**
   * Returns the template for this content, creating it on first use. `nodePool`: the NodeClaim's NodePool,
   * whose label is part of the content; it is tagged, as Karpenter's controller IAM policy requires
   * `karpenter.sh/nodepool` on CreateLaunchTemplate and DeleteLaunchTemplate. Throws LaunchTemplateError.
   */
  ensure(spec: LaunchTemplateSpec, nodeClass: EC2NodeClassLike, nodePool?: string): Promise<ResolvedLaunchTemplate>;
  /** Forgets a cached template (CreateFleet said it no longer exists). */
  invalidate(name: string): void;
  /**
   * One level-based pass over this cluster's templates: deletes the superseded ones no launch asked for
   * within the grace and any no launch asked for within the TTL. `nodeClasses`: every EC2NodeClass by name
   * with what it resolves to now; without it only the TTL counts. Throws LaunchTemplateError when the
   * listing fails; a failed deletion lands in `errors`.
   */
  collect(nodeClasses?: ReadonlyMap<string, NodeClassNow>): Promise<LaunchTemplateCollection>;
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
  const nics = spec.networkInterfaces?.map((n) => ({
    DeviceIndex: n.deviceIndex,
    NetworkCardIndex: n.networkCardIndex,
    InterfaceType: n.interfaceType,
    Groups: [...n.groups],
    AssociatePublicIpAddress: n.associatePublicIPAddress,
    PrimaryIpv6: n.primaryIpv6,
    Ipv6AddressCount: n.ipv6AddressCount,
  }));
  return {
    ImageId: spec.imageId,
    UserData: Buffer.from(spec.userData, "utf8").toString("base64"),
    ...(nics === undefined ? { SecurityGroupIds: [...spec.securityGroupIds] } : { NetworkInterfaces: nics }),
    ...(spec.instanceProfile === undefined ? {} : { IamInstanceProfile: { Name: spec.instanceProfile } }),
    BlockDeviceMappings: spec.blockDeviceMappings.map((d) => ({
      DeviceName: d.deviceName,
      Ebs: {
        VolumeSize: d.ebs.volumeSizeGiB,
        VolumeType: d.ebs.volumeType as "gp3",
        Encrypted: d.ebs.encrypted,
        DeleteOnTermination: d.ebs.deleteOnTermination,
        Iops: d.ebs.iops,
        Throughput: d.ebs.throughput,
        KmsKeyId: d.ebs.kmsKeyId,
        SnapshotId: d.ebs.snapshotId,
      },
    })),
    MetadataOptions: {
      HttpEndpoint: spec.metadataOptions.httpEndpoint as "enabled",
      HttpProtocolIpv6: spec.metadataOptions.httpProtocolIPv6 as "disabled",
      HttpPutResponseHopLimit: spec.metadataOptions.httpPutResponseHopLimit,
      HttpTokens: spec.metadataOptions.httpTokens as "required",
    },
    Monitoring: { Enabled: spec.detailedMonitoring },
    ...reservationTarget(spec.capacityReservation),
  };
}

/**
 * A reserved launch's template (Karpenter's targeted launch mode): only into the one reservation, and in the
 * capacity-block or interruptible-reservation market when the reservation is one.
 */
function reservationTarget(
  r: LaunchTemplateSpec["capacityReservation"],
): Pick<RequestLaunchTemplateData, "CapacityReservationSpecification" | "InstanceMarketOptions"> {
  if (r === undefined) return {};
  const market =
    r.type === "capacity-block" ? "capacity-block" : r.interruptible ? "interruptible-capacity-reservation" : undefined;
  return {
    CapacityReservationSpecification: {
      CapacityReservationPreference: "capacity-reservations-only",
      CapacityReservationTarget: { CapacityReservationId: r.id },
    },
    ...(market === undefined ? {} : { InstanceMarketOptions: { MarketType: market } }),
  };
}

/** LaunchTemplateProvider over EC2, with an in-memory name → (id, last use) cache. */
export class DefaultLaunchTemplateProvider implements LaunchTemplateProvider {
  private readonly ec2: Ec2Api;
  private readonly clusterName: string;
  private readonly clock: Clock;
  private readonly ttlMs: number;
  private readonly graceMs: number | undefined;
  private readonly cache = new Map<string, { id: string; lastUsed: number }>();

  constructor(options: { ec2: Ec2Api; clusterName: string; clock: Clock; ttlMs?: number; graceMs?: number }) {
    this.ec2 = options.ec2;
    this.clusterName = options.clusterName;
    this.clock = options.clock;
    this.ttlMs = options.ttlMs ?? LAUNCH_TEMPLATE_TTL_MS;
    this.graceMs = options.graceMs;
  }

  async ensure(
    spec: LaunchTemplateSpec,
    nodeClass: EC2NodeClassLike,
    nodePool?: string,
  ): Promise<ResolvedLaunchTemplate> {
    const now = this.clock.now().getTime();
    const cached = this.cache.get(spec.name);
    if (cached !== undefined) {
      cached.lastUsed = now;
      return { id: cached.id, name: spec.name };
    }
    // Not cached (first use, or after a restart): a collection pass listing it meanwhile counts it as just used.
    const id = (await this.findByName(spec.name)) ?? (await this.create(spec, nodeClass, nodePool));
    this.cache.set(spec.name, { id, lastUsed: this.clock.now().getTime() });
    return { id, name: spec.name };
  }

  invalidate(name: string): void {
    this.cache.delete(name);
  }

  async collect(nodeClasses?: ReadonlyMap<string, NodeClassNow>): Promise<LaunchTemplateCollection> {
    const listedAt = this.clock.now().getTime();
    const listed = await this.owned([]);
    const now = this.clock.now().getTime();
    const templates: OwnedTemplate[] = listed.map(ownedTemplate);
    this.remember(templates, listedAt, now);
    const lastUsed = new Map(templates.map((t) => [t.name, this.cache.get(t.name)?.lastUsed ?? now]));
    const plan = planTemplateCollection({
      templates,
      nodeClasses,
      lastUsed,
      now,
      ttlMs: this.ttlMs,
      graceMs: this.graceMs,
    });
    const deleted: TemplateDeletion[] = [];
    const errors: TemplateDeletionError[] = [];
    for (const d of plan.delete) {
      // A launch asked for it after the plan was made: keep it (judged again next pass).
      if ((this.cache.get(d.name)?.lastUsed ?? now) !== lastUsed.get(d.name)) continue;
      const failure = await this.deleteOne(d.id, d.name);
      if (failure === undefined) deleted.push(d);
      else errors.push({ name: d.name, nodeClass: d.nodeClass, message: failure.message });
    }
    return { deleted, retiring: plan.retiring, kept: plan.kept, nextDueMs: plan.nextDueMs, errors };
  }

  async deleteForNodeClass(nodeClassName: string): Promise<string[]> {
    const deleted: string[] = [];
    for (const lt of await this.owned([{ Name: `tag:${NODE_CLASS_TAG}`, Values: [nodeClassName] }])) {
      const name = lt.LaunchTemplateName ?? "";
      const failure = await this.deleteOne(lt.LaunchTemplateId ?? "", name);
      if (failure !== undefined) throw failure;
      deleted.push(name);
    }
    return deleted;
  }

  /**
   * Templates listed for the first time start as used now (a launch may be using them); cached ones that
   * are no longer listed and were not asked for since the listing began were deleted elsewhere: forgotten.
   */
  private remember(templates: readonly OwnedTemplate[], listedAt: number, now: number): void {
    const names = new Set(templates.map((t) => t.name));
    for (const t of templates) if (!this.cache.has(t.name)) this.cache.set(t.name, { id: t.id, lastUsed: now });
    for (const [name, entry] of this.cache) if (!names.has(name) && entry.lastUsed < listedAt) this.cache.delete(name);
  }

  /** All of this cluster's templates, every page. */
  private async owned(extra: { Name: string; Values: string[] }[]): Promise<LaunchTemplate[]> {
    const all: LaunchTemplate[] = [];
    let token: string | undefined;
    try {
      do {
        const out = await this.ec2.describeLaunchTemplates({
          Filters: [{ Name: `tag:${CLUSTER_TAG}`, Values: [this.clusterName] }, ...extra],
          MaxResults: 200,
          ...(token === undefined ? {} : { NextToken: token }),
        });
        all.push(...(out.LaunchTemplates ?? []));
        token = out.NextToken === "" ? undefined : out.NextToken;
      } while (token !== undefined);
    } catch (error) {
      throw new LaunchTemplateError(describeAwsError("listing launch templates", error), { cause: error });
    }
    return all;
  }

  /** Deletes by id (never a newer template re-created under the same name); gone already counts as deleted. */
  private async deleteOne(id: string, name: string): Promise<LaunchTemplateError | undefined> {
    try {
      await this.ec2.deleteLaunchTemplate({ LaunchTemplateId: id });
    } catch (error) {
      if (!isNotFound(error)) {
        return new LaunchTemplateError(describeAwsError(`deleting launch template ${name}`, error), { cause: error });
      }
    }
    if (this.cache.get(name)?.id === id) this.cache.delete(name);
    return undefined;
  }

  private async findByName(name: string): Promise<string | undefined> {
    try {
      const filter = { Name: "launch-template-name", Values: [name] };
      const out = await this.ec2.describeLaunchTemplates({ Filters: [filter] });
      return out.LaunchTemplates?.find((lt) => lt.LaunchTemplateName === name)?.LaunchTemplateId;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw new LaunchTemplateError(describeAwsError(`describing launch template ${name}`, error), { cause: error });
    }
  }

  private async create(
    spec: LaunchTemplateSpec,
    nodeClass: EC2NodeClassLike,
    nodePool: string | undefined,
  ): Promise<string> {
    const origin = {
      imageId: spec.imageId,
      securityGroups: securityGroupsKey(spec.securityGroupIds),
      nodeClassInputs: nodeClassInputsHash(nodeClass.spec),
    };
    // The node class's spec.tags first: the keys kerf sets are reserved (the CRD forbids them in spec.tags).
    const tags = {
      ...(nodeClass.spec.tags ?? {}),
      [CLUSTER_TAG]: this.clusterName,
      [`kubernetes.io/cluster/${this.clusterName}`]: "owned",
      [EKS_CLUSTER_TAG]: this.clusterName,
      [NODE_CLASS_TAG]: nodeClass.metadata.name,
      ...(nodePool === undefined ? {} : { [NODE_POOL_TAG]: nodePool }),
      ...originTags(origin),
    };
    try {
      const out = await this.ec2.createLaunchTemplate({
        LaunchTemplateName: spec.name,
        LaunchTemplateData: toLaunchTemplateData(spec),
        TagSpecifications: [
          {
            ResourceType: "launch-template",
            Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
          },
        ],
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

/** A listed template with what its tags say. */
function ownedTemplate(lt: LaunchTemplate): OwnedTemplate {
  const tags = tagRecord(lt.Tags);
  return {
    id: lt.LaunchTemplateId ?? "",
    name: lt.LaunchTemplateName ?? "",
    nodeClass: tags[NODE_CLASS_TAG],
    origin: originOf(tags),
  };
}

/** Tags of a described template, for tests and diagnostics. */
export function templateTags(lt: LaunchTemplate): Record<string, string> {
  return tagRecord(lt.Tags);
}

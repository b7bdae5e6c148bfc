/**
 * Which of the cluster's launch templates to delete (pure; time comes in as `now`).
 *
 * Templates are named by content, so every AMI release and every security-group, user-data or kubelet
 * change makes new ones and leaves the old ones behind (EC2 allows 5,000 per region). A template goes:
 *  - superseded: no current resolution of its EC2NodeClass would produce it any more (the node class is
 *    gone, its AMI or security groups are no longer the resolved ones, or the node-class fields baked into
 *    it changed), and no launch has used it for the in-flight grace; or
 *  - idle: no launch has used it for the TTL (Karpenter's cache eviction). This also covers what the tags
 *    cannot tell (a NodePool label or taint change: only the NodeClaim carries those) and templates made
 *    by Karpenter or an older kerf, which carry no origin tags.
 * Contract for the caller: `lastUsed` holds, per template name, the last time a launch asked for it, or
 * the first time this process listed it (after a restart a launch of the previous leader may still be in
 * flight, so an unknown template is never "old"). A launch that still meets a deleted template recovers:
 * CreateFleet answers LaunchTemplateNotFound and the launch re-creates it and retries once.
 */
import { contentHash } from "./hash.ts";
import { amiFamilyOf, type EC2NodeClassSpec } from "./node-class.ts";

/** A template no launch asked for within this long is deleted (Karpenter's cache TTL as kerf has it). */
export const LAUNCH_TEMPLATE_TTL_MS = 5 * 60_000;

/**
 * A superseded template is deleted once no launch asked for it for this long: longer than any launch
 * takes from ensuring its template to CreateFleet's answer, so a CreateFleet in flight keeps its template.
 */
export const LAUNCH_TEMPLATE_IN_FLIGHT_GRACE_MS = 2 * 60_000;

/** Tags recording what a template was made from (kerf's; templates without them are judged by idleness only). */
export const OriginTag = {
  imageId: "kerf.dev/image-id",
  securityGroups: "kerf.dev/security-groups-hash",
  nodeClassInputs: "kerf.dev/ec2nodeclass-inputs-hash",
} as const;

/** Tag naming the EC2NodeClass a template was made for (Karpenter's). */
export const NODE_CLASS_TAG = "karpenter.k8s.aws/ec2nodeclass";

/** What a template was made from. */
export interface TemplateOrigin {
  readonly imageId: string;
  /** securityGroupsKey of its security groups. */
  readonly securityGroups: string;
  /** nodeClassInputsHash of the node class spec it was made from. */
  readonly nodeClassInputs: string;
}

/** Order-free key of a security-group set (a tag value holds at most 256 characters: a hash, not the list). */
export function securityGroupsKey(ids: readonly string[]): string {
  return contentHash([...ids].sort());
}

/**
 * Hash of the EC2NodeClass fields a template's content depends on besides the AMI and security groups:
 * AMI family, user data, kubelet, block devices, IMDS, monitoring, public IP, role / instance profile.
 * Selector terms and tags are left out: they change no template content.
 */
export function nodeClassInputsHash(spec: EC2NodeClassSpec): string {
  return contentHash({
    family: amiFamilyOf(spec),
    userData: spec.userData,
    kubelet: spec.kubelet,
    blockDeviceMappings: spec.blockDeviceMappings,
    metadataOptions: spec.metadataOptions,
    detailedMonitoring: spec.detailedMonitoring,
    associatePublicIPAddress: spec.associatePublicIPAddress,
    role: spec.role,
    instanceProfile: spec.instanceProfile,
  });
}

/** The origin tags of a new template. */
export function originTags(origin: TemplateOrigin): Record<string, string> {
  return {
    [OriginTag.imageId]: origin.imageId,
    [OriginTag.securityGroups]: origin.securityGroups,
    [OriginTag.nodeClassInputs]: origin.nodeClassInputs,
  };
}

/** The origin of a listed template from its tags; undefined when any origin tag is missing. */
export function originOf(tags: Readonly<Record<string, string>>): TemplateOrigin | undefined {
  const imageId = tags[OriginTag.imageId];
  const securityGroups = tags[OriginTag.securityGroups];
  const nodeClassInputs = tags[OriginTag.nodeClassInputs];
  if (imageId === undefined || securityGroups === undefined || nodeClassInputs === undefined) return undefined;
  return { imageId, securityGroups, nodeClassInputs };
}

/** One of the cluster's templates as listed. */
export interface OwnedTemplate {
  readonly id: string;
  readonly name: string;
  readonly nodeClass?: string | undefined;
  readonly origin?: TemplateOrigin | undefined;
}

/** What an existing EC2NodeClass would make now; no `current` when its AMIs or security groups do not resolve. */
export interface NodeClassNow {
  readonly current?:
    | {
        readonly imageIds: ReadonlySet<string>;
        readonly securityGroups: string;
        readonly nodeClassInputs: string;
      }
    | undefined;
}

/** Why a template is deleted. */
export type TemplateDeletionReason =
  "node-class-gone" | "ami-superseded" | "security-groups-superseded" | "node-class-changed" | "idle";

/** A template to delete. */
export interface TemplateDeletion {
  readonly id: string;
  readonly name: string;
  readonly nodeClass?: string | undefined;
  readonly reason: TemplateDeletionReason;
  /** How long no launch has asked for it. */
  readonly idleMs: number;
}

/** The inputs of one decision. */
export interface CollectionInput {
  readonly templates: readonly OwnedTemplate[];
  /**
   * Every EC2NodeClass of the cluster by name (deleting ones too). Undefined: the node classes are not
   * known, so nothing is judged superseded and only idleness counts.
   */
  readonly nodeClasses?: ReadonlyMap<string, NodeClassNow> | undefined;
  /** Last use (or first sighting) per template name, in ms; a template missing here counts as used now. */
  readonly lastUsed: ReadonlyMap<string, number>;
  readonly now: number;
  readonly ttlMs?: number | undefined;
  readonly graceMs?: number | undefined;
}

/** The decision. */
export interface CollectionPlan {
  readonly delete: readonly TemplateDeletion[];
  /** Superseded templates kept because a launch asked for one within the grace. */
  readonly retiring: readonly string[];
  /** Templates kept as current (used within the TTL, content still producible or not judged). */
  readonly kept: readonly string[];
  /** In ms from now: when the first kept template becomes deletable if no launch asks for it (none kept: undefined). */
  readonly nextDueMs?: number | undefined;
}

/** Why the content of a template can no longer be produced, or undefined when it still may be. */
export function supersededBy(
  template: OwnedTemplate,
  nodeClasses: ReadonlyMap<string, NodeClassNow> | undefined,
): TemplateDeletionReason | undefined {
  if (nodeClasses === undefined || template.nodeClass === undefined) return undefined;
  const nodeClass = nodeClasses.get(template.nodeClass);
  if (nodeClass === undefined) return "node-class-gone";
  const now = nodeClass.current;
  const origin = template.origin;
  // A node class that does not resolve now (an AWS error, selectors matching nothing) supersedes nothing.
  if (now === undefined || origin === undefined) return undefined;
  if (!now.imageIds.has(origin.imageId)) return "ami-superseded";
  if (now.securityGroups !== origin.securityGroups) return "security-groups-superseded";
  if (now.nodeClassInputs !== origin.nodeClassInputs) return "node-class-changed";
  return undefined;
}

/** Decides which templates to delete now and when to look again. */
export function planTemplateCollection(input: CollectionInput): CollectionPlan {
  const ttl = input.ttlMs ?? LAUNCH_TEMPLATE_TTL_MS;
  const grace = Math.min(input.graceMs ?? LAUNCH_TEMPLATE_IN_FLIGHT_GRACE_MS, ttl);
  const deletions: TemplateDeletion[] = [];
  const retiring: string[] = [];
  const kept: string[] = [];
  let nextDueMs: number | undefined;
  for (const t of input.templates) {
    const idleMs = Math.max(0, input.now - (input.lastUsed.get(t.name) ?? input.now));
    const superseded = supersededBy(t, input.nodeClasses);
    const limit = superseded === undefined ? ttl : grace;
    if (idleMs >= limit) {
      deletions.push({ id: t.id, name: t.name, nodeClass: t.nodeClass, reason: superseded ?? "idle", idleMs });
      continue;
    }
    (superseded === undefined ? kept : retiring).push(t.name);
    nextDueMs = Math.min(nextDueMs ?? Infinity, limit - idleMs);
  }
  return { delete: deletions, retiring, kept, ...(nextDueMs === undefined ? {} : { nextDueMs }) };
}

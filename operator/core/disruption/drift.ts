/**
 * Drift reasons for one NodeClaim (behaviour §4.10), cheapest check first: the NodePool's static
 * hash (NodePoolDrifted), its requirements against the NodeClaim's labels (RequirementsDrifted), its
 * instance type and offering against the pool's types (InstanceTypeNotFound), the EC2NodeClass static
 * hash (NodeClassDrift), the image against the AMI the class now maps its instance type to
 * (AMIDrift), and — with the instance at hand — its security groups, subnet and capacity reservation
 * (SecurityGroupDrift, SubnetDrift, CapacityReservationDrift). A hash is compared only when the
 * NodeClaim carries kerf's hash version; another version (Karpenter's, or an older kerf's)
 * means "re-stamp", never "drifted".
 */
import { Requirements, type NodeSelectorRequirement } from "../../../policies/domain/requirements.ts";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { Label } from "../../../policies/domain/labels.ts";
import type { NodeClaim } from "../lifecycle/objects.ts";
import { timeMs } from "../lifecycle/objects.ts";
import { NodePoolHash, nodePoolHash } from "../nodepool/hash.ts";
import { NodeClassHash, nodeClassHash } from "./nodeclass-hash.ts";

type Obj = Readonly<Record<string, unknown>>;

export interface DriftObject {
  readonly metadata?: { readonly annotations?: Readonly<Record<string, string>> | undefined } | undefined;
  readonly spec?: Obj | undefined;
  readonly status?: Obj | undefined;
}

/** What the cloud says of the running instance (absent: those checks are skipped). */
export interface InstanceNetwork {
  readonly securityGroupIDs: readonly string[];
  readonly subnetID: string;
  /** The capacity reservation the instance runs in as reserved capacity (absent: spot or on-demand). */
  readonly capacityReservationID?: string | undefined;
}

export interface DriftInput {
  readonly nodeClaim: NodeClaim;
  readonly nodePool: DriftObject;
  readonly nodeClass?: DriftObject | undefined;
  readonly instance?: InstanceNetwork | undefined;
  /**
   * The NodePool's instance types with every offering, available or not (absent: InstanceTypeNotFound is
   * not checked and AMIDrift only asks whether the image is among the class's AMIs).
   */
  readonly instanceTypes?: readonly InstanceType[] | undefined;
  /** Now in ms (InstanceTypeNotFound waits until the NodeClaim is an hour old). */
  readonly now?: number | undefined;
  /** The cluster's CA bundle, hashed into the EC2NodeClass hash as at launch. */
  readonly caBundle?: string | undefined;
}

export type DriftReason =
  | "NodePoolDrifted"
  | "RequirementsDrifted"
  | "InstanceTypeNotFound"
  | "NodeClassDrift"
  | "AMIDrift"
  | "SecurityGroupDrift"
  | "SubnetDrift"
  | "CapacityReservationDrift";

export interface Drift {
  readonly reason: DriftReason;
  readonly message: string;
}

const ids = (v: unknown): string[] =>
  Array.isArray(v) ? v.map((x) => String((x as { id?: unknown }).id ?? "")).filter((x) => x !== "") : [];

function poolRequirements(pool: DriftObject): NodeSelectorRequirement[] {
  const spec = ((pool.spec?.["template"] ?? {}) as { spec?: { requirements?: unknown } }).spec;
  return Array.isArray(spec?.requirements) ? (spec.requirements as NodeSelectorRequirement[]) : [];
}

function staticDrift(claim: NodeClaim, pool: DriftObject): Drift | undefined {
  const have = claim.metadata?.annotations ?? {};
  if (have[NodePoolHash.versionKey] !== NodePoolHash.version || have[NodePoolHash.key] === undefined) return undefined;
  const want = nodePoolHash(pool);
  return have[NodePoolHash.key] === want
    ? undefined
    : { reason: "NodePoolDrifted", message: `NodePool template changed (hash ${have[NodePoolHash.key]} → ${want})` };
}

/**
 * Karpenter's areRequirementsDrifted: the NodeClaim's labels must be compatible with every requirement
 * of the pool. A requirement on a key the NodeClaim lacks drifts it unless it is NotIn or
 * DoesNotExist (no key is exempt: well-known ones included), so adding `team In [a]` rolls the pool.
 */
function requirementsDrift(claim: NodeClaim, pool: DriftObject): Drift | undefined {
  const labels = claim.metadata?.labels ?? {};
  const have = Requirements.fromLabels(labels);
  for (const r of Requirements.fromSelectors(poolRequirements(pool))) {
    const value = labels[r.key];
    if (value === undefined) {
      if (have.compatible(new Requirements([r]), { allowUndefined: new Set() }) === undefined) continue;
      return { reason: "RequirementsDrifted", message: `label ${r.key} is missing, requirement ${r.toString()}` };
    }
    if (!r.has(value)) {
      return { reason: "RequirementsDrifted", message: `label ${r.key}=${value} no longer satisfies ${r.toString()}` };
    }
  }
  return undefined;
}

/** Karpenter checks InstanceTypeNotFound only once a NodeClaim is an hour old (drift.go). */
export const INSTANCE_TYPE_DRIFT_AGE_MS = 3_600_000;

function olderThanAnHour(claim: NodeClaim, now: number | undefined): boolean {
  const created = timeMs(claim.metadata?.creationTimestamp);
  return now !== undefined && created !== undefined && now - created > INSTANCE_TYPE_DRIFT_AGE_MS;
}

/**
 * Karpenter's instanceTypeNotFound: the NodeClaim's instance type is gone from its NodePool's types, or
 * none of its offerings (available or not) matches the NodeClaim's zone and capacity type; a reserved
 * NodeClaim also matches on-demand (it may have been demoted before its label changed).
 */
function instanceTypeNotFound(claim: NodeClaim, types: readonly InstanceType[]): Drift | undefined {
  const labels = claim.metadata?.labels ?? {};
  const name = labels[Label.instanceType] ?? "";
  const type = types.find((t) => t.name === name);
  if (type === undefined) {
    return { reason: "InstanceTypeNotFound", message: `instance type "${name}" is no longer offered to the NodePool` };
  }
  const capacity = labels[Label.capacityType];
  const capacities =
    capacity === "reserved" ? ["reserved", "on-demand"] : capacity === undefined ? undefined : [capacity];
  const zone = labels[Label.zone];
  const zoneId = labels[Label.zoneId];
  const match = type.offerings.some(
    (o) =>
      (capacities === undefined || capacities.includes(o.capacityType)) &&
      (zone === undefined || o.zone === zone) &&
      (zoneId === undefined || o.zoneId === undefined || o.zoneId === zoneId),
  );
  if (match) return undefined;
  const message = `instance type ${name} has no ${capacity ?? ""} offering in ${zone ?? "its zone"} any more`;
  return { reason: "InstanceTypeNotFound", message };
}

function nodeClassDrift(claim: NodeClaim, nodeClass: DriftObject, caBundle: string | undefined): Drift | undefined {
  const have = claim.metadata?.annotations ?? {};
  if (have[NodeClassHash.versionKey] !== NodeClassHash.version || have[NodeClassHash.key] === undefined)
    return undefined;
  const want = nodeClassHash(nodeClass, caBundle);
  return have[NodeClassHash.key] === want
    ? undefined
    : { reason: "NodeClassDrift", message: `EC2NodeClass spec changed (hash ${have[NodeClassHash.key]} → ${want})` };
}

interface StatusAmi {
  readonly id: string;
  readonly requirements: Requirements;
}

/** status.amis as written: id and the requirements an instance type must meet to boot it, in order. */
function statusAmis(nodeClass: DriftObject): StatusAmi[] {
  const amis = nodeClass.status?.["amis"];
  if (!Array.isArray(amis)) return [];
  return amis
    .map((a: { id?: unknown; requirements?: unknown }) => ({
      id: String(a.id ?? ""),
      requirements: Requirements.fromSelectors(
        Array.isArray(a.requirements) ? (a.requirements as NodeSelectorRequirement[]) : [],
      ),
    }))
    .filter((a) => a.id !== "");
}

function amiMembership(image: string, amis: readonly { id: string }[]): Drift | undefined {
  if (amis.some((a) => a.id === image)) return undefined;
  const message = `image ${image} is not among the EC2NodeClass's AMIs (${amis.map((a) => a.id).join(", ")})`;
  return { reason: "AMIDrift", message };
}

/**
 * Karpenter's isAMIDrifted: the image must be the one the class now maps the NodeClaim's instance type to
 * (the first AMI of status.amis whose requirements the type meets, MapToInstanceTypes), so a GPU node on
 * the standard image of a list that also holds the NVIDIA one has drifted. Without the instance types (or
 * with a type the class no longer offers, which InstanceTypeNotFound reports) only membership is asked.
 */
function amiDrift(
  claim: NodeClaim,
  nodeClass: DriftObject,
  types: readonly InstanceType[] | undefined,
): Drift | undefined {
  const image = claim.status?.imageID ?? "";
  const amis = statusAmis(nodeClass);
  if (image === "" || amis.length === 0) return undefined;
  const name = claim.metadata?.labels?.[Label.instanceType] ?? "";
  const type = types?.find((t) => t.name === name);
  return type === undefined ? amiMembership(image, amis) : amiForType(image, amis, type);
}

function amiForType(image: string, amis: readonly StatusAmi[], type: InstanceType): Drift | undefined {
  const mapped = amis.find((a) => a.requirements.matchLabels(type.labels) === undefined)?.id;
  if (mapped === image) return undefined;
  const message = `image ${image} is not the EC2NodeClass's AMI for ${type.name} (${mapped ?? "none"})`;
  return { reason: "AMIDrift", message };
}

function networkDrift(nodeClass: DriftObject, instance: InstanceNetwork): Drift | undefined {
  const groups = ids(nodeClass.status?.["securityGroups"]);
  const have = [...new Set(instance.securityGroupIDs)].sort();
  if (groups.length > 0 && have.join(",") !== [...new Set(groups)].sort().join(",")) {
    return {
      reason: "SecurityGroupDrift",
      message: `instance security groups [${have.join(", ")}] differ from the EC2NodeClass's [${groups.join(", ")}]`,
    };
  }
  const subnets = ids(nodeClass.status?.["subnets"]);
  if (subnets.length > 0 && instance.subnetID !== "" && !subnets.includes(instance.subnetID)) {
    return {
      reason: "SubnetDrift",
      message: `instance subnet ${instance.subnetID} is not among the EC2NodeClass's subnets`,
    };
  }
  return reservationDrift(nodeClass, instance);
}

/**
 * CapacityReservationDrift (aws drift.go): the instance runs in a reservation the EC2NodeClass no longer
 * selects (deselected, or ended and dropped from status.capacityReservations). Decided from the instance, not
 * the offerings, so a reserved node that fell back to on-demand is never drifted for it.
 */
function reservationDrift(nodeClass: DriftObject, instance: InstanceNetwork): Drift | undefined {
  const id = instance.capacityReservationID;
  if (id === undefined || ids(nodeClass.status?.["capacityReservations"]).includes(id)) return undefined;
  return {
    reason: "CapacityReservationDrift",
    message: `instance capacity reservation ${id} is not among the EC2NodeClass's capacity reservations`,
  };
}

/** The first drift reason that applies, or undefined. */
export function driftOf(input: DriftInput): Drift | undefined {
  const { nodeClaim, nodePool, nodeClass, instance, instanceTypes, now } = input;
  const core = staticDrift(nodeClaim, nodePool) ?? requirementsDrift(nodeClaim, nodePool);
  if (core !== undefined) return core;
  const checkType = instanceTypes !== undefined && olderThanAnHour(nodeClaim, now);
  const notFound = checkType ? instanceTypeNotFound(nodeClaim, instanceTypes) : undefined;
  if (notFound !== undefined || nodeClass === undefined) return notFound;
  return (
    nodeClassDrift(nodeClaim, nodeClass, input.caBundle) ??
    amiDrift(nodeClaim, nodeClass, instanceTypes) ??
    (instance === undefined ? undefined : networkDrift(nodeClass, instance))
  );
}

/** Whether the NodeClaim must be (re-)stamped with the EC2NodeClass hash: absent, or another version. */
export function needsNodeClassStamp(claim: NodeClaim): boolean {
  return claim.metadata?.annotations?.[NodeClassHash.versionKey] !== NodeClassHash.version;
}

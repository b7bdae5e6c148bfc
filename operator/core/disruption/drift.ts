/**
 * Drift reasons for one NodeClaim (behaviour §4.10), cheapest check first: the NodePool's static
 * hash (NodePoolDrifted), its requirements against the NodeClaim's labels (RequirementsDrifted), the
 * EC2NodeClass static hash (NodeClassDrift), the image against the AMIs the class now resolves
 * (AMIDrift), and — with the instance at hand — its security groups and subnet (SecurityGroupDrift,
 * SubnetDrift). A hash is compared only when the NodeClaim carries kerf's hash version; another
 * version (Karpenter's, or an older kerf's) means "re-stamp", never "drifted".
 */
import { Requirements, type NodeSelectorRequirement } from "../../../policies/domain/requirements.ts";
import type { NodeClaim } from "../lifecycle/objects.ts";
import { NodePoolHash, nodePoolHash } from "../nodepool/hash.ts";
import { NodeClassHash, nodeClassHash } from "./nodeclass-hash.ts";

type Obj = Readonly<Record<string, unknown>>;

export interface DriftObject { readonly metadata?: { readonly annotations?: Readonly<Record<string, string>> | undefined } | undefined; readonly spec?: Obj | undefined; readonly status?: Obj | undefined }

/** What the cloud says of the running instance (absent: those checks are skipped). */
export interface InstanceNetwork { readonly securityGroupIDs: readonly string[]; readonly subnetID: string }

export interface DriftInput {
  readonly nodeClaim: NodeClaim;
  readonly nodePool: DriftObject;
  readonly nodeClass?: DriftObject | undefined;
  readonly instance?: InstanceNetwork | undefined;
}

export type DriftReason = "NodePoolDrifted" | "RequirementsDrifted" | "NodeClassDrift" | "AMIDrift" | "SecurityGroupDrift" | "SubnetDrift";

export interface Drift { readonly reason: DriftReason; readonly message: string }

const ids = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => String((x as { id?: unknown }).id ?? "")).filter((x) => x !== "") : []);

function poolRequirements(pool: DriftObject): NodeSelectorRequirement[] {
  const spec = ((pool.spec?.["template"] ?? {}) as { spec?: { requirements?: unknown } }).spec;
  return Array.isArray(spec?.requirements) ? (spec.requirements as NodeSelectorRequirement[]) : [];
}

function staticDrift(claim: NodeClaim, pool: DriftObject): Drift | undefined {
  const have = claim.metadata?.annotations ?? {};
  if (have[NodePoolHash.versionKey] !== NodePoolHash.version || have[NodePoolHash.key] === undefined) return undefined;
  const want = nodePoolHash(pool);
  return have[NodePoolHash.key] === want ? undefined : { reason: "NodePoolDrifted", message: `NodePool template changed (hash ${have[NodePoolHash.key]} → ${want})` };
}

/** Only labels the NodeClaim carries are judged: a requirement on a label it never had cannot have drifted. */
function requirementsDrift(claim: NodeClaim, pool: DriftObject): Drift | undefined {
  const labels = claim.metadata?.labels ?? {};
  for (const r of Requirements.fromSelectors(poolRequirements(pool))) {
    const value = labels[r.key];
    if (value !== undefined && !r.has(value)) return { reason: "RequirementsDrifted", message: `label ${r.key}=${value} no longer satisfies ${r.toString()}` };
  }
  return undefined;
}

function nodeClassDrift(claim: NodeClaim, nodeClass: DriftObject): Drift | undefined {
  const have = claim.metadata?.annotations ?? {};
  if (have[NodeClassHash.versionKey] !== NodeClassHash.version || have[NodeClassHash.key] === undefined) return undefined;
  const want = nodeClassHash(nodeClass);
  return have[NodeClassHash.key] === want ? undefined : { reason: "NodeClassDrift", message: `EC2NodeClass spec changed (hash ${have[NodeClassHash.key]} → ${want})` };
}

function amiDrift(claim: NodeClaim, nodeClass: DriftObject): Drift | undefined {
  const image = claim.status?.imageID ?? "";
  const amis = ids(nodeClass.status?.["amis"]);
  if (image === "" || amis.length === 0 || amis.includes(image)) return undefined;
  return { reason: "AMIDrift", message: `image ${image} is not among the EC2NodeClass's AMIs (${amis.join(", ")})` };
}

function networkDrift(nodeClass: DriftObject, instance: InstanceNetwork): Drift | undefined {
  const groups = ids(nodeClass.status?.["securityGroups"]);
  const have = [...new Set(instance.securityGroupIDs)].sort();
  if (groups.length > 0 && have.join(",") !== [...new Set(groups)].sort().join(",")) {
    return { reason: "SecurityGroupDrift", message: `instance security groups [${have.join(", ")}] differ from the EC2NodeClass's [${groups.join(", ")}]` };
  }
  const subnets = ids(nodeClass.status?.["subnets"]);
  if (subnets.length > 0 && instance.subnetID !== "" && !subnets.includes(instance.subnetID)) {
    return { reason: "SubnetDrift", message: `instance subnet ${instance.subnetID} is not among the EC2NodeClass's subnets` };
  }
  return undefined;
}

/** The first drift reason that applies, or undefined. */
export function driftOf(input: DriftInput): Drift | undefined {
  const { nodeClaim, nodePool, nodeClass, instance } = input;
  const core = staticDrift(nodeClaim, nodePool) ?? requirementsDrift(nodeClaim, nodePool);
  if (core !== undefined || nodeClass === undefined) return core;
  return nodeClassDrift(nodeClaim, nodeClass) ?? amiDrift(nodeClaim, nodeClass) ?? (instance === undefined ? undefined : networkDrift(nodeClass, instance));
}

/** Whether the NodeClaim must be (re-)stamped with the EC2NodeClass hash: absent, or another version. */
export function needsNodeClassStamp(claim: NodeClaim): boolean {
  return claim.metadata?.annotations?.[NodeClassHash.versionKey] !== NodeClassHash.version;
}

/**
 * EC2NodeClass status from resolved facts and the instance-profile outcome (pure): status.subnets,
 * securityGroups, amis, instanceProfile (the profile instances launch with) and the conditions
 * SubnetsReady, SecurityGroupsReady, AMIsReady, InstanceProfileReady, ValidationSucceeded,
 * CapacityReservationsReady (ReservedCapacity gate) and Ready (all True ⇒ Ready True); status.capacityReservations.
 */
import { userDataProblem } from "../../../policies/ec2nodeclass/user-data.ts";
import {
  amiFamilyOf,
  type Condition,
  type EC2NodeClassLike,
  type EC2NodeClassStatus,
} from "../../core/launch-template/node-class.ts";
import type { CatalogFreshness, PartFreshness } from "../../ports/catalog-source.ts";
import type { InstanceProfileOutcome } from "../../ports/node-class-cloud.ts";
import type { NodeClassFacts } from "../../ports/node-class-resolver.ts";
import { ignoredFieldsCondition } from "../../core/ignored/ignored-fields.ts";
import { kubeletTypeProblems } from "../../../policies/ec2nodeclass/kubelet-types.ts";

/** The dependent conditions, in the order Ready reports them. */
export const DEPENDENT_CONDITIONS = [
  "AMIsReady",
  "SubnetsReady",
  "SecurityGroupsReady",
  "InstanceProfileReady",
  "ValidationSucceeded",
] as const;

type Verdict = Omit<Condition, "lastTransitionTime" | "observedGeneration">;

function readiness(
  type: string,
  ok: boolean,
  failure: { reason: string; why?: string | undefined; what: string },
): Verdict {
  if (ok) return { type, status: "True", reason: type, message: "" };
  return {
    type,
    status: "False",
    reason: failure.reason,
    message: failure.why ?? `${failure.what} did not match any resource`,
  };
}

function profileVerdict(profile: InstanceProfileOutcome): Verdict {
  if (profile.ready)
    return { type: "InstanceProfileReady", status: "True", reason: "InstanceProfileReady", message: "" };
  return { type: "InstanceProfileReady", status: "False", reason: profile.reason, message: profile.message };
}

/** ValidationSucceeded: False when the AMI family cannot merge spec.userData (every launch would fail). */
function validation(nodeClass: EC2NodeClassLike): Verdict {
  const problem = userDataProblem(amiFamilyOf(nodeClass.spec), nodeClass.spec.userData);
  if (problem !== undefined)
    return { type: "ValidationSucceeded", status: "False", reason: "InvalidUserData", message: problem };
  // Karpenter v1.15: spec.kubelet is free-form in the CRD, so malformed fields kerf writes
  // into user data are caught here.
  const kubelet = kubeletTypeProblems(nodeClass);
  if (kubelet.length > 0)
    return {
      type: "ValidationSucceeded",
      status: "False",
      reason: "InvalidKubeletConfiguration",
      message: kubelet.join("; "),
    };
  return { type: "ValidationSucceeded", status: "True", reason: "ValidationSucceeded", message: "" };
}

/**
 * CapacityReservationsReady (with the ReservedCapacity gate): True once the terms were looked up, whether
 * or not they select anything (as Karpenter); False when the lookup failed, saying why.
 */
function reservationsVerdict(facts: NodeClassFacts): Verdict {
  const why = facts.errors.capacityReservations;
  if (why === undefined)
    return { type: "CapacityReservationsReady", status: "True", reason: "CapacityReservationsReady", message: "" };
  return {
    type: "CapacityReservationsReady",
    status: "False",
    reason: "CapacityReservationsNotResolved",
    message: why,
  };
}

function verdicts(
  nodeClass: EC2NodeClassLike,
  facts: NodeClassFacts,
  profile: InstanceProfileOutcome,
  reservedCapacity: boolean,
): Verdict[] {
  return [
    readiness("AMIsReady", facts.amis.length > 0, {
      reason: "AMINotFound",
      why: facts.errors.amis,
      what: "amiSelectorTerms",
    }),
    readiness("SubnetsReady", facts.subnets.length > 0, {
      reason: "SubnetsNotFound",
      why: facts.errors.subnets,
      what: "subnetSelectorTerms",
    }),
    readiness("SecurityGroupsReady", facts.securityGroups.length > 0, {
      reason: "SecurityGroupsNotFound",
      why: facts.errors.securityGroups,
      what: "securityGroupSelectorTerms",
    }),
    profileVerdict(profile),
    validation(nodeClass),
    ...(reservedCapacity ? [reservationsVerdict(facts)] : []),
  ];
}

const PART_NAMES = {
  instanceTypes: "instance types and offerings",
  spotPrices: "spot prices",
  onDemandPrices: "on-demand prices",
} as const;
const API_NAMES = {
  instanceTypes: "EC2",
  spotPrices: "EC2 spot price history",
  onDemandPrices: "the Pricing API",
} as const;

function partLine(part: keyof typeof PART_NAMES, f: PartFreshness): string {
  const at = (d: Date | undefined): string =>
    d === undefined ? "" : ` at ${d.toISOString().replace(/\.\d{3}Z$/, "Z")}`;
  const source =
    f.source === "api"
      ? `${API_NAMES[part]}${at(f.refreshedAt)}`
      : f.source === "bundled"
        ? "kerf's bundled data"
        : f.source === "on-demand-estimate"
          ? "the on-demand price as an estimate"
          : "none";
  const failed = f.error === undefined ? "" : ` (last refresh failed${at(f.failedAt)}: ${f.error})`;
  return `${PART_NAMES[part]}: ${source}${f.note === undefined ? "" : ` (${f.note})`}${failed}`;
}

/**
 * kerf's CatalogFresh condition (not one of Ready's dependents: stale prices do not stop launches): True
 * while every part comes from AWS (on-demand prices may be bundled in an isolated VPC) and the last
 * refresh of each succeeded; the message says where each part comes from and when it was refreshed.
 */
export function catalogVerdict(catalog: CatalogFreshness): Verdict {
  const parts = Object.entries(catalog.parts) as [keyof typeof PART_NAMES, PartFreshness][];
  const fresh = parts.every(
    ([part, f]) => f.error === undefined && (f.source === "api" || (part === "onDemandPrices" && f.note !== undefined)),
  );
  const failed = parts.some(([, f]) => f.error !== undefined);
  const message = `${catalog.region}: ${parts.map(([part, f]) => partLine(part, f)).join("; ")}`;
  return {
    type: "CatalogFresh",
    status: fresh ? "True" : "False",
    reason: fresh ? "CatalogFresh" : failed ? "RefreshFailed" : "BundledData",
    message,
  };
}

function ready(list: readonly Verdict[]): Verdict {
  const failing = list.filter((c) => c.status !== "True");
  if (failing.length === 0) return { type: "Ready", status: "True", reason: "Ready", message: "" };
  return {
    type: "Ready",
    status: "False",
    reason: "UnhealthyDependents",
    message: failing.map((c) => `${c.type}=${c.status}`).join(", "),
  };
}

function stamp(v: Verdict, previous: readonly Condition[], now: Date, generation: number | undefined): Condition {
  const before = previous.find((c) => c.type === v.type);
  const lastTransitionTime =
    before !== undefined && before.status === v.status
      ? before.lastTransitionTime
      : now.toISOString().replace(/\.\d{3}Z$/, "Z");
  return { ...v, lastTransitionTime, ...(generation === undefined ? {} : { observedGeneration: generation }) };
}

/** kerf's IgnoredFields condition (not one of Ready's dependents): present while the class sets what kerf ignores. */
function ignoredVerdict(nodeClass: EC2NodeClassLike): Verdict[] {
  const condition = ignoredFieldsCondition("EC2NodeClass", nodeClass);
  return condition === undefined ? [] : [condition];
}

/** The status to write; lastTransitionTime only moves when a condition's status changes. */
export function computeNodeClassStatus(
  nodeClass: EC2NodeClassLike,
  facts: NodeClassFacts,
  profile: InstanceProfileOutcome,
  at: { now: Date; catalog?: CatalogFreshness | undefined; reservedCapacity?: boolean | undefined },
): EC2NodeClassStatus {
  const { now, catalog } = at;
  const reservedCapacity = at.reservedCapacity === true;
  const list = verdicts(nodeClass, facts, profile, reservedCapacity);
  // A failed lookup keeps the reservations last seen (launches and drift go on using them, as in Karpenter).
  const reservations =
    facts.errors.capacityReservations === undefined
      ? facts.capacityReservations
      : (nodeClass.status?.capacityReservations ?? undefined);
  const previous = nodeClass.status?.conditions ?? [];
  const generation = nodeClass.metadata.generation;
  return {
    subnets: facts.subnets.map((s) => ({
      id: s.id,
      zone: s.zone,
      ...(s.zoneId === undefined ? {} : { zoneID: s.zoneId }),
    })),
    securityGroups: facts.securityGroups.map((g) => ({ id: g.id, ...(g.name === undefined ? {} : { name: g.name }) })),
    amis: facts.amis.map((a) => ({
      id: a.id,
      ...(a.name === undefined ? {} : { name: a.name }),
      ...(a.deprecated ? { deprecated: true } : {}),
      requirements: a.requirements.map((r) => ({
        key: r.key,
        operator: r.operator,
        ...(r.values === undefined ? {} : { values: [...r.values] }),
      })),
    })),
    ...(profile.name === undefined ? {} : { instanceProfile: profile.name }),
    ...(reservedCapacity && reservations !== undefined && reservations.length > 0
      ? { capacityReservations: reservations }
      : {}),
    conditions: [
      ...list,
      ready(list),
      ...(catalog === undefined ? [] : [catalogVerdict(catalog)]),
      ...ignoredVerdict(nodeClass),
    ].map((v) => stamp(v, previous, now, generation)),
  };
}

/** Whether the status says the node class can launch. */
export function isNodeClassReady(status: EC2NodeClassStatus | undefined): boolean {
  return status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;
}

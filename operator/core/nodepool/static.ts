/**
 * Static NodePools (Karpenter v1.8+, feature gate StaticCapacity): a NodePool with `spec.replicas`
 * keeps exactly that many NodeClaims, whatever pods want. This module holds the pure decisions that
 * Karpenter splits over static.provisioning and static.deprovisioning, and the NodeClaim a static pool
 * launches (also what StaticDrift replaces a drifted node with and what `kerf simulate` shows).
 *
 * Counting (Karpenter's NodePoolState, derived here from the objects so that a restart loses nothing):
 * a pool's NodeClaim is deleting (deletionTimestamp), pending disruption (a candidate of a disruption
 * command: kerf.dev/disruption-command with role "candidate") or active (everything else, launched or
 * not). Scale-up needs active + pending disruption < replicas and adds replicas − active, capped by
 * what `limits.nodes` leaves after active + deleting + pending disruption. Scale-down counts active
 * NodeClaims only (a drifted node being replaced is not "too many") and removes, in Karpenter's order:
 * NodeClaims that have not launched (no providerID), then empty nodes (no pods, or only DaemonSet pods
 * none of which has an active do-not-disrupt), then the rest, nodes without an active do-not-disrupt
 * pod before those with one, each group by rescheduling cost × remaining lifetime, cheapest first.
 * Karpenter leaves ties in list order; kerf breaks them by the newest NodeClaim first, then the name.
 */
import { tryParseDuration } from "../../../policies/domain/duration.ts";
import { cheapestOffering, type InstanceType } from "../../../policies/domain/instance-types.ts";
import { tryParseQuantity } from "../../../policies/domain/quantity.ts";
import type { NodeSelectorRequirement } from "../../../policies/domain/requirements.ts";
import type { Taint } from "../../../policies/domain/taints.ts";
import { evictionCost } from "../disruption/candidates.ts";
import { intentOf } from "../disruption/intent.ts";
import { doNotDisruptActive } from "../disruption/pod-blockers.ts";
import { DEFAULT_EXPIRE_AFTER } from "../lifecycle/expiration.ts";
import { timeMs, type NodeClaim, type Pod } from "../lifecycle/objects.ts";
import { templateOf } from "../provisioning/nodeclaim-template.ts";
import { PoolTypes } from "../scheduling/pool-types.ts";
import { ResourceSpace } from "../scheduling/resource-space.ts";
import type { PlannedNodeClaim } from "../scheduling/types.ts";

/** The NodePool fields read here. */
export interface StaticPool {
  readonly metadata?: { readonly name?: string | undefined } | undefined;
  readonly spec?: Readonly<Record<string, unknown>> | undefined;
}

/** `spec.replicas` when the pool is static (a non-negative integer), else undefined. */
export function replicasOf(pool: StaticPool): number | undefined {
  const value = pool.spec?.["replicas"];
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** Whether the NodePool sets `spec.replicas` (Karpenter's IsStatic: the field is present). */
export function isStatic(pool: StaticPool): boolean {
  return pool.spec?.["replicas"] !== undefined && pool.spec["replicas"] !== null;
}

/** `limits.nodes` as a whole number (a quantity rounded up, as Karpenter's Value()); Infinity without one. */
export function nodeLimitOf(pool: StaticPool): number {
  const limits = pool.spec?.["limits"] as Readonly<Record<string, unknown>> | undefined;
  const value = tryParseQuantity(limits?.["nodes"]);
  return value === undefined ? Number.POSITIVE_INFINITY : Math.ceil(value);
}

/** A pool's NodeClaims by state (Karpenter's NodePoolState). */
export interface StaticCounts {
  readonly active: readonly NodeClaim[];
  readonly pendingDisruption: readonly NodeClaim[];
  readonly deleting: readonly NodeClaim[];
}

const poolLabel = "karpenter.sh/nodepool";

/** The pool's NodeClaims by state. */
export function staticCounts(pool: string, claims: readonly NodeClaim[]): StaticCounts {
  const active: NodeClaim[] = [];
  const pendingDisruption: NodeClaim[] = [];
  const deleting: NodeClaim[] = [];
  for (const c of claims) {
    if (c.metadata?.labels?.[poolLabel] !== pool) continue;
    if (c.metadata.deletionTimestamp !== undefined) deleting.push(c);
    else if (intentOf(c)?.role === "candidate") pendingDisruption.push(c);
    else active.push(c);
  }
  return { active, pendingDisruption, deleting };
}

/** A pool member as scale-down reads it: its NodeClaim and the pods bound to its Node (none without one). */
export interface StaticMember {
  readonly claim: NodeClaim;
  readonly pods: readonly Pod[];
}

/** What the static controllers do for one pool now. */
export type StaticDecision =
  | { readonly kind: "steady"; readonly current: number; readonly desired: number }
  | { readonly kind: "scale-up"; readonly count: number; readonly current: number; readonly desired: number }
  | { readonly kind: "limit-reached"; readonly current: number; readonly desired: number; readonly limit: number }
  | {
      readonly kind: "scale-down";
      readonly claims: readonly NodeClaim[];
      readonly current: number;
      readonly desired: number;
    };

export interface StaticInput {
  readonly pool: StaticPool;
  /** The pool's members (NodeClaims of other pools are ignored). */
  readonly members: readonly StaticMember[];
  /** Now (ms): do-not-disrupt durations and remaining lifetimes. */
  readonly now: number;
}

/** The scale decision for a static pool (undefined for a dynamic one). */
export function staticDecision(input: StaticInput): StaticDecision | undefined {
  const desired = replicasOf(input.pool);
  if (desired === undefined) return undefined;
  const name = input.pool.metadata?.name ?? "";
  const counts = staticCounts(
    name,
    input.members.map((m) => m.claim),
  );
  const active = counts.active.length;
  const pending = counts.pendingDisruption.length;
  if (active > desired) {
    const running = new Set(counts.active.map((c) => c.metadata?.name));
    const members = input.members.filter((m) => running.has(m.claim.metadata?.name));
    const claims = scaleDownOrder(members, input.now).slice(0, active - desired);
    return { kind: "scale-down", claims, current: active, desired };
  }
  // Nodes being replaced by drift count: their replacements are in flight.
  if (active + pending >= desired) return { kind: "steady", current: active, desired };
  const limit = nodeLimitOf(input.pool);
  const room = limit - (active + counts.deleting.length + pending);
  const count = Math.min(desired - active, room);
  if (count <= 0) return { kind: "limit-reached", current: active, desired, limit };
  return { kind: "scale-up", count, current: active, desired };
}

const ownedByDaemonSet = (pod: Pod): boolean =>
  (pod.metadata?.ownerReferences ?? []).some((o) => o.kind === "DaemonSet");

/** Karpenter's LifetimeRemaining: the fraction of expireAfter left (1 with Never or none). */
function lifetimeRemaining(claim: NodeClaim, now: number): number {
  const ttl = tryParseDuration(claim.spec?.expireAfter ?? DEFAULT_EXPIRE_AFTER);
  if (typeof ttl !== "number" || ttl <= 0) return 1;
  const created = timeMs(claim.metadata?.creationTimestamp) ?? now;
  return Math.min(1, Math.max(0, (ttl - (now - created)) / ttl));
}

interface Ranked {
  readonly member: StaticMember;
  readonly group: number;
  readonly cost: number;
  readonly created: number;
}

/** 0: not launched, 1: empty, 2: pods without do-not-disrupt, 3: a pod with an active do-not-disrupt. */
function groupOf(m: StaticMember, now: number): number {
  if ((m.claim.status?.providerID ?? "") === "") return 0;
  const protectedPod = m.pods.some((p) => doNotDisruptActive(p, now));
  if (m.pods.every(ownedByDaemonSet) && !protectedPod) return 1;
  return protectedPod ? 3 : 2;
}

/** Members in the order scale-down removes them (see the module comment). */
export function scaleDownOrder(members: readonly StaticMember[], now: number): NodeClaim[] {
  const ranked: Ranked[] = members.map((member) => ({
    member,
    group: groupOf(member, now),
    cost: member.pods.reduce((s, p) => s + evictionCost(p), 0) * lifetimeRemaining(member.claim, now),
    created: timeMs(member.claim.metadata?.creationTimestamp) ?? 0,
  }));
  // Cost orders only the non-empty groups, as in Karpenter.
  const cost = (r: Ranked): number => (r.group >= 2 ? r.cost : 0);
  ranked.sort(
    (a, b) =>
      a.group - b.group ||
      cost(a) - cost(b) ||
      b.created - a.created ||
      (a.member.claim.metadata?.name ?? "").localeCompare(b.member.claim.metadata?.name ?? ""),
  );
  return ranked.map((r) => r.member.claim);
}

const list = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);

/**
 * The NodeClaim a static pool launches (Karpenter's NodeClaimTemplate with IsStaticNodeClaim): the
 * pool's requirements with its template labels and `karpenter.sh/nodepool` folded in, no instance-type
 * list and no requests, so the launch picks the cheapest compatible offering (Karpenter leaves that to
 * the cloud provider's Create). `instanceTypes` are the pool's EC2NodeClass's; `launch` is the cheapest
 * compatible offering (what kerf reports; the fleet request decides). Undefined when none is compatible.
 */
export function staticClaim(pool: StaticPool, instanceTypes: readonly InstanceType[]): PlannedNodeClaim | undefined {
  const name = pool.metadata?.name ?? "";
  const { meta, spec } = templateOf(pool);
  const written = (meta["labels"] ?? {}) as Record<string, unknown>;
  const labels = Object.fromEntries(Object.entries(written).map(([k, v]) => [k, String(v)]));
  const types = new PoolTypes(
    {
      name,
      weight: 0,
      labels,
      taints: list<Taint>(spec["taints"]),
      startupTaints: list<Taint>(spec["startupTaints"]),
      requirements: list<NodeSelectorRequirement>(spec["requirements"]),
      instanceTypes,
    },
    new ResourceSpace(),
    [],
  );
  const cheapest = types.types[0];
  const offering = cheapest === undefined ? undefined : cheapestOffering(cheapest, types.requirements);
  if (cheapest === undefined || offering === undefined) return undefined;
  return {
    nodePool: name,
    requirements: types.requirements.toSelectors(),
    instanceTypes: types.types,
    pods: [],
    requests: {},
    launch: {
      instanceType: cheapest.name,
      capacityType: offering.capacityType,
      zone: offering.zone,
      pricePerHour: offering.pricePerHour,
    },
  };
}

/** The NodePool fields staticLaunches reads. */
export interface LaunchingPool extends StaticPool {
  readonly metadata?: { readonly name?: string | undefined; readonly deletionTimestamp?: unknown } | undefined;
  readonly status?: Readonly<Record<string, unknown>> | undefined;
}

const ready = (pool: LaunchingPool): boolean =>
  list<{ type?: unknown; status?: unknown }>(pool.status?.["conditions"]).some(
    (c) => c.type === "Ready" && c.status === "True",
  );

/**
 * The NodeClaims the static controller would launch now, for every Ready static pool not being deleted
 * that has fewer than its replicas (within limits.nodes): what `kerf simulate` lists. A pool without a
 * compatible instance type launches nothing.
 */
export function staticLaunches(
  pools: readonly LaunchingPool[],
  claims: readonly NodeClaim[],
  instanceTypes: ReadonlyMap<string, readonly InstanceType[]>,
  now: number,
): PlannedNodeClaim[] {
  return pools
    .filter((p) => isStatic(p) && ready(p) && p.metadata?.deletionTimestamp === undefined)
    .flatMap((pool) => {
      const decision = staticDecision({ pool, members: claims.map((claim) => ({ claim, pods: [] })), now });
      if (decision?.kind !== "scale-up") return [];
      const planned = staticClaim(pool, instanceTypes.get(pool.metadata?.name ?? "") ?? []);
      return planned === undefined ? [] : Array.from({ length: decision.count }, () => planned);
    });
}

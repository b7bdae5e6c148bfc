/**
 * Live NodeClaims measured against the new objects (`kerf check --diff --cluster`), with the operator's
 * own drift rules (driftOf): a NodeClaim stamped with kerf's hash version drifts by hash, any NodeClaim
 * by its labels against the new requirements; one stamped with another version is re-stamped instead.
 */
import { Label } from "../../../policies/domain/labels.ts";
import { driftOf, type DriftObject, type DriftReason } from "../disruption/drift.ts";
import { NodeClassHash } from "../disruption/nodeclass-hash.ts";
import { isTrue, type NodeClaim } from "../lifecycle/objects.ts";
import { NodePoolHash } from "../nodepool/hash.ts";
import type { LiveCount } from "./types.ts";

/** What one pool's live NodeClaims are measured against: the new NodePool, or a changed EC2NodeClass. */
export type Measure =
  | { readonly kind: "NodePool"; readonly pool: DriftObject }
  | { readonly kind: "EC2NodeClass"; readonly name: string; readonly nodeClass: DriftObject };

/** The pool's NodeClaims, without those already being deleted (they go whatever the change). */
export function claimsOf(claims: readonly NodeClaim[], pool: string): NodeClaim[] {
  return claims.filter(
    (c) => c.metadata?.labels?.[Label.nodePool] === pool && c.metadata?.deletionTimestamp === undefined,
  );
}

/** The claim without its NodePool stamp and labels, so driftOf judges the EC2NodeClass alone. */
function classOnly(claim: NodeClaim): NodeClaim {
  const {
    [NodePoolHash.key]: _hash,
    [NodePoolHash.versionKey]: _version,
    ...annotations
  } = claim.metadata?.annotations ?? {};
  return { ...claim, metadata: { ...claim.metadata, labels: {}, annotations } };
}

function reasonOf(claim: NodeClaim, measure: Measure, caBundle: string | undefined): DriftReason | undefined {
  if (measure.kind === "NodePool") return driftOf({ nodeClaim: claim, nodePool: measure.pool })?.reason;
  return driftOf({ nodeClaim: classOnly(claim), nodePool: {}, nodeClass: measure.nodeClass, caBundle })?.reason;
}

function otherVersion(claim: NodeClaim, measure: Measure): boolean {
  const key = measure.kind === "NodePool" ? NodePoolHash.versionKey : NodeClassHash.versionKey;
  const want = measure.kind === "NodePool" ? NodePoolHash.version : NodeClassHash.version;
  return claim.metadata?.annotations?.[key] !== want;
}

/**
 * How many of `pool`'s live NodeClaims the change drifts, and what budget percentages are of. `caBundle`:
 * the cluster CA the operator hashes into the EC2NodeClass hash (without it a stamped claim looks drifted).
 */
export function countLive(pool: string, claims: readonly NodeClaim[], measure: Measure, caBundle?: string): LiveCount {
  let mine = claimsOf(claims, pool);
  if (measure.kind === "EC2NodeClass")
    mine = mine.filter((c) => (c.spec?.nodeClassRef?.name ?? measure.name) === measure.name);
  const byReason: Partial<Record<DriftReason, number>> = {};
  let drifting = 0;
  for (const claim of mine) {
    const reason = reasonOf(claim, measure, caBundle);
    if (reason === undefined) continue;
    drifting++;
    byReason[reason] = (byReason[reason] ?? 0) + 1;
  }
  // As the operator counts for budget percentages: initialized, instance not terminating (deleting ones included).
  const counted = claims.filter(
    (c) =>
      c.metadata?.labels?.[Label.nodePool] === pool &&
      isTrue(c.status?.conditions, "Initialized") &&
      !isTrue(c.status?.conditions, "InstanceTerminating"),
  );
  return {
    nodePool: pool,
    nodeClaims: mine.length,
    budgetNodes: counted.length,
    drifting,
    byReason,
    otherHashVersion: mine.filter((c) => otherVersion(c, measure)).length,
    alreadyDrifted: mine.filter((c) => isTrue(c.status?.conditions, "Drifted")).length,
  };
}

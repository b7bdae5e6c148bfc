/**
 * Candidate eligibility (behaviour §4.2): which NodeClaims the disruption methods may look at, and
 * for each one that is not eligible, the blocker users see in a DisruptionBlocked Event. Pod-level
 * blockers are kept on the candidate, not decided here: drift with a terminationGracePeriod is
 * "eventual" and ignores them, every other method does not.
 */
import { NEVER, tryParseDuration } from "../../../policies/domain/duration.ts";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { Label } from "../../../policies/domain/labels.ts";
import { DEFAULT_EXPIRE_AFTER } from "../lifecycle/expiration.ts";
import type { Meta, Node, NodeClaim, Pod } from "../lifecycle/objects.ts";
import { findCondition, isTrue, timeMs } from "../lifecycle/objects.ts";
import { quietFor } from "./consolidatable.ts";
import { DO_NOT_DISRUPT, isReschedulable, PdbIndex, podBlocker, type PdbLike } from "./pod-blockers.ts";
import type { Candidate, Skipped } from "./types.ts";

export interface CandidateInput {
  readonly now: number;
  readonly nodeClaims: readonly NodeClaim[];
  readonly nodes: readonly Node[];
  readonly pods: readonly Pod[];
  readonly pdbs: readonly PdbLike[];
  /** NodePool names that exist. */
  readonly nodePools: ReadonlySet<string>;
  /** Catalog types by name, for the price of the running offering. */
  readonly types: ReadonlyMap<string, InstanceType>;
  /** Nodes a pending pod was nominated to within the nomination window. */
  readonly nominated: ReadonlySet<string>;
  /** NodeClaims already in a command being executed. */
  readonly inFlight: ReadonlySet<string>;
  /** Per NodePool, its kerf.dev/consolidate-empty-after in ms (pools without a usable one are absent). */
  readonly emptyAfter?: ReadonlyMap<string, number>;
}

const deleting = (o: { readonly metadata?: Meta | undefined }): boolean => o.metadata?.deletionTimestamp !== undefined;
const nameOf = (o: { readonly metadata?: Meta | undefined }): string => o.metadata?.name ?? "";

export { isReschedulable } from "./pod-blockers.ts";

/** The hourly price of the offering a NodeClaim runs on (0 when the catalog does not know it). */
export function runningPrice(
  labels: Readonly<Record<string, string>>,
  types: ReadonlyMap<string, InstanceType>,
): number {
  const type = types.get(labels[Label.instanceType] ?? "");
  const offering = type?.offerings.find(
    (o) => o.zone === labels[Label.zone] && o.capacityType === labels[Label.capacityType],
  );
  return offering?.pricePerHour ?? 0;
}

const INT32 = /^[+-]?\d+$/;

/** An int32 annotation as Go's strconv.ParseInt(v, 10, 32) reads it; undefined when it does not parse. */
function int32Of(value: string | undefined): number | undefined {
  if (value === undefined || !INT32.test(value)) return undefined;
  const n = Number(value);
  return n >= -(2 ** 31) && n < 2 ** 31 ? n : undefined;
}

/**
 * Karpenter's EvictionCost (v1.15): 1, nudged by `karpenter.sh/disruption-cost` (else
 * `controller.kubernetes.io/pod-deletion-cost`: the PodDeletionCostManagement gate is off) / 2^27
 * and the priority / 2^25, clamped to [-10, 10]. An unparsable annotation counts as absent.
 */
export function evictionCost(pod: Pod): number {
  const annotations = pod.metadata?.annotations ?? {};
  const own = annotations["karpenter.sh/disruption-cost"];
  const cost = own !== undefined ? int32Of(own) : int32Of(annotations["controller.kubernetes.io/pod-deletion-cost"]);
  const value = 1 + (cost ?? 0) / 2 ** 27 + (pod.spec?.priority ?? 0) / 2 ** 25;
  return Math.min(10, Math.max(-10, value));
}

/**
 * Karpenter's RescheduleDisruptionCost: 1 for the node plus each reschedulable pod's eviction cost
 * when positive (candidates are ordered by price / this, and Balanced scores with it).
 */
export function rescheduleCost(pods: readonly Pod[]): number {
  return pods.reduce((s, p) => s + Math.max(0, evictionCost(p)), 1);
}

/** Rescheduling cost × the fraction of the NodeClaim's lifetime left (behaviour §4.2). */
function disruptionCost(claim: NodeClaim, pods: readonly Pod[], now: number): number {
  const cost = pods.reduce((s, p) => s + Math.max(0, evictionCost(p)), 0);
  const ttl = tryParseDuration(claim.spec?.expireAfter ?? DEFAULT_EXPIRE_AFTER);
  const created = timeMs(claim.metadata?.creationTimestamp) ?? now;
  if (typeof ttl !== "number" || ttl <= 0) return cost;
  return cost * Math.min(1, Math.max(0, 1 - (now - created) / ttl));
}

function indexPods(pods: readonly Pod[]): Map<string, Pod[]> {
  const out = new Map<string, Pod[]>();
  for (const pod of pods) {
    const node = pod.spec?.nodeName ?? "";
    if (node === "") continue;
    const on = out.get(node);
    if (on === undefined) out.set(node, [pod]);
    else on.push(pod);
  }
  return out;
}

interface Context {
  readonly input: CandidateInput;
  readonly pdbs: PdbIndex;
  readonly podsByNode: Map<string, Pod[]>;
  readonly nodeByProvider: Map<string, Node>;
}

function nodeBlocker(ctx: Context, claim: NodeClaim, node: Node): Skipped | undefined {
  if (!isTrue(claim.status?.conditions, "Initialized"))
    return { nodeClaim: claim, node, blocker: { kind: "not-initialized", message: "node is not initialized" } };
  if (node.metadata?.annotations?.[DO_NOT_DISRUPT] === "true")
    return {
      nodeClaim: claim,
      node,
      blocker: { kind: "do-not-disrupt", message: `node has "${DO_NOT_DISRUPT}": "true"` },
    };
  if (ctx.input.nominated.has(node.metadata?.name ?? ""))
    return { nodeClaim: claim, node, blocker: { kind: "nominated", message: "node is nominated for a pending pod" } };
  return undefined;
}

/**
 * The claim's Node when the claim is ours to look at: registered, nobody deleting either,
 * not in a command, pool exists.
 */
function managedNode(ctx: Context, claim: NodeClaim): { node: Node; pool: string } | undefined {
  const node = ctx.nodeByProvider.get(claim.status?.providerID ?? "");
  if (node === undefined || deleting(claim) || deleting(node) || ctx.input.inFlight.has(nameOf(claim)))
    return undefined;
  const pool = node.metadata?.labels?.[Label.nodePool] ?? "";
  return ctx.input.nodePools.has(pool) ? { node, pool } : undefined;
}

function driftOf(claim: NodeClaim): { driftReason?: string; driftedAt?: number } {
  const drifted = findCondition(claim.status?.conditions, "Drifted");
  if (drifted?.status !== "True") return {};
  return { driftReason: drifted.reason ?? "Drifted", driftedAt: timeMs(drifted.lastTransitionTime) ?? 0 };
}

/** Instance type, capacity type and zone from the Node's (else the NodeClaim's) labels. */
function offeringOf(
  claim: NodeClaim,
  node: Node,
): { labels: Readonly<Record<string, string>>; instanceType: string; capacityType: string; zone: string } {
  const labels: Readonly<Record<string, string>> = { ...claim.metadata?.labels, ...node.metadata?.labels };
  return {
    labels,
    instanceType: labels[Label.instanceType] ?? "",
    capacityType: labels[Label.capacityType] ?? "",
    zone: labels[Label.zone] ?? "",
  };
}

function emptyAfterPassed(ctx: Context, claim: NodeClaim, pool: string): boolean {
  const delay = ctx.input.emptyAfter?.get(pool);
  return delay !== undefined && quietFor(claim, delay, ctx.input.now);
}

function candidateOf(ctx: Context, claim: NodeClaim): Candidate | Skipped | undefined {
  const managed = managedNode(ctx, claim);
  if (managed === undefined) return undefined;
  const { node, pool } = managed;
  const blocked = nodeBlocker(ctx, claim, node);
  if (blocked !== undefined) return blocked;
  const nodeName = nameOf(node);
  const bound = ctx.podsByNode.get(nodeName) ?? [];
  const pods = bound.filter(isReschedulable);
  const { labels, ...offering } = offeringOf(claim, node);
  return {
    nodeClaim: claim,
    node,
    name: nameOf(claim),
    nodeName,
    nodePool: pool,
    ...offering,
    pricePerHour: runningPrice(labels, ctx.input.types),
    pods,
    createdAt: timeMs(claim.metadata?.creationTimestamp) ?? ctx.input.now,
    consolidatable: isTrue(claim.status?.conditions, "Consolidatable"),
    emptyAfterPassed: emptyAfterPassed(ctx, claim, pool),
    ...driftOf(claim),
    // Every pod bound to the node, not only those that would move (Karpenter's ValidatePodsDisruptable).
    podBlocker: podBlocker(bound, ctx.pdbs, ctx.input.now),
    disruptionCost: disruptionCost(claim, pods, ctx.input.now),
    rescheduleCost: rescheduleCost(pods),
  };
}

/** Every candidate, and every NodeClaim held back with its blocker. */
export function findCandidates(input: CandidateInput): { candidates: Candidate[]; blocked: Skipped[] } {
  const ctx: Context = {
    input,
    pdbs: new PdbIndex(input.pdbs),
    podsByNode: indexPods(input.pods),
    nodeByProvider: new Map(
      input.nodes.filter((n) => (n.spec?.providerID ?? "") !== "").map((n) => [n.spec?.providerID ?? "", n]),
    ),
  };
  const candidates: Candidate[] = [];
  const blocked: Skipped[] = [];
  for (const claim of input.nodeClaims) {
    const result = candidateOf(ctx, claim);
    if (result === undefined) continue;
    if ("blocker" in result) blocked.push(result);
    else candidates.push(result);
  }
  return { candidates, blocked };
}

/**
 * Whether emptiness may take the candidate: nothing would have to move, consolidateAfter (or the
 * NodePool's kerf.dev/consolidate-empty-after) has passed, and no pod-level blocker holds it (a
 * DaemonSet or mirror pod's do-not-disrupt holds an empty node, as in Karpenter).
 */
export function isEmptyCandidate(c: Candidate): boolean {
  return isEmpty(c) && (c.consolidatable || c.emptyAfterPassed) && c.podBlocker === undefined;
}

/**
 * Whether nothing that counts would have to move (Karpenter's Candidate.IsEmpty): no reschedulable pod
 * with a positive eviction cost, so a node whose pods all have a pod-deletion-cost of -2^27 or less (or a
 * priority of -2^25 or less) is empty too (review S17a). Such a node is emptiness's alone, under the
 * Empty reason and its budget, deleted without a simulation; consolidation never takes it.
 */
export function isEmpty(c: Candidate): boolean {
  return c.rescheduleCost <= 1;
}

/** Whether the NodeClaim has a terminationGracePeriod (drift then ignores pod-level blockers). */
export function hasGracePeriod(claim: NodeClaim): boolean {
  const tgp = tryParseDuration(claim.spec?.terminationGracePeriod);
  return tgp !== undefined && tgp !== NEVER;
}

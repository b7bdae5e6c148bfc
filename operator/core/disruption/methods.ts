/**
 * The disruption methods (behaviour §4.4–4.6, §4.10), each a pure function from the pass's
 * candidates to at most one command. Budgets are spent from a ledger, so a method never plans more
 * disruptions of a pool than its budget for the method's reason allows.
 */
import { SCHEDULED_OFF_REASON } from "../../../policies/domain/budgets.ts";
import { uninitializedPlacement } from "../consolidation/questions.ts";
import { simulate } from "../scheduling/simulate.ts";
import type { ExistingNode, SimPod, SimulationResult } from "../scheduling/types.ts";
import { canPassBalanced, evaluate, unpriceable, type EvaluationContext } from "./consolidation.ts";
import { hasGracePeriod, isEmpty, isEmptyCandidate } from "./candidates.ts";
import type { BudgetLedger } from "./pool-budgets.ts";
import type { Candidate, Command, Skipped } from "./types.ts";

/** Karpenter's cap on multi-node consolidation candidates. */
export const MAX_MULTI_NODE_CANDIDATES = 100;

export interface MethodContext extends EvaluationContext {
  readonly ledger: BudgetLedger;
  /** NodeClaims the method looked at and left, with why (Unconsolidatable / DisruptionBlocked). */
  readonly skipped: Skipped[];
  /** Nodes that were blocked by a budget (reported once per pool and reason). */
  readonly budgetBlocked: Skipped[];
}

const budgetBlocker = (c: Candidate, reason: string): Skipped => ({
  nodeClaim: c.nodeClaim,
  node: c.node,
  blocker: { kind: "budget", message: `the NodePool's disruption budget for ${reason} allows no more disruptions now` },
});

/**
 * Karpenter's candidate order for emptiness and consolidation: the highest savings ratio first, price /
 * RescheduleDisruptionCost (an empty node's cost is 1: the most expensive empty node goes first).
 */
export function bySavingsRatio(candidates: readonly Candidate[]): Candidate[] {
  const ratio = (c: Candidate): number => c.pricePerHour / c.rescheduleCost;
  return [...candidates].sort((a, b) => ratio(b) - ratio(a) || a.name.localeCompare(b.name));
}

/**
 * Scheduled-off (kerf extension, kerf.dev/off-schedule): every candidate of a pool off now, empty or not, within the
 * pool's KerfScheduledOff budget, deleted without replacements: the pool launches nothing while off, so its pods
 * wait Pending (or go to another pool) until the window closes. Pod-level blockers (PDBs, do-not-disrupt) hold a node.
 * Empty nodes first, then by savings ratio, as emptiness orders them.
 */
export function scheduledOff(
  ctx: MethodContext,
  candidates: readonly Candidate[],
  offPools: ReadonlySet<string>,
): Command | undefined {
  if (offPools.size === 0) return undefined;
  const chosen: Candidate[] = [];
  const ofOffPools = candidates.filter((c) => offPools.has(c.nodePool));
  const busy = ofOffPools.filter((c) => !isEmpty(c));
  for (const c of [...bySavingsRatio(ofOffPools.filter(isEmpty)), ...bySavingsRatio(busy)]) {
    if (c.podBlocker !== undefined) {
      ctx.skipped.push({ nodeClaim: c.nodeClaim, node: c.node, blocker: c.podBlocker });
    } else if (ctx.ledger.take(c.nodePool, SCHEDULED_OFF_REASON)) {
      chosen.push(c);
    } else {
      ctx.budgetBlocked.push(budgetBlocker(c, SCHEDULED_OFF_REASON));
    }
  }
  if (chosen.length === 0) return undefined;
  const savingsPerHour = chosen.reduce((s, c) => s + c.pricePerHour, 0);
  return {
    method: "scheduled-off",
    reason: SCHEDULED_OFF_REASON,
    decision: "delete",
    candidates: chosen,
    replacements: [],
    savingsPerHour,
  };
}

/** Emptiness: every consolidatable candidate without pods to move, under every policy, within the Empty budget. */
export function emptiness(ctx: MethodContext, candidates: readonly Candidate[]): Command | undefined {
  const chosen: Candidate[] = [];
  for (const c of candidates) {
    const due = isEmpty(c) && (c.consolidatable || c.emptyAfterPassed);
    if (!due || c.podBlocker === undefined) continue;
    ctx.skipped.push({ nodeClaim: c.nodeClaim, node: c.node, blocker: c.podBlocker });
  }
  for (const c of bySavingsRatio(candidates.filter(isEmptyCandidate))) {
    if (ctx.ledger.take(c.nodePool, "Empty")) chosen.push(c);
    else ctx.budgetBlocked.push(budgetBlocker(c, "Empty"));
  }
  if (chosen.length === 0) return undefined;
  const savingsPerHour = chosen.reduce((s, c) => s + c.pricePerHour, 0);
  return {
    method: "emptiness",
    reason: "Empty",
    decision: "delete",
    candidates: chosen,
    replacements: [],
    savingsPerHour,
  };
}

/** Drifted candidates in replacement order: empty first, then the earliest drifted (the Drifted transition). */
export function driftOrder(candidates: readonly Candidate[]): Candidate[] {
  return candidates
    .filter((c) => c.driftReason !== undefined)
    .sort(
      (a, b) =>
        Number(a.pods.length > 0) - Number(b.pods.length > 0) ||
        (a.driftedAt ?? 0) - (b.driftedAt ?? 0) ||
        a.name.localeCompare(b.name),
    );
}

function podsToMove(ctx: EvaluationContext, candidate: Candidate): SimPod[] {
  const node = ctx.snapshot.nodes.find((n) => n.name === candidate.nodeName);
  return (node?.pods ?? []).filter((p) => !ctx.stays.has(p.uid));
}

/**
 * Where a drifted candidate's pods would go without it, and why that cannot be counted on: a pod without
 * a place, or one the simulation puts on a booting node (drift waits for it, as Karpenter's
 * UninitializedNodeError).
 */
function driftSimulation(ctx: MethodContext, c: Candidate): { result: SimulationResult; error?: string | undefined } {
  const moving = podsToMove(ctx, c);
  const compact = ctx.compact.forCandidates(new Set([c.nodeName]), moving);
  const rest = { ...compact, nodes: compact.nodes.filter((n) => n.name !== c.nodeName) };
  const result = simulate(rest, moving, ctx.scheduling);
  return { result, error: result.podErrors[0]?.reason ?? uninitializedPlacement(rest, result) };
}

/**
 * Drift: one NodeClaim per command, replaced by as many new NodeClaims as its pods need (none when
 * they fit elsewhere). Eventual: with a terminationGracePeriod pod-level blockers do not hold it.
 */
export function drift(ctx: MethodContext, candidates: readonly Candidate[]): Command | undefined {
  return boundedDrift(ctx, candidates, { maxEvaluations: Number.POSITIVE_INFINITY }).command;
}

/**
 * Drift with single-node consolidation's bound and resume point: at most `maxEvaluations` simulations
 * per pass, in drift order from after `resumeAfter` (wrapping around); where it stopped when the bound
 * hit, so a rollout of 1,000 drifted nodes that a NodePool limit blocks does not simulate all of them
 * every pass.
 */
export function boundedDrift(
  ctx: MethodContext,
  candidates: readonly Candidate[],
  bound: { readonly maxEvaluations: number; readonly resumeAfter?: string | undefined },
): { command?: Command; stoppedAt?: string } {
  const sorted = driftOrder(candidates);
  const start = sorted.findIndex((c) => c.name === bound.resumeAfter) + 1;
  let evaluations = 0;
  let last: string | undefined;
  for (const c of [...sorted.slice(start), ...sorted.slice(0, start)]) {
    if (c.podBlocker !== undefined && !hasGracePeriod(c.nodeClaim)) {
      ctx.skipped.push({ nodeClaim: c.nodeClaim, node: c.node, blocker: c.podBlocker });
      continue;
    }
    if (ctx.ledger.remaining(c.nodePool, "Drifted") <= 0) {
      ctx.budgetBlocked.push(budgetBlocker(c, "Drifted"));
      continue;
    }
    // The resume point is the last candidate evaluated: the next pass starts with the first one not evaluated.
    if (evaluations >= bound.maxEvaluations) return last === undefined ? {} : { stoppedAt: last };
    evaluations += 1;
    last = c.name;
    const { result, error } = driftSimulation(ctx, c);
    if (error !== undefined) {
      ctx.skipped.push({
        nodeClaim: c.nodeClaim,
        node: c.node,
        blocker: { kind: "unschedulable", message: `its pods cannot be rescheduled: ${error}` },
      });
      continue;
    }
    ctx.ledger.take(c.nodePool, "Drifted");
    const newPrice = result.newClaims.reduce((s, n) => s + n.launch.pricePerHour, 0);
    const decision = result.newClaims.length === 0 ? "delete" : "replace";
    return {
      command: {
        method: "drift",
        reason: "Drifted",
        decision,
        candidates: [c],
        replacements: result.newClaims,
        savingsPerHour: c.pricePerHour - newPrice,
      },
    };
  }
  return {};
}

/**
 * Per pool, an empty node that emptiness will remove once its consolidateAfter has passed (no blocker,
 * not consolidatable yet, the pool's Empty budget open). kerf extension: consolidation of the pool
 * waits for it. Moving another node's pods now would have the kube-scheduler put them on the emptiest
 * node — this one — which then stays: after a scale-down the ReplicaSet empties the node with the most
 * replicas, often the largest and dearest, a few seconds before the others' clocks run out, and
 * consolidating a small node first filled it again (the end-to-end bench kept a $2.08/h node for 30 pods
 * a $0.50/h one held; Karpenter does the same when its clocks fall that way).
 */
function emptyingNodes(ctx: MethodContext, candidates: readonly Candidate[]): Map<string, Candidate> {
  const out = new Map<string, Candidate>();
  const holdsOthers = (n: ExistingNode): boolean => n.pods.some((p) => !ctx.stays.has(p.uid));
  const waitedFor = new Set(ctx.snapshot.nodes.filter(holdsOthers).map((n) => n.name));
  for (const c of candidates) {
    // A pod-level blocker (a DaemonSet pod's do-not-disrupt) keeps it: consolidation must not wait for it.
    if (c.pods.length > 0 || isEmptyCandidate(c) || c.podBlocker !== undefined || c.driftReason !== undefined) continue;
    if (out.has(c.nodePool)) continue;
    // A node pending pods will take (placed there by the pass's scheduling view) is not emptying.
    if (waitedFor.has(c.nodeName) || ctx.ledger.remaining(c.nodePool, "Empty") <= 0) continue;
    out.set(c.nodePool, c);
  }
  return out;
}

/**
 * Candidates consolidation may move: consolidatable, not empty (emptiness alone takes those, under the
 * Empty budget), no pod-level blocker, in a pool that consolidates underutilized nodes and has no node
 * emptying (emptyingNodes); highest savings ratio first.
 */
export function consolidationCandidates(ctx: MethodContext, candidates: readonly Candidate[]): Candidate[] {
  const emptying = emptyingNodes(ctx, candidates);
  return bySavingsRatio(
    candidates.filter((c) => {
      const unpriced = unpriceable(ctx, c);
      if (unpriced !== undefined) {
        ctx.skipped.push({
          nodeClaim: c.nodeClaim,
          node: c.node,
          blocker: { kind: "unconsolidatable", message: unpriced },
        });
        return false;
      }
      if (!c.consolidatable || isEmpty(c) || ctx.policies.get(c.nodePool) === "WhenEmpty") return false;
      if (c.podBlocker !== undefined) {
        ctx.skipped.push({ nodeClaim: c.nodeClaim, node: c.node, blocker: c.podBlocker });
        return false;
      }
      const waiting = emptying.get(c.nodePool);
      if (waiting !== undefined) {
        const message =
          `node ${waiting.nodeName} of the NodePool is empty and goes once its consolidateAfter ` +
          "has passed; pods moved now would land on it";
        ctx.skipped.push({ nodeClaim: c.nodeClaim, node: c.node, blocker: { kind: "unconsolidatable", message } });
        return false;
      }
      return true;
    }),
  );
}

function withinBudgets(ctx: MethodContext, sorted: readonly Candidate[]): Candidate[] {
  const taken = new Map<string, number>();
  const out: Candidate[] = [];
  for (const c of sorted) {
    if (out.length >= MAX_MULTI_NODE_CANDIDATES) break;
    const used = taken.get(c.nodePool) ?? 0;
    if (used >= ctx.ledger.remaining(c.nodePool, "Underutilized")) {
      ctx.budgetBlocked.push(budgetBlocker(c, "Underutilized"));
      continue;
    }
    taken.set(c.nodePool, used + 1);
    out.push(c);
  }
  return out;
}

function toCommand(
  method: Command["method"],
  chosen: readonly Candidate[],
  e: Extract<ReturnType<typeof evaluate>, { ok: true }>,
): Command {
  return {
    method,
    reason: "Underutilized",
    decision: e.decision,
    candidates: chosen,
    replacements: e.replacement === undefined ? [] : [e.replacement],
    savingsPerHour: e.savingsPerHour,
  };
}

/**
 * Multi-node: the largest prefix (≤ 100, within budgets) whose pods fit the rest plus at most
 * one cheaper node; binary search.
 */
export function multiNode(ctx: MethodContext, sorted: readonly Candidate[]): Command | undefined {
  const pool = withinBudgets(ctx, sorted);
  let lo = 2;
  let hi = pool.length;
  let best: Command | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const prefix = pool.slice(0, mid);
    const e = evaluate(ctx, prefix);
    if (e.ok) {
      best = toCommand("multi-node-consolidation", prefix, e);
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

/**
 * Single-node: candidates one at a time in order, from `resumeAfter` on, at most `maxEvaluations` of
 * them; the first that can be deleted or replaced wins. Returns where it stopped when the bound hit.
 */
export function singleNode(
  ctx: MethodContext,
  sorted: readonly Candidate[],
  bound: { readonly maxEvaluations: number; readonly resumeAfter?: string | undefined },
): { command?: Command; stoppedAt?: string } {
  const start = sorted.findIndex((c) => c.name === bound.resumeAfter) + 1;
  const order = [...sorted.slice(start), ...sorted.slice(0, start)];
  let evaluations = 0;
  let last: string | undefined;
  for (const c of order) {
    // The resume point is the last candidate evaluated, so the next pass starts with the first one not
    // evaluated (naming that one made the next pass skip it until the round after).
    if (evaluations >= bound.maxEvaluations) return last === undefined ? {} : { stoppedAt: last };
    if (ctx.ledger.remaining(c.nodePool, "Underutilized") <= 0) {
      ctx.budgetBlocked.push(budgetBlocker(c, "Underutilized"));
      continue;
    }
    // Karpenter's CanPassThreshold: a node whose deletion would fail its pool's Balanced score is not evaluated.
    if (!canPassBalanced(ctx, c)) continue;
    evaluations += 1;
    last = c.name;
    const e = evaluate(ctx, [c]);
    if (e.ok) {
      ctx.ledger.take(c.nodePool, "Underutilized");
      return { command: toCommand("single-node-consolidation", [c], e) };
    }
    ctx.skipped.push({
      nodeClaim: c.nodeClaim,
      node: c.node,
      blocker: { kind: "unconsolidatable", message: e.reason },
    });
  }
  return {};
}

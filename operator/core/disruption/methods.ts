/**
 * The disruption methods (behaviour §4.4–4.6, §4.10), each a pure function from the pass's
 * candidates to at most one command. Budgets are spent from a ledger, so a method never plans more
 * disruptions of a pool than its budget for the method's reason allows.
 */
import { simulate } from "../scheduling/simulate.ts";
import type { SimPod } from "../scheduling/types.ts";
import { evaluate, type EvaluationContext } from "./consolidation.ts";
import { hasGracePeriod, isEmptyCandidate } from "./candidates.ts";
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
  nodeClaim: c.nodeClaim, node: c.node, blocker: { kind: "budget", message: `the NodePool's disruption budget for ${reason} allows no more disruptions now` },
});

/** Emptiness: every consolidatable candidate without pods to move, under every policy, within the Empty budget. */
export function emptiness(ctx: MethodContext, candidates: readonly Candidate[]): Command | undefined {
  const chosen: Candidate[] = [];
  for (const c of candidates.filter(isEmptyCandidate)) {
    if (ctx.ledger.take(c.nodePool, "Empty")) chosen.push(c); else ctx.budgetBlocked.push(budgetBlocker(c, "Empty"));
  }
  if (chosen.length === 0) return undefined;
  const savingsPerHour = chosen.reduce((s, c) => s + c.pricePerHour, 0);
  return { method: "emptiness", reason: "Empty", decision: "delete", candidates: chosen, replacements: [], savingsPerHour };
}

/** Drifted candidates in replacement order: empty first, then the oldest. */
export function driftOrder(candidates: readonly Candidate[]): Candidate[] {
  return candidates.filter((c) => c.driftReason !== undefined)
    .sort((a, b) => Number(a.pods.length > 0) - Number(b.pods.length > 0) || a.createdAt - b.createdAt || a.name.localeCompare(b.name));
}

function podsToMove(ctx: EvaluationContext, candidate: Candidate): SimPod[] {
  const node = ctx.snapshot.nodes.find((n) => n.name === candidate.nodeName);
  return (node?.pods ?? []).filter((p) => !ctx.stays.has(p.uid));
}

/**
 * Drift: one NodeClaim per command, replaced by as many new NodeClaims as its pods need (none when
 * they fit elsewhere). Eventual: with a terminationGracePeriod pod-level blockers do not hold it.
 */
export function drift(ctx: MethodContext, candidates: readonly Candidate[]): Command | undefined {
  for (const c of driftOrder(candidates)) {
    if (c.podBlocker !== undefined && !hasGracePeriod(c.nodeClaim)) { ctx.skipped.push({ nodeClaim: c.nodeClaim, node: c.node, blocker: c.podBlocker }); continue; }
    if (ctx.ledger.remaining(c.nodePool, "Drifted") <= 0) { ctx.budgetBlocked.push(budgetBlocker(c, "Drifted")); continue; }
    const moving = podsToMove(ctx, c);
    const compact = ctx.compact.forCandidates(new Set([c.nodeName]), moving);
    const result = simulate({ ...compact, nodes: compact.nodes.filter((n) => n.name !== c.nodeName) }, moving, ctx.scheduling);
    const error = result.podErrors[0];
    if (error !== undefined) {
      ctx.skipped.push({ nodeClaim: c.nodeClaim, node: c.node, blocker: { kind: "unschedulable", message: `its pods cannot be rescheduled: ${error.reason}` } });
      continue;
    }
    ctx.ledger.take(c.nodePool, "Drifted");
    const newPrice = result.newClaims.reduce((s, n) => s + n.launch.pricePerHour, 0);
    return { method: "drift", reason: "Drifted", decision: result.newClaims.length === 0 ? "delete" : "replace", candidates: [c], replacements: result.newClaims, savingsPerHour: c.pricePerHour - newPrice };
  }
  return undefined;
}

/** Candidates consolidation may move: consolidatable, no pod-level blocker, in a pool that consolidates underutilized nodes. */
export function consolidationCandidates(ctx: MethodContext, candidates: readonly Candidate[]): Candidate[] {
  return candidates.filter((c) => {
    if (!c.consolidatable || ctx.policies.get(c.nodePool) === "WhenEmpty") return false;
    if (c.podBlocker !== undefined) { ctx.skipped.push({ nodeClaim: c.nodeClaim, node: c.node, blocker: c.podBlocker }); return false; }
    return true;
  }).sort((a, b) => b.pricePerHour / (1 + b.disruptionCost) - a.pricePerHour / (1 + a.disruptionCost) || a.name.localeCompare(b.name));
}

function withinBudgets(ctx: MethodContext, sorted: readonly Candidate[]): Candidate[] {
  const taken = new Map<string, number>();
  const out: Candidate[] = [];
  for (const c of sorted) {
    if (out.length >= MAX_MULTI_NODE_CANDIDATES) break;
    const used = taken.get(c.nodePool) ?? 0;
    if (used >= ctx.ledger.remaining(c.nodePool, "Underutilized")) { ctx.budgetBlocked.push(budgetBlocker(c, "Underutilized")); continue; }
    taken.set(c.nodePool, used + 1);
    out.push(c);
  }
  return out;
}

function toCommand(method: Command["method"], chosen: readonly Candidate[], e: Extract<ReturnType<typeof evaluate>, { ok: true }>): Command {
  return { method, reason: "Underutilized", decision: e.decision, candidates: chosen, replacements: e.replacement === undefined ? [] : [e.replacement], savingsPerHour: e.savingsPerHour };
}

/** Multi-node: the largest prefix (≤ 100, within budgets) whose pods fit the rest plus at most one cheaper node; binary search. */
export function multiNode(ctx: MethodContext, sorted: readonly Candidate[]): Command | undefined {
  const pool = withinBudgets(ctx, sorted);
  let lo = 2;
  let hi = pool.length;
  let best: Command | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const prefix = pool.slice(0, mid);
    const e = evaluate(ctx, prefix);
    if (e.ok) { best = toCommand("multi-node-consolidation", prefix, e); lo = mid + 1; } else hi = mid - 1;
  }
  return best;
}

/**
 * Single-node: candidates one at a time in order, from `resumeAfter` on, at most `maxEvaluations` of
 * them; the first that can be deleted or replaced wins. Returns where it stopped when the bound hit.
 */
export function singleNode(ctx: MethodContext, sorted: readonly Candidate[], bound: { readonly maxEvaluations: number; readonly resumeAfter?: string | undefined }): { command?: Command; stoppedAt?: string } {
  const start = sorted.findIndex((c) => c.name === bound.resumeAfter) + 1;
  const order = [...sorted.slice(start), ...sorted.slice(0, start)];
  let evaluations = 0;
  for (const c of order) {
    if (evaluations >= bound.maxEvaluations) return { stoppedAt: c.name };
    if (ctx.ledger.remaining(c.nodePool, "Underutilized") <= 0) { ctx.budgetBlocked.push(budgetBlocker(c, "Underutilized")); continue; }
    evaluations += 1;
    const e = evaluate(ctx, [c]);
    if (e.ok) { ctx.ledger.take(c.nodePool, "Underutilized"); return { command: toCommand("single-node-consolidation", [c], e) }; }
    ctx.skipped.push({ nodeClaim: c.nodeClaim, node: c.node, blocker: { kind: "unconsolidatable", message: e.reason } });
  }
  return {};
}

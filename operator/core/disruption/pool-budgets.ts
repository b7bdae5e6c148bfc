/**
 * Budgets per NodePool and reason (api §8, behaviour §4.9; KerfScheduledOff for pools off now): the minimum over
 * active budgets
 * (policies/domain/budgets.ts, shared with the webhook), less the pool's nodes already disrupting
 * (deleting, NotReady, tainted karpenter.sh/disrupted, or in a command being executed).
 */
import {
  allowedDisruptions,
  BUDGET_TIMEZONE_ANNOTATION,
  DISRUPTION_REASONS,
  SCHEDULED_OFF_REASON,
  type BudgetSpec,
  type DisruptionReason,
} from "../../../policies/domain/budgets.ts";
import { poolOffState } from "../../../policies/domain/off-schedule.ts";
import { Label } from "../../../policies/domain/labels.ts";
import { DRIFT_ROLLOUT_ANNOTATION } from "../../../policies/domain/drift-waves.ts";
import type { Meta, Node, NodeClaim, Pod } from "../lifecycle/objects.ts";
import { isTrue } from "../lifecycle/objects.ts";
import { Keys } from "../lifecycle/registration.ts";
import { driftWaves, type DriftWaves } from "./drift-waves.ts";
import type { PoolBudget } from "./types.ts";

export interface PoolObject {
  readonly metadata?: Meta | undefined;
  readonly spec?: Readonly<Record<string, unknown>> | undefined;
}

export interface BudgetInput {
  readonly now: Date;
  readonly nodePools: readonly PoolObject[];
  readonly nodeClaims: readonly NodeClaim[];
  readonly nodes: readonly Node[];
  readonly inFlight: ReadonlySet<string>;
  /** The cluster's pods: a drift rollout in waves waits for a wave's pods to run (drift-waves.ts). */
  readonly pods?: readonly Pod[] | undefined;
}

/** The pool's budgets as written (undefined: the API default applies). */
export function budgetsOf(pool: PoolObject): readonly BudgetSpec[] | undefined {
  const disruption = pool.spec?.["disruption"] as { budgets?: unknown } | undefined;
  return Array.isArray(disruption?.budgets) ? (disruption.budgets as BudgetSpec[]) : undefined;
}

/** The pool's schedule time zone (kerf.dev/budget-timezone), UTC without it. */
export function timeZoneOf(pool: PoolObject): string | undefined {
  return pool.metadata?.annotations?.[BUDGET_TIMEZONE_ANNOTATION];
}

function nodeDisrupting(node: Node): boolean {
  if (!isTrue(node.status?.conditions, "Ready") || node.metadata?.deletionTimestamp !== undefined) return true;
  return (node.spec?.taints ?? []).some((t) => t.key === Keys.disruptedTaint);
}

function disrupting(claim: NodeClaim, node: Node | undefined, inFlight: ReadonlySet<string>): boolean {
  if (claim.metadata?.deletionTimestamp !== undefined || inFlight.has(claim.metadata?.name ?? "")) return true;
  return node !== undefined && nodeDisrupting(node);
}

/** Allowed disruptions for every pool and reason. */
export function poolBudgets(input: BudgetInput): PoolBudget[] {
  const nodeByProvider = new Map(input.nodes.map((n) => [n.spec?.providerID ?? "", n]));
  const out: PoolBudget[] = [];
  for (const pool of input.nodePools) {
    const name = pool.metadata?.name ?? "";
    const claims = input.nodeClaims.filter((c) => c.metadata?.labels?.[Label.nodePool] === name);
    // Managed, initialized nodes whose instance is not already terminating, as Karpenter's NodePoolStats:
    // a NodeClaim with InstanceTerminating=True is neither in the base of percentages nor disrupting (its
    // instance is on its way out, so a budget of 1 lets the next node go). A booting node is NotReady but
    // not disrupting: only initialized NodeClaims count.
    const counted = claims.filter(
      (c) => isTrue(c.status?.conditions, "Initialized") && !isTrue(c.status?.conditions, "InstanceTerminating"),
    );
    const busy = counted.filter((c) =>
      disrupting(c, nodeByProvider.get(c.status?.providerID ?? ""), input.inFlight),
    ).length;
    const waves = driftWaves({ pool, claims, nodes: input.nodes, pods: input.pods, inFlight: input.inFlight });
    // kerf's KerfScheduledOff only where it can act: a pool off now under kerf.dev/off-schedule.
    const off = poolOffState(pool.metadata?.annotations, input.now)?.off === true;
    const reasons: readonly DisruptionReason[] = off
      ? [...DISRUPTION_REASONS, SCHEDULED_OFF_REASON]
      : DISRUPTION_REASONS;
    for (const reason of reasons) {
      const budget = allowedDisruptions(budgetsOf(pool), reason, counted.length, input.now, timeZoneOf(pool));
      const allowed = Math.max(budget.allowed - busy, 0);
      if (reason === "Drifted" && waves !== undefined && waves.startable < allowed) {
        out.push({
          nodePool: name,
          reason,
          nodes: counted.length,
          disrupting: busy,
          allowed: waves.startable,
          explanation: waveExplanation(waves),
        });
        continue;
      }
      out.push({
        nodePool: name,
        reason,
        nodes: counted.length,
        disrupting: busy,
        allowed,
        explanation: budget.explanation,
      });
    }
  }
  return out;
}

/** Why a rollout in waves starts no more now (or only some), as the Drifted budget's explanation. */
export function waveExplanation(w: DriftWaves): string {
  const head =
    `${DRIFT_ROLLOUT_ANNOTATION}: wave ${w.wave} of ${w.size} ` +
    `node${w.size === 1 ? "" : "s"}, ${w.settled} settled`;
  return w.startable === 0
    ? `${head}, ${w.inProgress} being replaced; the next starts once they are Initialized with their pods Running`
    : `${head}: ${w.startable} more may start`;
}

/** A mutable view of what is left to spend in this pass. */
export class BudgetLedger {
  private readonly left = new Map<string, number>();

  constructor(budgets: readonly PoolBudget[]) {
    for (const b of budgets) this.left.set(`${b.nodePool}/${b.reason}`, b.allowed);
  }

  remaining(pool: string, reason: DisruptionReason): number {
    return this.left.get(`${pool}/${reason}`) ?? 0;
  }

  /** Takes one; false (and nothing taken) when the budget is spent. */
  take(pool: string, reason: DisruptionReason): boolean {
    const n = this.remaining(pool, reason);
    if (n <= 0) return false;
    this.left.set(`${pool}/${reason}`, n - 1);
    return true;
  }
}

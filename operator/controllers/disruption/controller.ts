/**
 * The disruption controller (behaviour §4.1) on the leader: every pass — every 10 s, at once after a
 * command starts, and when a NodeClaim is gone (its budget is free again: a scale-down that takes
 * several nodes one at a time moves on without waiting for the tick) — removes stale disruption
 * marks a crash left behind, computes the plan (core/disruption/plan.ts), publishes metrics and the
 * Events that say why nodes are not disrupted, and hands the command, if any, to the orchestrator.
 */
import { DISRUPTION_REASONS } from "../../../policies/domain/budgets.ts";
import { planDisruption, type DisruptionInput } from "../../core/disruption/plan.ts";
import type { Command, DisruptionPlan, Skipped } from "../../core/disruption/types.ts";
import { revalidate } from "../../core/disruption/validation.ts";
import type { Node, NodeClaim } from "../../core/lifecycle/objects.ts";
import type { SimulateOptions } from "../../core/scheduling/types.ts";
import { disruptionBlocked, unconsolidatable } from "../../observability/events.ts";
import type { NodeClaimDeps } from "../nodeclaim/deps.ts";
import { instanceTypesByPool } from "../provisioning/provisioner.ts";
import type { Result } from "../runtime.ts";
import type { Nominations } from "./nominations.ts";
import { clearReason, decisionLabels, DISRUPTED_TAINT, DISRUPTION_REASON_CONDITION, Orchestrator, untaint } from "./orchestrator.ts";

/** Disruption settings (Karpenter's constants, overridable for tests). */
export interface DisruptionSettings {
  readonly pollMs: number;
  readonly validationDelayMs: number;
  readonly replacementTimeoutMs: number;
  readonly spotToSpot: boolean;
  readonly maxSingleNodeEvaluations?: number;
}

export const DEFAULT_DISRUPTION_SETTINGS: DisruptionSettings = { pollMs: 10_000, validationDelayMs: 15_000, replacementTimeoutMs: 10 * 60_000, spotToSpot: false };

export interface DisruptionDeps extends NodeClaimDeps {
  readonly nominations: Nominations;
  readonly settings: DisruptionSettings;
  /** The provisioner's scheduling options, so drift replaces as provisioning would launch. */
  readonly scheduling?: SimulateOptions;
}

function describe(command: Command): Record<string, unknown> {
  return {
    reason: command.reason, method: command.method, decision: command.decision, savingsPerHour: Number(command.savingsPerHour.toFixed(4)),
    candidates: command.candidates.map((c) => `${c.name}/${c.instanceType}/${c.capacityType}/${c.zone} (${c.pods.length} pods)`),
    replacements: command.replacements.map((r) => `${r.launch.instanceType}/${r.launch.capacityType}/${r.launch.zone} (${r.pods.length} pods, ${r.instanceTypes.length} options)`),
  };
}

/** A live node still carrying the taint (a node being deleted keeps it: termination put it there). */
const hasDisruptedTaint = (node: Node): boolean => node.metadata?.deletionTimestamp === undefined && (node.spec?.taints ?? []).some((t) => t.key === DISRUPTED_TAINT.key);
const hasReasonCondition = (claim: NodeClaim): boolean => (claim.status?.conditions ?? []).some((c) => c.type === DISRUPTION_REASON_CONDITION);

export class DisruptionController {
  private readonly deps: DisruptionDeps;
  private readonly orchestrator: Orchestrator;
  private resumeAfter: string | undefined;

  constructor(deps: DisruptionDeps) {
    this.deps = deps;
    this.orchestrator = new Orchestrator({
      cluster: deps.cluster, clock: deps.clock, events: deps.events, metrics: deps.metrics, logger: deps.logger,
      validationDelayMs: deps.settings.validationDelayMs, replacementTimeoutMs: deps.settings.replacementTimeoutMs,
      revalidate: async (command, own) => {
        const input = await this.input();
        return revalidate({ ...input, inFlight: new Set([...input.inFlight].filter((n) => !own.has(n))) }, command);
      },
    });
  }

  /** One pass. */
  async reconcile(signal: AbortSignal): Promise<Result> {
    if (!this.deps.cluster.synced) return { requeueAfter: 1000 };
    if (await this.cleanStaleMarks()) return { requeueAfter: 1000 };
    const input = await this.input();
    const started = performance.now();
    const plan = planDisruption(input);
    this.deps.metrics.disruptionEvaluationDuration.observe({ method: plan.method ?? "", consolidation_type: "" }, (performance.now() - started) / 1000);
    this.resumeAfter = plan.resumeAfter;
    if (plan.resumeAfter !== undefined) this.deps.metrics.disruptionConsolidationTimeouts.inc({ consolidation_type: "single" });
    this.report(plan);
    if (plan.command === undefined || signal.aborted) return { requeueAfter: this.deps.settings.pollMs };
    this.deps.logger.info(describe(plan.command), "disrupting node(s)");
    void this.orchestrator.start(plan.command, signal).catch((error: unknown) => this.deps.logger.error({ err: error, ...decisionLabels(plan.command as Command) }, "disruption command"));
    return { requeueAfter: 0 };
  }

  /** What the pure plan reads, from the caches now. */
  private async input(): Promise<DisruptionInput> {
    const cluster = this.deps.cluster.snapshot();
    return {
      now: this.deps.clock.now(), cluster, instanceTypes: await instanceTypesByPool(this.deps, cluster.nodePools),
      nominated: this.deps.nominations.active(), pending: this.deps.cluster.pendingPods(), inFlight: this.orchestrator.names(), spotToSpot: this.deps.settings.spotToSpot,
      ...(this.deps.settings.maxSingleNodeEvaluations === undefined ? {} : { maxSingleNodeEvaluations: this.deps.settings.maxSingleNodeEvaluations }),
      resumeAfter: this.resumeAfter, ...(this.deps.scheduling === undefined ? {} : { scheduling: this.deps.scheduling }),
    };
  }

  /**
   * Removes karpenter.sh/disrupted taints and DisruptionReason conditions that no running command
   * owns (a crash or a leadership change mid-command); NodeClaims being deleted keep theirs.
   * Answers whether it wrote anything.
   */
  private async cleanStaleMarks(): Promise<boolean> {
    const inFlight = this.orchestrator.names();
    const stale = this.deps.cluster.nodeClaims().filter((c) => c.metadata?.deletionTimestamp === undefined && !inFlight.has(c.metadata?.name ?? ""));
    let wrote = false;
    for (const claim of stale) wrote = (await this.cleanOne(claim)) || wrote;
    return wrote;
  }

  private async cleanOne(claim: NodeClaim): Promise<boolean> {
    const node = this.deps.cluster.nodeByProviderID(claim.status?.providerID ?? "");
    const tainted = node !== undefined && hasDisruptedTaint(node);
    const marked = hasReasonCondition(claim);
    if (!tainted && !marked) return false;
    this.deps.logger.info({ nodeclaim: claim.metadata?.name, tainted, marked }, "removing a stale disruption mark");
    if (tainted) await untaint(this.deps.cluster, node);
    if (marked) await clearReason(this.deps.cluster, claim);
    return true;
  }

  private report(plan: DisruptionPlan): void {
    const { metrics, events } = this.deps;
    for (const reason of DISRUPTION_REASONS) metrics.disruptionEligibleNodes.set({ reason: reason.toLowerCase() }, plan.eligible[reason]);
    for (const b of plan.budgets) {
      metrics.nodePoolAllowedDisruptions.set({ nodepool: b.nodePool, reason: b.reason.toLowerCase() }, b.allowed);
      const pool = this.deps.cluster.nodePool(b.nodePool);
      if (b.allowed === 0 && b.nodes > 0 && pool !== undefined) {
        events.publish(disruptionBlocked("NodePool", pool, `No allowed disruptions for disruption reason ${b.reason} due to blocking budget (${b.explanation}; ${b.disrupting} disrupting)`));
      }
    }
    for (const s of plan.blocked) this.publishSkipped(s, "blocked");
    for (const s of plan.unconsolidatable) this.publishSkipped(s, s.blocker.kind === "unconsolidatable" || s.blocker.kind === "unschedulable" ? "unconsolidatable" : "blocked");
  }

  private publishSkipped(s: Skipped, as: "blocked" | "unconsolidatable"): void {
    if (s.blocker.kind === "not-initialized") return;
    const event = as === "blocked" ? disruptionBlocked : unconsolidatable;
    this.deps.events.publish(event("NodeClaim", s.nodeClaim, s.blocker.message));
    if (s.node !== undefined) this.deps.events.publish(event("Node", s.node, s.blocker.message));
  }
}

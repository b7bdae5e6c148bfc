/**
 * The disruption controller (behaviour §4.1) on the leader: every pass — every 10 s, at once after a
 * command starts, and when a NodeClaim is gone (its budget is free again: a scale-down that takes
 * several nodes one at a time moves on without waiting for the tick) — removes stale disruption
 * marks a crash left behind, computes the plan (core/disruption/plan.ts), publishes metrics and the
 * Events that say why nodes are not disrupted, and hands the command, if any, to the orchestrator.
 */
import { DISRUPTION_REASONS, SCHEDULED_OFF_REASON } from "../../../policies/domain/budgets.ts";
import { recoveries } from "../../core/disruption/intent.ts";
import { afterPass, nextTimeChange, roundDone, skipPass, type FruitlessPass } from "../../core/disruption/pass-gate.ts";
import { DEFAULT_MAX_SINGLE_NODE_EVALUATIONS, type DisruptionInput } from "../../core/disruption/plan.ts";
import type { Command, DisruptionPlan, Skipped } from "../../core/disruption/types.ts";
import type { Node, NodeClaim } from "../../core/lifecycle/objects.ts";
import type { SimulateOptions } from "../../core/scheduling/types.ts";
import {
  disruptionBlocked,
  invalidDoNotDisruptAnnotation,
  nodePoolDisruptionBlocked,
  unconsolidatable,
} from "../../observability/events.ts";
import type { NodeClaimDeps } from "../nodeclaim/deps.ts";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { instanceTypesByPool } from "../provisioning/provisioner.ts";
import { isStatic } from "../../core/nodepool/static.ts";
import { takesPart, type NodePoolObject } from "../../core/provisioning/plan.ts";
import type { Result } from "../runtime.ts";
import type { Nominations } from "./nominations.ts";
import { PlannerThread, PlannerThreadError, type Planner, type PlanResult } from "./planner.ts";
import { clearReason, DISRUPTED_TAINT, DISRUPTION_REASON_CONDITION, untaint } from "./marks.ts";
import { decisionLabels, Orchestrator } from "./orchestrator.ts";

/** Disruption settings (Karpenter's constants, overridable for tests). */
export interface DisruptionSettings {
  readonly pollMs: number;
  readonly validationDelayMs: number;
  readonly replacementTimeoutMs: number;
  readonly spotToSpot: boolean;
  readonly maxSingleNodeEvaluations?: number;
}

/** How often a pass held back by a command's validation looks again. */
const VALIDATION_POLL_MS = 250;

export const DEFAULT_DISRUPTION_SETTINGS: DisruptionSettings = {
  pollMs: 10_000,
  validationDelayMs: 15_000,
  replacementTimeoutMs: 10 * 60_000,
  spotToSpot: false,
};

export interface DisruptionDeps extends NodeClaimDeps {
  /** The evaluated NodeOverlays (gate on): consolidation prices and drift replacements use decorated types. */
  readonly overlays?:
    { apply(pool: string, types: readonly InstanceType[]): readonly InstanceType[] | undefined } | undefined;
  readonly nominations: Nominations;
  readonly settings: DisruptionSettings;
  /** The provisioner's scheduling options, so drift replaces as provisioning would launch. */
  readonly scheduling?: SimulateOptions;
  /** Where passes are planned; a worker thread (PlannerThread) by default. */
  readonly planner?: Planner;
}

function describe(command: Command): Record<string, unknown> {
  return {
    reason: command.reason,
    method: command.method,
    decision: command.decision,
    savingsPerHour: Number(command.savingsPerHour.toFixed(4)),
    candidates: command.candidates.map(
      (c) => `${c.name}/${c.instanceType}/${c.capacityType}/${c.zone} (${c.pods.length} pods)`,
    ),
    replacements: command.replacements.map(
      (r) =>
        `${r.launch.instanceType}/${r.launch.capacityType}/${r.launch.zone} ` +
        `(${r.pods.length} pods, ${r.instanceTypes.length} options)`,
    ),
  };
}

/** The pools whose instance types a pass reads: those taking part in provisioning, and static ones (StaticDrift). */
const withStaticPools = (pool: NodePoolObject): boolean =>
  takesPart(pool) || (isStatic(pool) && pool.metadata?.deletionTimestamp === undefined);

/** A live node still carrying the taint (a node being deleted keeps it: termination put it there). */
const hasDisruptedTaint = (node: Node): boolean =>
  node.metadata?.deletionTimestamp === undefined &&
  (node.spec?.taints ?? []).some((t) => t.key === DISRUPTED_TAINT.key);
const hasReasonCondition = (claim: NodeClaim): boolean =>
  (claim.status?.conditions ?? []).some((c) => c.type === DISRUPTION_REASON_CONDITION);

export class DisruptionController {
  private readonly deps: DisruptionDeps;
  private readonly orchestrator: Orchestrator;
  private resumeAfter: string | undefined;
  private driftResumeAfter: string | undefined;
  private readonly planner: Planner;
  /** The last pass that found nothing to do (the skipped-pass gate, core/disruption/pass-gate.ts). */
  private fruitless: FruitlessPass | undefined;
  /** Consecutive passes at one digest that found nothing (a round over bounded candidates, roundDone). */
  private streak: { readonly digest: string; readonly passes: number } | undefined;
  /** Whether the eligible-nodes gauge has a KerfScheduledOff series (kept at 0 once set, absent until then). */
  private offSeries = false;

  constructor(deps: DisruptionDeps) {
    this.deps = deps;
    this.planner = deps.planner ?? new PlannerThread({ logger: deps.logger, objects: deps.cluster });
    this.orchestrator = new Orchestrator({
      cluster: deps.cluster,
      clock: deps.clock,
      events: deps.events,
      metrics: deps.metrics,
      logger: deps.logger,
      validationDelayMs: deps.settings.validationDelayMs,
      replacementTimeoutMs: deps.settings.replacementTimeoutMs,
      nominated: () => deps.nominations.active(),
      revalidate: async (command, own) => {
        const input = await this.input();
        const inFlight = new Set([...input.inFlight].filter((n) => !own.has(n)));
        return this.planner.revalidate({ ...input, inFlight }, command);
      },
    });
  }

  /**
   * Plans the pass off the event loop, or answers undefined when the pass is skipped: nothing it
   * reads changed since the last fruitless pass (re-armed every 5 minutes and when time alone flips
   * an input). A dead planner thread is logged by the planner; the pass is retried soon.
   */
  private async planned(input: DisruptionInput): Promise<PlanResult | "skipped" | "retry"> {
    try {
      const digest = await this.planner.sync(input);
      const now = input.now.getTime();
      if (skipPass(this.fruitless, digest, now)) return "skipped";
      const result = await this.planner.plan(input);
      this.recordPass(result.plan, digest, input);
      return result;
    } catch (error) {
      if (error instanceof PlannerThreadError) return "retry";
      throw error;
    }
  }

  /**
   * Feeds the skipped-pass gate: a pass that found nothing is fruitless once the passes at its digest
   * have looked at every bounded candidate (a pass that stopped at a bound leaves more for the next).
   */
  private recordPass(plan: DisruptionPlan, digest: string, input: DisruptionInput): void {
    const now = input.now.getTime();
    const { command, resumeAfter, driftResumeAfter } = plan;
    const passes = this.streak?.digest === digest ? this.streak.passes + 1 : 1;
    this.streak = command === undefined ? { digest, passes } : undefined;
    const bound = this.deps.settings.maxSingleNodeEvaluations ?? DEFAULT_MAX_SINGLE_NODE_EVALUATIONS;
    const candidates = { consolidating: plan.eligible.Underutilized, drifted: plan.eligible.Drifted };
    const stopped = resumeAfter !== undefined || driftResumeAfter !== undefined;
    const fruitless = command === undefined && roundDone(stopped, passes, candidates, bound);
    this.fruitless = afterPass(fruitless, digest, now, fruitless ? nextTimeChange(input.cluster, now) : undefined);
  }

  /** Ends the planner thread (the operator is stopping). */
  close(): Promise<void> {
    return this.planner.close();
  }

  /** One pass. */
  async reconcile(signal: AbortSignal): Promise<Result> {
    if (!this.deps.cluster.synced) {
      this.planner.warm();
      return { requeueAfter: 1000 };
    }
    // Karpenter's loop waits out a command's validation before it plans the next (one per 15 s).
    if (this.orchestrator.validating()) return { requeueAfter: VALIDATION_POLL_MS };
    if (await this.cleanStaleMarks(signal)) return { requeueAfter: 1000 };
    const input = await this.input();
    const started = performance.now();
    const result = await this.planned(input);
    if (result === "skipped") return { requeueAfter: this.deps.settings.pollMs };
    if (result === "retry") return { requeueAfter: 1000 };
    const { plan } = result;
    // Karpenter labels the evaluation by the chosen method's reason and consolidation type ("" when none was chosen).
    const evaluated =
      plan.command === undefined ? { reason: "", consolidation_type: "" } : decisionLabels(plan.command);
    this.deps.metrics.disruptionEvaluationDuration.observe(
      { reason: evaluated.reason, consolidation_type: evaluated.consolidation_type },
      (performance.now() - started) / 1000,
    );
    this.resumeAfter = plan.resumeAfter;
    this.driftResumeAfter = plan.driftResumeAfter;
    if (plan.resumeAfter !== undefined)
      this.deps.metrics.disruptionConsolidationTimeouts.inc({ consolidation_type: "single" });
    this.report(plan);
    if (plan.command === undefined || signal.aborted) return { requeueAfter: this.deps.settings.pollMs };
    this.deps.logger.info(describe(plan.command), "disrupting node(s)");
    void this.orchestrator
      .start(plan.command, signal)
      .catch((error: unknown) =>
        this.deps.logger.error({ err: error, ...decisionLabels(plan.command as Command) }, "disruption command"),
      );
    return { requeueAfter: 0 };
  }

  /** What the pure plan reads, from the caches now. */
  private async input(): Promise<DisruptionInput> {
    const cluster = this.deps.cluster.snapshot();
    return {
      now: this.deps.clock.now(),
      cluster,
      instanceTypes: await instanceTypesByPool(this.deps, cluster.nodePools, withStaticPools),
      nominated: this.deps.nominations.active(),
      pending: this.deps.cluster.pendingPods(),
      inFlight: this.orchestrator.names(),
      spotToSpot: this.deps.settings.spotToSpot,
      ...(this.deps.settings.maxSingleNodeEvaluations === undefined
        ? {}
        : { maxSingleNodeEvaluations: this.deps.settings.maxSingleNodeEvaluations }),
      resumeAfter: this.resumeAfter,
      driftResumeAfter: this.driftResumeAfter,
      ...(this.deps.scheduling === undefined ? {} : { scheduling: this.deps.scheduling }),
    };
  }

  /**
   * Takes over the commands a previous leader recorded on NodeClaims and did not finish (resumed in
   * the background, or abandoned now), then removes karpenter.sh/disrupted taints and
   * DisruptionReason conditions that no running command owns (a crash or a leadership change
   * mid-command); NodeClaims being deleted keep theirs. Answers whether it wrote anything.
   */
  private async cleanStaleMarks(signal: AbortSignal): Promise<boolean> {
    const found = recoveries(this.deps.cluster.nodeClaims(), this.orchestrator.commandIds());
    for (const recovery of found) {
      const task = this.orchestrator
        .recover(recovery, signal)
        .catch((error: unknown) =>
          this.deps.logger.warn(
            { err: error, command: recovery.intent.id },
            "taking over a recorded disruption command; retried next pass",
          ),
        );
      // A resumed command runs as a task (its candidates are in flight at once); the others finish here.
      if (recovery.kind !== "resume") await task;
    }
    if (found.some((r) => r.kind !== "resume")) return true;
    const inFlight = this.orchestrator.names();
    const stale = this.deps.cluster
      .nodeClaims()
      .filter((c) => c.metadata?.deletionTimestamp === undefined && !inFlight.has(c.metadata?.name ?? ""));
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

  private reportEligible(plan: DisruptionPlan): void {
    const gauge = this.deps.metrics.disruptionEligibleNodes;
    for (const reason of DISRUPTION_REASONS) gauge.set({ reason: reason.toLowerCase() }, plan.eligible[reason]);
    // kerf's reason gets a series only once a pool is off under kerf.dev/off-schedule: opt-in, as the extension is.
    this.offSeries ||= plan.budgets.some((b) => b.reason === SCHEDULED_OFF_REASON);
    if (this.offSeries) gauge.set({ reason: SCHEDULED_OFF_REASON.toLowerCase() }, plan.eligible[SCHEDULED_OFF_REASON]);
  }

  private report(plan: DisruptionPlan): void {
    const { metrics, events } = this.deps;
    this.reportEligible(plan);
    for (const b of plan.budgets) {
      metrics.nodePoolAllowedDisruptions.set({ nodepool: b.nodePool, reason: b.reason.toLowerCase() }, b.allowed);
      metrics.nodePoolNodesConsumingBudgets.set({ nodepool: b.nodePool, reason: b.reason.toLowerCase() }, b.disrupting);
      const pool = this.deps.cluster.nodePool(b.nodePool);
      if (b.allowed === 0 && b.nodes > 0 && pool !== undefined) {
        events.publish(nodePoolDisruptionBlocked(pool, b.reason));
        this.deps.logger.debug(
          { nodepool: b.nodePool, reason: b.reason, budget: b.explanation, disrupting: b.disrupting },
          "disruption budget allows no disruption",
        );
      }
    }
    // Karpenter ignores an unparsable do-not-disrupt value and says so on the pod.
    for (const bad of plan.invalidDoNotDisrupt ?? []) {
      events.publish(invalidDoNotDisruptAnnotation({ metadata: bad.pod }, bad.message));
    }
    for (const s of plan.blocked) this.publishSkipped(s, "blocked");
    for (const s of plan.unconsolidatable)
      this.publishSkipped(
        s,
        s.blocker.kind === "unconsolidatable" || s.blocker.kind === "unschedulable" ? "unconsolidatable" : "blocked",
      );
  }

  private publishSkipped(s: Skipped, as: "blocked" | "unconsolidatable"): void {
    if (!publishesNodeEvents(s)) return;
    const event = as === "blocked" ? disruptionBlocked : unconsolidatable;
    this.deps.events.publish(event("NodeClaim", s.nodeClaim, s.blocker.message));
    if (s.node !== undefined) this.deps.events.publish(event("Node", s.node, s.blocker.message));
  }
}

/**
 * Whether a node held back gets Events of its own: not while it initializes, nor when a budget holds it
 * (Karpenter publishes only the NodePool's DisruptionBlocked event for a budget, review S17e; the plan
 * still lists the node, as kerf simulate shows it).
 */
export function publishesNodeEvents(s: Skipped): boolean {
  return s.blocker.kind !== "not-initialized" && s.blocker.kind !== "budget";
}

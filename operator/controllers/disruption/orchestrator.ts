/**
 * Executes disruption commands (behaviour §4.8), each as its own task so the 10 s pass keeps going:
 * wait the validation delay and re-validate against fresh caches (not for drift: Karpenter queues
 * drift commands at once, drift.go → queue.go, with no validation), taint the candidates
 * `karpenter.sh/disrupted:NoSchedule` and mark them `DisruptionReason`, launch the replacements and
 * wait until they are Initialized, then delete the candidates (termination drains them). When a
 * replacement fails or never initializes, the candidates are untainted and the command is dropped.
 *
 * Crash safety: nothing here is needed after a restart. A candidate is deleted only after its
 * replacement initialized, so a kill at any point leaves either untouched nodes (with perhaps a
 * stale taint, which the next pass removes, and an extra empty node, which emptiness removes) or a
 * deletion in progress (which termination finishes). NodeClaims stay "in flight" until the cache
 * shows them deleting, so budgets never see a gap between the delete call and the watch event.
 */
import type { Logger } from "pino";
import type { Clock } from "../../core/clock.ts";
import type { Command, Method } from "../../core/disruption/types.ts";
import type { Validation } from "../../core/disruption/validation.ts";
import type { Node, NodeClaim } from "../../core/lifecycle/objects.ts";
import { isTrue, setCondition } from "../../core/lifecycle/objects.ts";
import { Keys } from "../../core/lifecycle/registration.ts";
import { nodeClaimManifest } from "../../core/provisioning/nodeclaim-template.ts";
import { disruptionLaunching, disruptionTerminating, disruptionWaitingReadiness, type EventRecorder } from "../../observability/events.ts";
import type { Metrics } from "../../observability/metrics.ts";
import type { Cluster } from "../../ports/cluster.ts";

export const DISRUPTED_TAINT = { key: Keys.disruptedTaint, effect: "NoSchedule" } as const;

/** Methods whose commands run without the validation wait (Karpenter validates emptiness and consolidation only). */
const UNVALIDATED: ReadonlySet<Method> = new Set(["drift", "static-drift"]);
export const DISRUPTION_REASON_CONDITION = "DisruptionReason";

export interface OrchestratorDeps {
  readonly cluster: Cluster;
  readonly clock: Clock;
  readonly events: EventRecorder;
  readonly metrics: Metrics;
  readonly logger: Logger;
  readonly validationDelayMs: number;
  readonly replacementTimeoutMs: number;
  /** Re-validates a command against fresh caches (inFlight without the command's own NodeClaims). */
  readonly revalidate: (command: Command, own: ReadonlySet<string>) => Promise<Validation>;
}

/** A failure that drops the command (the candidates are released). */
class CommandFailed extends Error {
  constructor(message: string) { super(message); this.name = "CommandFailed"; }
}

const POLL_MS = 500;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) { resolve(); return; }
    const timer = setTimeout(done, ms);
    function done(): void { clearTimeout(timer); signal.removeEventListener("abort", done); resolve(); }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Label values of Karpenter's decision metrics. */
export function decisionLabels(command: Command): { decision: string; reason: string; consolidation_type: string } {
  const type = command.method === "multi-node-consolidation" ? "multi" : command.method === "single-node-consolidation" ? "single" : command.method === "emptiness" ? "empty" : "";
  return { decision: command.decision, reason: command.reason.toLowerCase(), consolidation_type: type };
}

export class Orchestrator {
  private readonly deps: OrchestratorDeps;
  /**
   * NodeClaim name → its task's state. A NodeClaim the task deleted stays until the cache shows it
   * deleting or gone (budgets must not see a gap); any other finished entry leaves at once.
   */
  private readonly inFlight = new Map<string, { done: boolean; deleted: boolean }>();

  constructor(deps: OrchestratorDeps) { this.deps = deps; }

  /** NodeClaims in commands being executed (and deleted ones the cache has not caught up with). */
  names(): Set<string> {
    for (const [name, entry] of this.inFlight) {
      const claim = this.deps.cluster.nodeClaim(name);
      if (entry.done && (!entry.deleted || claim === undefined || claim.metadata?.deletionTimestamp !== undefined)) this.inFlight.delete(name);
    }
    return new Set(this.inFlight.keys());
  }

  /** Starts executing `command` in the background; its NodeClaims are in flight from now on. */
  start(command: Command, signal: AbortSignal): Promise<void> {
    const own = new Set(command.candidates.map((c) => c.name));
    for (const name of own) this.inFlight.set(name, { done: false, deleted: false });
    return this.run(command, own, signal).finally(() => {
      for (const name of own) {
        const entry = this.inFlight.get(name);
        if (entry === undefined || signal.aborted) this.inFlight.delete(name);
        else entry.done = true;
      }
    });
  }

  /** The command to execute after the validation wait, or undefined when it no longer holds. */
  private async validated(
    planned: Command, own: ReadonlySet<string>, signal: AbortSignal,
  ): Promise<Command | undefined> {
    const { deps } = this;
    if (UNVALIDATED.has(planned.method)) return planned;
    await sleep(deps.validationDelayMs, signal);
    if (signal.aborted) return undefined;
    const validation = await deps.revalidate(planned, own);
    if (validation.ok) return validation.command;
    deps.metrics.disruptionFailedValidations.inc({ consolidation_type: decisionLabels(planned).consolidation_type });
    const fields = { reason: planned.reason, method: planned.method, nodeclaims: [...own], why: validation.reason };
    deps.logger.info(fields, "abandoning disruption command: validation failed");
    return undefined;
  }

  private async run(planned: Command, own: ReadonlySet<string>, signal: AbortSignal): Promise<void> {
    const { deps } = this;
    const command = await this.validated(planned, own, signal);
    if (command === undefined || signal.aborted) return;
    try {
      await this.mark(command, signal);
      const replacements = await this.launch(command, signal);
      await this.awaitInitialized(command, replacements, signal);
      await this.terminate(command, signal);
    } catch (error) {
      deps.metrics.disruptionQueueFailures.inc(decisionLabels(command));
      deps.logger.warn({ reason: command.reason, nodeclaims: [...own], err: error }, "disruption command failed; releasing its nodes");
      await this.release(command).catch((e: unknown) => deps.logger.warn({ err: e }, "releasing nodes of a failed disruption command; the next pass retries"));
    }
  }

  private check(signal: AbortSignal): void {
    if (signal.aborted) throw new CommandFailed("leadership lost");
  }

  /** Taints each candidate's Node and records why it is being disrupted on its NodeClaim. */
  private async mark(command: Command, signal: AbortSignal): Promise<void> {
    for (const c of command.candidates) {
      this.check(signal);
      const node = this.deps.cluster.node(c.nodeName);
      if (node === undefined) throw new CommandFailed(`node ${c.nodeName} is gone`);
      const taints = node.spec?.taints ?? [];
      if (!taints.some((t) => t.key === DISRUPTED_TAINT.key)) await this.deps.cluster.patchNode(node, { taints: [...taints, DISRUPTED_TAINT] });
      const claim = this.deps.cluster.nodeClaim(c.name);
      if (claim === undefined) throw new CommandFailed(`nodeclaim ${c.name} is gone`);
      const conditions = setCondition(claim.status?.conditions, { type: DISRUPTION_REASON_CONDITION, status: "True", reason: command.reason, message: `${command.method}: ${command.decision}` }, this.deps.clock.now());
      await this.deps.cluster.patchNodeClaimStatus(claim, { conditions });
    }
  }

  private async launch(command: Command, signal: AbortSignal): Promise<string[]> {
    const names: string[] = [];
    for (const planned of command.replacements) {
      this.check(signal);
      const pool = this.deps.cluster.nodePool(planned.nodePool);
      if (pool === undefined) throw new CommandFailed(`NodePool ${planned.nodePool} is gone`);
      const created = await this.deps.cluster.createNodeClaim(nodeClaimManifest(pool, planned));
      const name = created.metadata?.name ?? "";
      names.push(name);
      this.deps.metrics.nodeClaimsCreated.inc({ reason: command.reason.toLowerCase(), nodepool: planned.nodePool, capacity_type: planned.launch.capacityType });
      for (const c of command.candidates) this.deps.events.publish(disruptionLaunching(c.nodeClaim, `${command.reason}, replacement ${name} (${planned.launch.instanceType}/${planned.launch.capacityType})`));
    }
    return names;
  }

  private async awaitInitialized(command: Command, names: readonly string[], signal: AbortSignal): Promise<void> {
    if (names.length === 0) return;
    const deadline = this.deps.clock.now().getTime() + this.deps.replacementTimeoutMs;
    for (const c of command.candidates) this.deps.events.publish(disruptionWaitingReadiness(c.nodeClaim));
    for (;;) {
      this.check(signal);
      const claims = names.map((n) => this.deps.cluster.nodeClaim(n));
      const gone = names.filter((_, i) => claims[i] === undefined || claims[i]?.metadata?.deletionTimestamp !== undefined);
      if (gone.length > 0) throw new CommandFailed(`replacement ${gone.join(", ")} failed to launch`);
      if (claims.every((c) => isTrue(c?.status?.conditions, "Initialized"))) return;
      if (this.deps.clock.now().getTime() > deadline) throw new CommandFailed(`replacement ${names.join(", ")} did not initialize within ${this.deps.replacementTimeoutMs / 1000}s`);
      await sleep(POLL_MS, signal);
    }
  }

  private async terminate(command: Command, signal: AbortSignal): Promise<void> {
    this.check(signal);
    for (const c of command.candidates) {
      const claim = this.deps.cluster.nodeClaim(c.name);
      this.deps.events.publish(disruptionTerminating("NodeClaim", c.nodeClaim, command.reason));
      this.deps.events.publish(disruptionTerminating("Node", c.node, command.reason));
      this.deps.metrics.nodeClaimsDisrupted.inc({ reason: command.reason.toLowerCase(), nodepool: c.nodePool, capacity_type: c.capacityType });
      this.deps.metrics.disruptionDecisionsByNodePool.inc({ ...decisionLabels(command), nodepool: c.nodePool });
      const entry = this.inFlight.get(c.name);
      if (entry !== undefined) entry.deleted = true;
      if (claim !== undefined) await this.deps.cluster.deleteNodeClaim(c.name);
    }
    this.deps.metrics.disruptionDecisions.inc(decisionLabels(command));
  }

  /** Untaints the candidates and clears DisruptionReason (a failed or abandoned command). */
  private async release(command: Command): Promise<void> {
    for (const c of command.candidates) {
      const node = this.deps.cluster.node(c.nodeName);
      const claim = this.deps.cluster.nodeClaim(c.name);
      if (node !== undefined) await untaint(this.deps.cluster, node);
      if (claim !== undefined && claim.metadata?.deletionTimestamp === undefined) await clearReason(this.deps.cluster, claim);
    }
  }
}

/** Removes karpenter.sh/disrupted from a Node (no-op without it). */
export async function untaint(cluster: Cluster, node: Node): Promise<void> {
  const taints = node.spec?.taints ?? [];
  if (taints.some((t) => t.key === DISRUPTED_TAINT.key)) await cluster.patchNode(node, { taints: taints.filter((t) => t.key !== DISRUPTED_TAINT.key) });
}

/** Removes the DisruptionReason condition (no-op without it). */
export async function clearReason(cluster: Cluster, claim: NodeClaim): Promise<void> {
  const conditions = claim.status?.conditions ?? [];
  if (conditions.some((c) => c.type === DISRUPTION_REASON_CONDITION)) await cluster.patchNodeClaimStatus(claim, { conditions: conditions.filter((c) => c.type !== DISRUPTION_REASON_CONDITION) });
}

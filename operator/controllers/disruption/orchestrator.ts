/**
 * Executes disruption commands (behaviour §4.8), each as its own task so the 10 s pass keeps going:
 * wait the validation delay and re-validate against fresh caches (not for drift: Karpenter queues
 * drift commands at once, drift.go → queue.go, with no validation), taint the candidates
 * `karpenter.sh/disrupted:NoSchedule` and mark them `DisruptionReason`, launch the replacements and
 * wait until they are Initialized, then delete the candidates (termination drains them). When a
 * replacement fails or never initializes, the candidates are untainted and the command is dropped.
 *
 * Crash safety: a command's intent is recorded on its NodeClaims before anything else is written
 * (core/disruption/intent.ts: kerf.dev/disruption-command on each candidate, and on each replacement
 * as it is created), so a new leader resumes it (its replacements all exist: wait until they are
 * Initialized, then delete the candidates) or abandons it (delete the replacements no pod needs,
 * untaint the candidates): a kill never leaves an orphan replacement, which in a `consolidateAfter:
 * Never` pool emptiness would never remove. A candidate is deleted only after its replacement
 * initialized. After leadership is lost a task writes nothing more: the next leader takes over.
 * NodeClaims stay "in flight" until the cache shows them deleting, so budgets never see a gap
 * between the delete call and the watch event. The writes that mark and release a command's NodeClaims and
 * Nodes are in marks.ts.
 */
import { randomUUID } from "node:crypto";
import { Label } from "../../../policies/domain/labels.ts";
import { COMMAND_ANNOTATION, formatIntent, type CommandIntent, type Recovery } from "../../core/disruption/intent.ts";
import type { Candidate, Command, Method } from "../../core/disruption/types.ts";
import type { Validation } from "../../core/disruption/validation.ts";
import type { Node, NodeClaim } from "../../core/lifecycle/objects.ts";
import { isTrue, timeMs } from "../../core/lifecycle/objects.ts";
import { nodeClaimManifest } from "../../core/provisioning/nodeclaim-template.ts";
import { consolidationPolicyLabel, minValuesRelaxed, terminationMode } from "../../core/metrics/nodeclaims.ts";
import {
  disruptionLaunching,
  disruptionTerminating,
  disruptionWaitingReadiness,
  type EventRecorder,
} from "../../observability/events.ts";
import type { Metrics } from "../../observability/metrics.ts";
import { CommandFailed, CommandMarks, checkSignal, sleep, type MarkDeps } from "./marks.ts";

/**
 * Methods whose commands run without the validation wait (Karpenter validates emptiness and consolidation only;
 * kerf's scheduled-off follows a window the user set, which 15 seconds do not make less true).
 */
const UNVALIDATED: ReadonlySet<Method> = new Set(["drift", "static-drift", "scheduled-off"]);

/** The cluster, clock, logger and nominations (MarkDeps, for marking and releasing), and what executing adds. */
export interface OrchestratorDeps extends MarkDeps {
  readonly events: EventRecorder;
  readonly metrics: Metrics;
  readonly validationDelayMs: number;
  readonly replacementTimeoutMs: number;
  /** Re-validates a command against fresh caches (inFlight without the command's own NodeClaims). */
  readonly revalidate: (command: Command, own: ReadonlySet<string>) => Promise<Validation>;
}

const POLL_MS = 500;

/** Label values of Karpenter's decision metrics. */
export function decisionLabels(command: Command): { decision: string; reason: string; consolidation_type: string } {
  const type =
    command.method === "multi-node-consolidation"
      ? "multi"
      : command.method === "single-node-consolidation"
        ? "single"
        : command.method === "emptiness"
          ? "empty"
          : "";
  return { decision: command.decision, reason: command.reason.toLowerCase(), consolidation_type: type };
}

export class Orchestrator {
  private readonly deps: OrchestratorDeps;
  /**
   * NodeClaim name → its task's state. A NodeClaim the task deleted stays until the cache shows it
   * deleting or gone (budgets must not see a gap); any other finished entry leaves at once.
   */
  private readonly inFlight = new Map<string, { done: boolean; deleted: boolean }>();
  /** Ids of the commands this process is executing. */
  private readonly commands = new Set<string>();
  /** Commands in their validation wait (see validating()). */
  private inValidation = 0;
  /** Marks the candidates, releases what a command that will not finish holds (marks.ts). */
  private readonly marks: CommandMarks;

  constructor(deps: OrchestratorDeps) {
    this.deps = deps;
    this.marks = new CommandMarks(deps);
  }

  /** NodeClaims in commands being executed (and deleted ones the cache has not caught up with). */
  names(): Set<string> {
    for (const [name, entry] of this.inFlight) {
      const claim = this.deps.cluster.nodeClaim(name);
      if (entry.done && (!entry.deleted || claim === undefined || claim.metadata?.deletionTimestamp !== undefined))
        this.inFlight.delete(name);
    }
    return new Set(this.inFlight.keys());
  }

  /**
   * Whether a command is in its validation wait. Karpenter validates inside its single disruption
   * loop, so no other command is planned meanwhile: emptiness and consolidation start at most one
   * command per validation delay (15 s); drift, unvalidated, is not held back by its own commands.
   */
  validating(): boolean {
    return this.inValidation > 0;
  }

  /** Starts executing `command` in the background; its NodeClaims are in flight from now on. */
  start(command: Command, signal: AbortSignal): Promise<void> {
    const own = new Set(command.candidates.map((c) => c.name));
    const id = randomUUID();
    return this.track(own, id, signal, () => this.run(command, own, signal, id));
  }

  /** The command to execute after the validation wait, or undefined when it no longer holds. */
  private async validated(
    planned: Command,
    own: ReadonlySet<string>,
    signal: AbortSignal,
  ): Promise<Command | undefined> {
    const { deps } = this;
    if (UNVALIDATED.has(planned.method)) return planned;
    this.inValidation += 1;
    let validation: Validation;
    try {
      await sleep(deps.validationDelayMs, signal);
      if (signal.aborted) return undefined;
      validation = await deps.revalidate(planned, own);
    } finally {
      this.inValidation -= 1;
    }
    if (validation.ok) return validation.command;
    deps.metrics.disruptionFailedValidations.inc({ consolidation_type: decisionLabels(planned).consolidation_type });
    const fields = { reason: planned.reason, method: planned.method, nodeclaims: [...own], why: validation.reason };
    deps.logger.info(fields, "abandoning disruption command: validation failed");
    return undefined;
  }

  private async run(planned: Command, own: ReadonlySet<string>, signal: AbortSignal, id: string): Promise<void> {
    const { deps } = this;
    let command = await this.validated(planned, own, signal);
    if (command === undefined || signal.aborted) return;
    const intent = intentFor(id, command);
    const replacements: string[] = [];
    try {
      command = await this.marks.mark(command, intent, signal);
      await this.launch(command, intent, replacements, signal);
      await this.awaitInitialized(
        command,
        replacements,
        signal,
        deps.clock.now().getTime() + deps.replacementTimeoutMs,
      );
      await this.terminate(command, signal);
      await this.marks.clearIntents(replacements);
    } catch (error) {
      if (signal.aborted) {
        // No writes after losing the lease: the next leader resumes or abandons the command from its recorded intent.
        deps.logger.info(
          { reason: command.reason, nodeclaims: [...own], command: id },
          "leadership lost mid-command; the next leader takes it over",
        );
        return;
      }
      deps.metrics.disruptionQueueFailures.inc(decisionLabels(command));
      deps.logger.warn(
        { reason: command.reason, nodeclaims: [...own], command: id, err: error },
        "disruption command failed; releasing its nodes",
      );
      await this.marks
        .release(
          command.candidates.map((c) => c.name),
          replacements,
        )
        .catch((e: unknown) =>
          deps.logger.warn({ err: e }, "releasing nodes of a failed disruption command; the next pass retries"),
        );
    }
  }

  /** Command ids this process is executing (their recorded intents are this process's own). */
  commandIds(): ReadonlySet<string> {
    return this.commands;
  }

  /**
   * Takes over a command a previous leader recorded and did not finish (core/disruption/intent.ts):
   * resume waits for its replacements, then deletes the candidates; abandon deletes the replacements no
   * pod needs and releases the candidates; finish clears what the finished command left recorded.
   */
  async recover(recovery: Recovery, signal: AbortSignal): Promise<void> {
    const { intent } = recovery;
    const fields = { command: intent.id, method: intent.method, reason: intent.reason, candidates: intent.candidates };
    if (recovery.kind === "finish") {
      await this.marks.clearIntents(recovery.replacements.map(nameOf));
      return;
    }
    if (recovery.kind === "abandon") {
      this.deps.logger.info(
        { ...fields, why: recovery.why },
        "abandoning a disruption command a previous leader started",
      );
      await this.marks.release(recovery.candidates.map(nameOf), recovery.replacements.map(nameOf));
      return;
    }
    this.deps.logger.info(
      { ...fields, replacements: recovery.replacements.map(nameOf) },
      "resuming a disruption command a previous leader started",
    );
    const command = this.recordedCommand(intent, recovery.candidates);
    const own = new Set(command.candidates.map((c) => c.name));
    const replacements = recovery.replacements.map(nameOf);
    const created = Math.min(
      ...recovery.replacements.map((r) => timeMs(r.metadata?.creationTimestamp) ?? this.deps.clock.now().getTime()),
    );
    await this.track(own, intent.id, signal, async () => {
      try {
        await this.awaitInitialized(command, replacements, signal, created + this.deps.replacementTimeoutMs);
        await this.terminate(command, signal);
        await this.marks.clearIntents(replacements);
      } catch (error) {
        if (signal.aborted) return;
        this.deps.logger.warn({ ...fields, err: error }, "resumed disruption command failed; releasing its nodes");
        await this.marks.release([...own], replacements);
      }
    });
  }

  /** Runs `task` with the NodeClaims `own` in flight and the command id running. */
  private async track(
    own: ReadonlySet<string>,
    id: string,
    signal: AbortSignal,
    task: () => Promise<void>,
  ): Promise<void> {
    this.commands.add(id);
    for (const name of own) this.inFlight.set(name, { done: false, deleted: false });
    try {
      await task();
    } finally {
      this.commands.delete(id);
      for (const name of own) {
        const entry = this.inFlight.get(name);
        if (entry === undefined || signal.aborted) this.inFlight.delete(name);
        else entry.done = true;
      }
    }
  }

  /** A recorded command as the orchestrator executes it (candidates read from the caches). */
  private recordedCommand(intent: CommandIntent, claims: readonly NodeClaim[]): Command {
    const candidates = claims.map((claim) =>
      recordedCandidate(claim, this.deps.cluster.nodeByProviderID(claim.status?.providerID ?? "")),
    );
    return {
      method: intent.method,
      reason: intent.reason,
      decision: intent.decision,
      candidates,
      replacements: [],
      savingsPerHour: 0,
    };
  }

  /**
   * Creates the replacements at once, as Karpenter's CreateNodeClaims does, each carrying the command's
   * intent; `names` receives each as it is created. Every create settles before a failure is thrown, so a
   * release sees every replacement that was made.
   */
  private async launch(command: Command, intent: CommandIntent, names: string[], signal: AbortSignal): Promise<void> {
    const value = formatIntent({ ...intent, role: "replacement" });
    const results = await Promise.allSettled(
      command.replacements.map(async (planned) => {
        checkSignal(signal);
        const pool = this.deps.cluster.nodePool(planned.nodePool);
        if (pool === undefined) throw new CommandFailed(`NodePool ${planned.nodePool} is gone`);
        const manifest = nodeClaimManifest(pool, planned);
        const annotated = {
          ...manifest,
          metadata: {
            ...manifest.metadata,
            annotations: { ...manifest.metadata.annotations, [COMMAND_ANNOTATION]: value },
          },
        };
        const created = await this.deps.cluster.createNodeClaim(annotated);
        const name = created.metadata?.name ?? "";
        names.push(name);
        this.deps.metrics.nodeClaimsCreated.inc({
          reason: command.reason.toLowerCase(),
          nodepool: planned.nodePool,
          min_values_relaxed: minValuesRelaxed(created),
        });
        for (const c of command.candidates)
          this.deps.events.publish(
            disruptionLaunching(
              c.nodeClaim,
              `${command.reason}, replacement ${name} (${planned.launch.instanceType}/${planned.launch.capacityType})`,
            ),
          );
      }),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed !== undefined) throw failed.reason;
  }

  private async awaitInitialized(
    command: Command,
    names: readonly string[],
    signal: AbortSignal,
    deadline: number,
  ): Promise<void> {
    if (names.length === 0) return;
    for (const c of command.candidates) this.deps.events.publish(disruptionWaitingReadiness(c.nodeClaim));
    for (;;) {
      checkSignal(signal);
      const claims = names.map((n) => this.deps.cluster.nodeClaim(n));
      const gone = names.filter(
        (_, i) => claims[i] === undefined || claims[i]?.metadata?.deletionTimestamp !== undefined,
      );
      if (gone.length > 0) throw new CommandFailed(`replacement ${gone.join(", ")} failed to launch`);
      if (claims.every((c) => isTrue(c?.status?.conditions, "Initialized"))) return;
      if (this.deps.clock.now().getTime() > deadline)
        throw new CommandFailed(
          `replacement ${names.join(", ")} did not initialize within ${this.deps.replacementTimeoutMs / 1000}s`,
        );
      await sleep(POLL_MS, signal);
    }
  }

  private async terminate(command: Command, signal: AbortSignal): Promise<void> {
    for (const c of command.candidates) {
      // Each delete is a write: none after the lease is lost (the next leader finishes from the recorded intent).
      checkSignal(signal);
      const claim = this.deps.cluster.nodeClaim(c.name);
      this.deps.events.publish(disruptionTerminating("NodeClaim", c.nodeClaim, command.reason));
      this.deps.events.publish(disruptionTerminating("Node", c.node, command.reason));
      const spec = this.deps.cluster.nodePool(c.nodePool)?.spec as
        { disruption?: { consolidationPolicy?: string } } | undefined;
      const policy = spec?.disruption?.consolidationPolicy;
      const disruptedLabels = {
        reason: command.reason.toLowerCase(),
        nodepool: c.nodePool,
        capacity_type: c.capacityType,
        consolidation_policy: consolidationPolicyLabel(policy),
        termination_mode: terminationMode(c.nodeClaim),
      };
      this.deps.metrics.nodeClaimsDisrupted.inc(disruptedLabels);
      // Karpenter counts the pods that will reschedule (no DaemonSet or mirror pods): the candidate's pods.
      this.deps.metrics.podsDisruptionInitiated.inc(disruptedLabels, c.pods.length);
      this.deps.metrics.disruptionDecisionsByNodePool.inc({ ...decisionLabels(command), nodepool: c.nodePool });
      const entry = this.inFlight.get(c.name);
      if (entry !== undefined) entry.deleted = true;
      if (claim !== undefined) await this.deps.cluster.deleteNodeClaim(c.name);
    }
    this.deps.metrics.disruptionDecisions.inc(decisionLabels(command));
  }
}

/** The intent recorded for `command` under `id` (role set per NodeClaim). */
function intentFor(id: string, command: Command): CommandIntent {
  return {
    id,
    role: "candidate",
    method: command.method,
    reason: command.reason,
    decision: command.decision,
    candidates: command.candidates.map((c) => c.name),
    replacements: command.replacements.length,
  };
}

const nameOf = (claim: NodeClaim): string => claim.metadata?.name ?? "";

/**
 * A candidate of a recorded command, as much as executing it reads (names, pool, capacity type,
 * objects for Events); the planner's figures (prices, costs, pods) are not known after a restart,
 * so they are left out rather than made up: nothing on the execution path reads them.
 */
function recordedCandidate(claim: NodeClaim, node: Node | undefined): Candidate {
  const labels: Readonly<Record<string, string>> = { ...claim.metadata?.labels, ...node?.metadata?.labels };
  const label = (key: string): string => labels[key] ?? "";
  const nodeName = node?.metadata?.name ?? claim.status?.nodeName ?? "";
  const known = {
    nodeClaim: claim,
    node: node ?? { metadata: { name: nodeName } },
    name: nameOf(claim),
    nodeName,
    nodePool: label(Label.nodePool),
    instanceType: label(Label.instanceType),
    capacityType: label(Label.capacityType),
    zone: label(Label.zone),
    pods: [],
  };
  return known as unknown as Candidate;
}

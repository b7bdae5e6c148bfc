/**
 * What a disruption command writes on the NodeClaims and Nodes it holds, and how it takes that back
 * (behaviour §4.8): the recorded intent (core/disruption/intent.ts), the `karpenter.sh/disrupted:NoSchedule`
 * taint and the DisruptionReason condition. Every write runs on a fresh read and is retried after an
 * optimistic-lock conflict, as Karpenter's queue.go does. The Orchestrator (orchestrator.ts) decides when;
 * the disruption controller (controller.ts) uses untaint and clearReason to clean up after a lost command.
 */
import type { Logger } from "pino";
import type { Clock } from "../../core/clock.ts";
import { isReschedulable } from "../../core/disruption/candidates.ts";
import {
  COMMAND_ANNOTATION,
  formatIntent,
  replacementNeeded,
  type CommandIntent,
} from "../../core/disruption/intent.ts";
import type { Candidate, Command } from "../../core/disruption/types.ts";
import type { Node, NodeClaim } from "../../core/lifecycle/objects.ts";
import { setCondition } from "../../core/lifecycle/objects.ts";
import { Keys } from "../../core/lifecycle/registration.ts";
import type { Cluster } from "../../ports/cluster.ts";

/** The taint a candidate Node carries while its command runs (Karpenter's karpenter.sh/disrupted:NoSchedule). */
export const DISRUPTED_TAINT = { key: Keys.disruptedTaint, effect: "NoSchedule" } as const;

/** The NodeClaim condition that says why a candidate is being disrupted. */
export const DISRUPTION_REASON_CONDITION = "DisruptionReason";

/** A failure that drops the command (the candidates are released). */
export class CommandFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CommandFailed";
  }
}

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Throws CommandFailed once leadership is lost: a task writes nothing after that. */
export function checkSignal(signal: AbortSignal): void {
  if (signal.aborted) throw new CommandFailed("leadership lost");
}

/** Whether `error` is an optimistic-lock conflict (adapters/kube/client.ts ConflictError). */
const isConflict = (error: unknown): boolean => error instanceof Error && error.name === "ConflictError";
const CONFLICT_ATTEMPTS = 5;
const CONFLICT_RETRY_MS = 200;

/** What marking and releasing need of the orchestrator's dependencies. */
export interface MarkDeps {
  readonly cluster: Cluster;
  readonly clock: Clock;
  readonly logger: Logger;
  /**
   * Nodes and NodeClaims pending pods were nominated to (an abandoned command's replacement they were
   * promised stays).
   */
  readonly nominated: () => ReadonlySet<string>;
}

/** Marks a command's candidates, and releases candidates and replacements of a command that will not finish. */
export class CommandMarks {
  private readonly deps: MarkDeps;

  constructor(deps: MarkDeps) {
    this.deps = deps;
  }

  /**
   * Records the command's intent on each candidate NodeClaim, then taints each candidate's Node and
   * records why it is being disrupted on its NodeClaim; every write is retried on a fresh read after an
   * optimistic-lock conflict (Karpenter re-reads and retries, queue.go markDisrupted). Returns the command
   * with the candidates marked: as Karpenter's StartCommand, a command with replacements needs every
   * candidate, a delete-only one goes on with those that were marked (the others are released).
   */
  async mark(command: Command, intent: CommandIntent, signal: AbortSignal): Promise<Command> {
    const value = formatIntent({ ...intent, role: "candidate" });
    const failed = new Map<string, unknown>();
    const each = async (step: (c: Candidate) => Promise<void>): Promise<void> => {
      for (const c of command.candidates) {
        checkSignal(signal);
        if (failed.has(c.name)) continue;
        try {
          await step(c);
        } catch (error) {
          if (signal.aborted || command.replacements.length > 0) throw error;
          failed.set(c.name, error);
        }
      }
    };
    const annotations = { [COMMAND_ANNOTATION]: value };
    await each((c) =>
      this.onFreshClaim(c.name, (claim) => this.deps.cluster.patchNodeClaimMetadata(claim, { annotations })),
    );
    await each(async (c) => {
      await this.onFreshNode(c.nodeName, (node) => {
        const taints = node.spec?.taints ?? [];
        if (taints.some((t) => t.key === DISRUPTED_TAINT.key)) return Promise.resolve();
        return this.deps.cluster.patchNode(node, { taints: [...taints, DISRUPTED_TAINT] });
      });
      await this.onFreshClaim(c.name, (claim) => {
        const condition = {
          type: DISRUPTION_REASON_CONDITION,
          status: "True",
          reason: command.reason,
          message: `${command.method}: ${command.decision}`,
        };
        return this.deps.cluster.patchNodeClaimStatus(claim, {
          conditions: setCondition(claim.status?.conditions, condition, this.deps.clock.now()),
        });
      });
    });
    if (failed.size === 0) return command;
    const marked = command.candidates.filter((c) => !failed.has(c.name));
    if (marked.length === 0) throw failed.values().next().value;
    const fields = { command: intent.id, unmarked: [...failed.keys()], err: failed.values().next().value };
    this.deps.logger.warn(fields, "deleting the candidates that could be marked; releasing the others");
    await this.release([...failed.keys()], []).catch((e: unknown) =>
      this.deps.logger.warn({ err: e }, "releasing unmarked candidates; the next pass cleans them"),
    );
    return { ...command, candidates: marked };
  }

  /** Removes the recorded intent from NodeClaims that stay (replacements of a finished command). */
  async clearIntents(names: readonly string[]): Promise<void> {
    for (const name of names) {
      const claim = this.deps.cluster.nodeClaim(name);
      if (claim === undefined || claim.metadata?.annotations?.[COMMAND_ANNOTATION] === undefined) continue;
      await this.onFreshClaim(name, (fresh) =>
        this.deps.cluster.patchNodeClaimMetadata(fresh, { annotations: { [COMMAND_ANNOTATION]: null } }),
      );
    }
  }

  /**
   * Undoes a command that will not finish: deletes its replacements no pod needs (a pod runs there,
   * or one was nominated to it, keeps one), clears the intent on those that stay, untaints the
   * candidates and clears their DisruptionReason and intent. Nodes already being deleted keep their taint.
   */
  async release(candidates: readonly string[], replacements: readonly string[]): Promise<void> {
    await this.releaseReplacements(replacements);
    for (const name of candidates) {
      const claim = this.deps.cluster.nodeClaim(name);
      if (claim === undefined || claim.metadata?.deletionTimestamp !== undefined) continue;
      const node = this.deps.cluster.nodeByProviderID(claim.status?.providerID ?? "");
      if (node !== undefined && node.metadata?.deletionTimestamp === undefined) {
        await this.onFreshNode(node.metadata?.name ?? "", (fresh) => untaint(this.deps.cluster, fresh));
      }
      await this.onFreshClaim(name, (fresh) => clearReason(this.deps.cluster, fresh));
      await this.clearIntents([name]);
    }
  }

  private async releaseReplacements(replacements: readonly string[]): Promise<void> {
    const nominated = this.deps.nominated();
    for (const name of replacements) {
      const claim = this.deps.cluster.nodeClaim(name);
      if (claim === undefined || claim.metadata?.deletionTimestamp !== undefined) continue;
      const nodeName = claim.status?.nodeName ?? "";
      if (
        replacementNeeded(
          claim,
          nodeName === "" ? [] : this.deps.cluster.podsOnNode(nodeName),
          nominated,
          isReschedulable,
        )
      ) {
        await this.clearIntents([name]);
        continue;
      }
      this.deps.logger.info(
        { nodeclaim: name },
        "deleting the replacement of an abandoned disruption command (no pod needs it)",
      );
      await this.deps.cluster.deleteNodeClaim(name);
    }
  }

  /** As onFreshClaim, for the Node `name` (the kubelet updates Nodes often). */
  private async onFreshNode(name: string, write: (node: Node) => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      const node = this.deps.cluster.node(name);
      if (node === undefined) throw new CommandFailed(`node ${name} is gone`);
      try {
        await write(node);
        return;
      } catch (error) {
        if (attempt >= CONFLICT_ATTEMPTS || !isConflict(error)) throw error;
        await sleep(CONFLICT_RETRY_MS, new AbortController().signal);
      }
    }
  }

  /**
   * Runs a write on the cached NodeClaim `name`, again on a fresh read after an optimistic-lock
   * conflict (the status controller writes NodeClaims often); throws when the NodeClaim is gone.
   */
  private async onFreshClaim(name: string, write: (claim: NodeClaim) => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      const claim = this.deps.cluster.nodeClaim(name);
      if (claim === undefined) throw new CommandFailed(`nodeclaim ${name} is gone`);
      try {
        await write(claim);
        return;
      } catch (error) {
        if (attempt >= CONFLICT_ATTEMPTS || !isConflict(error)) throw error;
        await sleep(CONFLICT_RETRY_MS, new AbortController().signal);
      }
    }
  }
}

/** Removes karpenter.sh/disrupted from a Node (no-op without it). */
export async function untaint(cluster: Cluster, node: Node): Promise<void> {
  const taints = node.spec?.taints ?? [];
  if (taints.some((t) => t.key === DISRUPTED_TAINT.key))
    await cluster.patchNode(node, { taints: taints.filter((t) => t.key !== DISRUPTED_TAINT.key) });
}

/** Removes the DisruptionReason condition (no-op without it). */
export async function clearReason(cluster: Cluster, claim: NodeClaim): Promise<void> {
  const conditions = claim.status?.conditions ?? [];
  if (conditions.some((c) => c.type === DISRUPTION_REASON_CONDITION))
    await cluster.patchNodeClaimStatus(claim, {
      conditions: conditions.filter((c) => c.type !== DISRUPTION_REASON_CONDITION),
    });
}

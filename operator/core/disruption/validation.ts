/**
 * Command re-validation (behaviour §4.8): after the validation delay the cluster is read again and
 * the command still has to hold — every candidate still eligible and, for its method, still empty
 * (emptiness keeps those that are, see validEmpty), drifted or consolidatable; the budgets still allow
 * it; and a consolidation still saves money (a delete must still be a delete). The fresh command (with
 * a fresh replacement) is what executes.
 */
import { hasGracePeriod, isEmptyCandidate } from "./candidates.ts";
import { evaluate } from "./consolidation.ts";
import { preparePass, type DisruptionInput, type Pass } from "./plan.ts";
import type { Candidate, Command } from "./types.ts";

export type Validation =
  { readonly ok: true; readonly command: Command } | { readonly ok: false; readonly reason: string };

function methodHolds(pass: Pass, command: Command, c: Candidate): string | undefined {
  if (command.method === "scheduled-off") {
    if (!pass.offPools.has(c.nodePool)) return `NodePool ${c.nodePool} is no longer off (kerf.dev/off-schedule)`;
    return c.podBlocker?.message;
  }
  if (command.method === "emptiness") return isEmptyCandidate(c) ? undefined : `${c.name} is no longer empty`;
  if (command.method === "drift") {
    if (c.driftReason === undefined) return `${c.name} is no longer drifted`;
    return c.podBlocker !== undefined && !hasGracePeriod(c.nodeClaim) ? c.podBlocker.message : undefined;
  }
  if (!c.consolidatable) return `${c.name} is no longer consolidatable`;
  return c.podBlocker?.message;
}

function stillHolds(pass: Pass, command: Command, c: Candidate): string | undefined {
  const why = methodHolds(pass, command, c);
  if (why !== undefined) return why;
  return pass.ctx.ledger.take(c.nodePool, command.reason)
    ? undefined
    : `the disruption budget of NodePool ${c.nodePool} for ${command.reason} no longer allows it`;
}

/**
 * Emptiness keeps the candidates still empty, eligible and within the Empty budget, and fails only
 * when none is left (Karpenter's EmptinessValidator): one node a pod landed on during the wait does
 * not hold back the others, which under steady churn would never go.
 */
/** Why a command's candidate `name` is not one any more: what blocks it now, else that it is gone or taken. */
function noLongerCandidate(name: string, blockedBy: ReadonlyMap<string, string>): string {
  return `${name} is no longer a candidate: ${blockedBy.get(name) ?? "gone, deleting or in another command"}`;
}

function validEmpty(
  pass: Pass,
  command: Command,
  byName: ReadonlyMap<string, Candidate>,
  blockedBy: ReadonlyMap<string, string>,
): Validation {
  const fresh: Candidate[] = [];
  const why: string[] = [];
  for (const old of command.candidates) {
    const c = byName.get(old.name);
    const reason = c === undefined ? noLongerCandidate(old.name, blockedBy) : stillHolds(pass, command, c);
    if (reason !== undefined) why.push(reason);
    else if (c !== undefined) fresh.push(c);
  }
  if (fresh.length === 0) return { ok: false, reason: why.join("; ") };
  const savingsPerHour = fresh.reduce((s, c) => s + c.pricePerHour, 0);
  return { ok: true, command: { ...command, candidates: fresh, savingsPerHour } };
}

/**
 * Re-checks `command` against `input`, whose inFlight must not list the command's own candidates
 * (they would count against their own budget and be skipped as in flight).
 */
export function revalidate(input: DisruptionInput, command: Command): Validation {
  const pass = preparePass(input);
  const byName = new Map(pass.candidates.map((c) => [c.name, c]));
  const blockedBy = new Map(pass.blocked.map((b) => [b.nodeClaim.metadata?.name ?? "", b.blocker.message]));
  if (command.method === "emptiness") return validEmpty(pass, command, byName, blockedBy);
  const fresh: Candidate[] = [];
  for (const old of command.candidates) {
    const c = byName.get(old.name);
    if (c === undefined) return { ok: false, reason: noLongerCandidate(old.name, blockedBy) };
    const why = stillHolds(pass, command, c);
    if (why !== undefined) return { ok: false, reason: why };
    fresh.push(c);
  }
  if (command.method === "drift" || command.method === "scheduled-off") {
    return { ok: true, command: { ...command, candidates: fresh } };
  }
  const e = evaluate(pass.ctx, fresh);
  if (!e.ok) return { ok: false, reason: e.reason };
  if (command.decision === "delete" && e.decision !== "delete")
    return { ok: false, reason: "the candidates' pods no longer fit without a replacement" };
  return {
    ok: true,
    command: {
      ...command,
      decision: e.decision,
      replacements: e.replacement === undefined ? [] : [e.replacement],
      savingsPerHour: e.savingsPerHour,
    },
  };
}

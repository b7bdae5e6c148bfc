/**
 * A disruption command's intent, recorded on its NodeClaims so a new leader can finish or undo it
 * (kerf extension: Karpenter keeps its queue in memory only, so a kill mid-command leaves an orphan
 * replacement, which in a `consolidateAfter: Never` pool stays until `expireAfter`).
 *
 * When a command is marked, each candidate gets the annotation with role "candidate"; each
 * replacement is created with it, role "replacement". The value names the command (a random id),
 * its candidates and how many replacements it launches. A new leader groups what it finds by id
 * (recoveries): a replace command whose replacements all exist and none failed is resumed (wait until
 * they are Initialized, then delete the candidates); anything else is abandoned (replacements no pod
 * needs are deleted, the candidates untainted); a command whose candidates are all deleting or gone
 * has finished and only the annotations are cleared. A delete-only command is always abandoned: it
 * launched nothing, and the next pass plans it again against fresh state if it still holds.
 *
 * The key is under kerf's own prefix (kerf.dev/), never a karpenter.sh key Karpenter does not use.
 */
import { ALL_DISRUPTION_REASONS } from "../../../policies/domain/budgets.ts";
import type { NodeClaim, Pod } from "../lifecycle/objects.ts";
import type { DisruptionReason, Method } from "./types.ts";
import { METHODS } from "./types.ts";

export const COMMAND_ANNOTATION = "kerf.dev/disruption-command";

export interface CommandIntent {
  /** The command's id (the same on every NodeClaim of the command). */
  readonly id: string;
  readonly role: "candidate" | "replacement";
  readonly method: Method;
  readonly reason: DisruptionReason;
  readonly decision: "delete" | "replace";
  /** The candidates' NodeClaim names. */
  readonly candidates: readonly string[];
  /** How many replacements the command launches. */
  readonly replacements: number;
}

const REASONS: readonly string[] = ALL_DISRUPTION_REASONS;

/** The annotation value for `intent` (compact JSON, stable key order). */
export function formatIntent(intent: CommandIntent): string {
  const { id, role, method, reason, decision, candidates, replacements } = intent;
  return JSON.stringify({ id, role, method, reason, decision, candidates, replacements });
}

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;
const isMethod = (v: unknown): v is Method => typeof v === "string" && (METHODS as readonly string[]).includes(v);
const ROLES = ["candidate", "replacement"] as const;
const DECISIONS = ["delete", "replace"] as const;
const isOneOf = <T extends string>(v: unknown, values: readonly T[]): v is T =>
  typeof v === "string" && (values as readonly string[]).includes(v);
const isReason = (v: unknown): v is DisruptionReason => typeof v === "string" && REASONS.includes(v);

function readJson(value: string): Record<string, unknown> | undefined {
  try {
    const raw: unknown = JSON.parse(value);
    return typeof raw === "object" && raw !== null && !Array.isArray(raw)
      ? (raw as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The intent in an annotation value; undefined when absent or unreadable (an unreadable one is treated as absent). */
export function parseIntent(value: string | undefined): CommandIntent | undefined {
  const o = value === undefined ? undefined : readJson(value);
  if (o === undefined) return undefined;
  const { id, role, method, reason, decision, candidates, replacements } = o;
  if (typeof id !== "string" || id === "" || !isOneOf(role, ROLES)) return undefined;
  if (!isMethod(method) || !isReason(reason) || !isOneOf(decision, DECISIONS)) return undefined;
  if (!isStringArray(candidates) || !isCount(replacements)) return undefined;
  return { id, role, method, reason, decision, candidates, replacements };
}

/** The intent a NodeClaim carries, if any. */
export function intentOf(claim: NodeClaim): CommandIntent | undefined {
  return parseIntent(claim.metadata?.annotations?.[COMMAND_ANNOTATION]);
}

type Claims = readonly NodeClaim[];

/** What a new leader does with one recorded command. */
export type Recovery =
  /** Wait for the replacements to be Initialized, then delete the live candidates. */
  | {
      readonly kind: "resume";
      readonly intent: CommandIntent;
      readonly candidates: Claims;
      readonly replacements: Claims;
    }
  /** Delete the replacements no pod needs, release the candidates. */
  | {
      readonly kind: "abandon";
      readonly intent: CommandIntent;
      readonly candidates: Claims;
      readonly replacements: Claims;
      readonly why: string;
    }
  /** The candidates are deleting or gone: only the annotations on the replacements remain to clear. */
  | { readonly kind: "finish"; readonly intent: CommandIntent; readonly replacements: readonly NodeClaim[] };

const deleting = (c: NodeClaim): boolean => c.metadata?.deletionTimestamp !== undefined;

function recoveryOf(intent: CommandIntent, candidates: Claims, replacements: Claims): Recovery {
  const live = candidates.filter((c) => !deleting(c));
  const kept = replacements.filter((r) => !deleting(r));
  if (live.length === 0) return { kind: "finish", intent, replacements: kept };
  const abandon = (why: string): Recovery => ({ kind: "abandon", intent, candidates: live, replacements: kept, why });
  if (intent.decision === "delete" || intent.replacements === 0) {
    return abandon("a delete-only command is planned again against fresh state");
  }
  if (kept.length < replacements.length) return abandon("a replacement failed");
  if (kept.length < intent.replacements) {
    return abandon(`${kept.length} of ${intent.replacements} replacements were launched`);
  }
  return { kind: "resume", intent, candidates: live, replacements: kept };
}

/**
 * The recorded commands in `claims` that no task of this process runs (`running`: command ids), and
 * what to do with each. The intent read from a candidate wins over a replacement's (it is written first).
 */
export function recoveries(claims: readonly NodeClaim[], running: ReadonlySet<string>): Recovery[] {
  const byId = new Map<string, { intent: CommandIntent; candidates: NodeClaim[]; replacements: NodeClaim[] }>();
  for (const claim of claims) {
    const intent = intentOf(claim);
    if (intent === undefined || running.has(intent.id)) continue;
    let group = byId.get(intent.id);
    if (group === undefined) {
      group = { intent, candidates: [], replacements: [] };
      byId.set(intent.id, group);
    }
    if (intent.role === "replacement") {
      group.replacements.push(claim);
      continue;
    }
    group.candidates.push(claim);
    if (group.intent.role === "replacement") group.intent = intent;
  }
  return [...byId.values()].map((g) => recoveryOf(g.intent, g.candidates, g.replacements));
}

/**
 * Whether an abandoned command's replacement is still needed: a pod that would have to move (not a
 * DaemonSet or mirror pod, not terminal) runs on its node, or a pending pod was nominated to it.
 * `pods`: the pods bound to the replacement's Node; `nominated`: nominated node and NodeClaim names.
 */
export function replacementNeeded(
  claim: NodeClaim,
  pods: readonly Pod[],
  nominated: ReadonlySet<string>,
  movable: (pod: Pod) => boolean,
): boolean {
  const name = claim.metadata?.name ?? "";
  const nodeName = claim.status?.nodeName ?? "";
  if (nominated.has(name) || (nodeName !== "" && nominated.has(nodeName))) return true;
  return pods.some(movable);
}

/**
 * How a pool's disruption budgets pace a Drifted rollout (api §8, behaviour §4.9), evaluated at `now`:
 * the minimum over the active budgets that apply to Drifted, the windows that open and close, and —
 * when the node count is known — the number of waves. The operator replaces at most the allowed number
 * of drifted nodes at a time, so D drifted nodes take ceil(D / allowed) waves.
 */
import {
  allowedDisruptions,
  budgetWindow,
  DEFAULT_BUDGETS,
  MAX_INT32,
  type BudgetSpec,
} from "../../../policies/domain/budgets.ts";
import { waveSizes } from "../../../policies/domain/drift-waves.ts";
import type { BudgetState, PoolPacing } from "./types.ts";

const DRIFTED = "Drifted";

/** The pool fields pacing reads. */
export interface PacedPool {
  readonly name: string;
  /** spec.disruption.budgets as written; undefined: the API default. */
  readonly budgets: readonly BudgetSpec[] | undefined;
  readonly timeZone: string;
  /** `kerf.dev/drift-rollout: waves`: growing waves of 1, 2, 4, … nodes (policies/domain/drift-waves.ts). */
  readonly growingWaves?: boolean;
}

function stateOf(budget: BudgetSpec, index: number, now: Date, timeZone: string): BudgetState {
  const base = {
    index,
    nodes: budget.nodes ?? "10%",
    ...(budget.schedule === undefined ? {} : { schedule: budget.schedule }),
    ...(budget.duration === undefined ? {} : { duration: budget.duration }),
  };
  try {
    const window = budgetWindow(budget, now, timeZone);
    if (window === undefined) return { ...base, active: true };
    return {
      ...base,
      active: window.active,
      ...(window.opensAt === undefined ? {} : { opensAt: window.opensAt.toISOString() }),
      ...(window.closesAt === undefined ? {} : { closesAt: window.closesAt.toISOString() }),
    };
  } catch (error) {
    return { ...base, active: true, error: (error as Error).message };
  }
}

/** The Drifted budgets of a pool, each evaluated at `now`. */
export function budgetStates(pool: PacedPool, now: Date): BudgetState[] {
  const defaulted = pool.budgets === undefined;
  return (pool.budgets ?? DEFAULT_BUDGETS).flatMap((budget, i) => {
    if (budget.reasons !== undefined && !budget.reasons.includes(DRIFTED)) return [];
    return [stateOf(budget, defaulted ? -1 : i, now, pool.timeZone)];
  });
}

/** A budget's `nodes` as a count or a percentage; undefined when it cannot be read (it then allows 0). */
function parsedNodes(state: BudgetState): { count?: number; percent?: number } | undefined {
  if (state.error !== undefined) return undefined;
  const match = /^\+?(\d+)(%?)$/.exec(state.nodes);
  if (match === null) return undefined;
  return match[2] === "%" ? { percent: Number(match[1]) } : { count: Number(match[1]) };
}

/** What the active budgets allow, without a node count: min over counts and over percentages. */
function allowedText(active: readonly BudgetState[]): { text: string; blocked: boolean } {
  if (active.length === 0) return { text: "unlimited (no active budget)", blocked: false };
  const parsed = active.map(parsedNodes);
  if (parsed.some((p) => p === undefined)) return { text: "0 nodes (a budget fails to parse)", blocked: true };
  const counts = parsed.flatMap((p) => (p?.count === undefined ? [] : [p.count]));
  const percents = parsed.flatMap((p) => (p?.percent === undefined ? [] : [p.percent]));
  const count = counts.length === 0 ? undefined : Math.min(...counts);
  const percent = percents.length === 0 ? undefined : Math.min(...percents);
  if (count === 0 || percent === 0) return { text: "0 nodes", blocked: true };
  const parts = [
    ...(count === undefined ? [] : [`${count} node${count === 1 ? "" : "s"}`]),
    ...(percent === undefined ? [] : [`${percent}% of the pool's nodes (rounded up)`]),
  ];
  return { text: parts.length === 1 ? (parts[0] as string) : `min(${parts.join(", ")})`, blocked: false };
}

/** When the active windows that block now have all closed; undefined when an always-active budget blocks. */
function blockedUntil(active: readonly BudgetState[]): string | undefined {
  const blocking = active.filter((s) => {
    const p = parsedNodes(s);
    return p === undefined || p.count === 0 || p.percent === 0;
  });
  if (blocking.some((s) => s.schedule === undefined || s.closesAt === undefined)) return undefined;
  return blocking
    .map((s) => s.closesAt as string)
    .sort()
    .at(-1);
}

interface WaveInput {
  readonly pool: PacedPool;
  readonly now: Date;
  readonly nodes: number;
  readonly drifting: number;
}

/** Waves at the pace allowed now, or — when blocked now — once the blocking windows have closed. */
function waves(input: WaveInput, until: string | undefined): Pick<PoolPacing, "waves" | "wavesNote"> {
  const { pool, nodes, drifting } = input;
  if (drifting === 0) return { wavesNote: "no node drifts" };
  const at = (when: Date): number => allowedDisruptions(pool.budgets, DRIFTED, nodes, when, pool.timeZone).allowed;
  let perWave = at(input.now);
  let startsAt: string | undefined;
  if (perWave === 0 && until !== undefined) {
    perWave = at(new Date(until));
    startsAt = until;
  }
  if (perWave === 0) return { wavesNote: `with ${nodes} nodes the budgets allow no Drifted disruption` };
  perWave = Math.min(perWave === MAX_INT32 ? drifting : perWave, drifting);
  const at_ = startsAt === undefined ? {} : { startsAt };
  if (pool.growingWaves === true) {
    // Each wave waits for the one before to settle; the budget caps how many of a wave go at once.
    const sizes = waveSizes(drifting);
    return { waves: { nodes, drifting, perWave, waves: sizes.length, sizes, ...at_ } };
  }
  return { waves: { nodes, drifting, perWave, waves: Math.ceil(drifting / perWave), ...at_ } };
}

/** The pacing of a Drifted rollout of `drifting` of the pool's `nodes` nodes (both unknown offline). */
export function pacingOf(
  pool: PacedPool,
  now: Date,
  count?: { readonly nodes: number; readonly drifting: number },
): PoolPacing {
  const budgets = budgetStates(pool, now);
  const active = budgets.filter((s) => s.active);
  const { text, blocked } = allowedText(active);
  const until = blocked ? blockedUntil(active) : undefined;
  const base = {
    nodePool: pool.name,
    timeZone: pool.timeZone,
    budgets,
    allowedNow: text,
    blocked,
    ...(until === undefined ? {} : { blockedUntil: until }),
  };
  if (count === undefined) return { ...base, wavesNote: "node count unknown" };
  return { ...base, ...waves({ pool, now, ...count }, until) };
}

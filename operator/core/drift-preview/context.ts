/** What every object's preview shares: the moment, the pools of both sides and of the cluster, the live NodeClaims. */
import { driftRolloutOf } from "../../../policies/domain/drift-waves.ts";
import { BUDGET_TIMEZONE_ANNOTATION, type BudgetSpec } from "../../../policies/domain/budgets.ts";
import { countLive, type Measure } from "./live.ts";
import { pacingOf, type PacedPool } from "./pacing.ts";
import type { LiveCount, LiveState, PoolPacing, Replacement } from "./types.ts";

type Obj = Readonly<Record<string, unknown>>;

const obj = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});

/** `a.b.c` of a value, undefined where a step is missing. */
export function at(value: unknown, ...keys: string[]): unknown {
  return keys.reduce<unknown>((v, k) => obj(v)[k], value);
}

export function nameOf(value: unknown): string {
  const name = at(value, "metadata", "name");
  return typeof name === "string" && name !== "" ? name : "<unnamed>";
}

/** The EC2NodeClass a NodePool's template references (kind EC2NodeClass or unset). */
export function nodeClassOf(pool: unknown): string | undefined {
  const ref = obj(at(pool, "spec", "template", "spec", "nodeClassRef"));
  const kind = ref["kind"];
  return (kind === undefined || kind === "EC2NodeClass") && typeof ref["name"] === "string" ? ref["name"] : undefined;
}

export function pacedPool(pool: unknown): PacedPool {
  const budgets = at(pool, "spec", "disruption", "budgets");
  const zone = at(pool, "metadata", "annotations", BUDGET_TIMEZONE_ANNOTATION);
  const rollout = driftRolloutOf(obj(at(pool, "metadata", "annotations")));
  return {
    name: nameOf(pool),
    budgets: Array.isArray(budgets) ? (budgets as BudgetSpec[]) : undefined,
    timeZone: typeof zone === "string" ? zone : "UTC",
    ...(rollout.kind === "waves" ? { growingWaves: true } : {}),
  };
}

export class PreviewContext {
  /** The NodePools as they will be: the new files' first, then the cluster's that the files do not hold. */
  readonly pools: ReadonlyMap<string, Obj>;

  readonly now: Date;
  private readonly live: LiveState | undefined;

  constructor(now: Date, afterPools: readonly Obj[], live?: LiveState) {
    this.now = now;
    this.live = live;
    const pools = new Map<string, Obj>();
    for (const pool of [...afterPools, ...(live?.nodePools ?? [])])
      if (!pools.has(nameOf(pool))) pools.set(nameOf(pool), pool);
    this.pools = pools;
  }

  get hasLive(): boolean {
    return this.live !== undefined;
  }

  /** The pools whose template references the EC2NodeClass `name`, sorted. */
  referencing(name: string): string[] {
    return [...this.pools.entries()]
      .filter(([, p]) => nodeClassOf(p) === name)
      .map(([n]) => n)
      .sort();
  }

  liveCount(pool: string, measure: Measure): LiveCount | undefined {
    return this.live === undefined ? undefined : countLive(pool, this.live.nodeClaims, measure, this.live.caBundle);
  }

  /**
   * The pacing of `pool` (its budgets as they will be). The wave estimate counts the live NodeClaims that
   * drift; when drift depends on what selectors resolve to ("maybe"), all of the pool's NodeClaims.
   */
  pacing(pool: string, replaces: Replacement, live: LiveCount | undefined): PoolPacing {
    const paced = pacedPool(this.pools.get(pool) ?? { metadata: { name: pool } });
    if (live === undefined) return pacingOf(paced, this.now);
    const drifting = replaces === "maybe" && live.drifting === 0 ? live.nodeClaims : live.drifting;
    return pacingOf(paced, this.now, { nodes: live.budgetNodes, drifting });
  }
}

/**
 * Nodes the provisioner nominated pending pods to (Karpenter's nominated state): such a node is not
 * a disruption candidate until the nomination window — max(2 × batchMaxDuration, 10 s) — has passed,
 * so consolidation never removes the place a pod was just promised.
 */
import type { Clock } from "../../core/clock.ts";

export class Nominations {
  private readonly until = new Map<string, number>();
  private readonly windowMs: number;
  private readonly clock: Clock;

  constructor(batchMaxDurationMs: number, clock: Clock) {
    this.windowMs = Math.max(2 * batchMaxDurationMs, 10_000);
    this.clock = clock;
  }

  nominate(node: string): void {
    this.until.set(node, this.clock.now().getTime() + this.windowMs);
  }

  /** The nodes whose nomination is still in force (expired ones are forgotten). */
  active(): Set<string> {
    const now = this.clock.now().getTime();
    const out = new Set<string>();
    for (const [node, until] of this.until)
      if (until > now) out.add(node);
      else this.until.delete(node);
    return out;
  }
}

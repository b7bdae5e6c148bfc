/**
 * The provisioning batch window (behaviour §1.2): the first trigger opens it, every new trigger id
 * (a pod UID) extends it, and it closes after `idleMs` without a new id or `maxMs` in total.
 * Time and timers are injected so the window can be tested without waiting.
 */

/** The time source and timers the batcher uses (real ones by default). */
export interface Timers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** One closed window: the ids it collected and when it opened and closed. */
export interface Batch {
  readonly ids: readonly string[];
  readonly openedAt: number;
  readonly closedAt: number;
}

export interface BatcherOptions {
  readonly idleMs: number;
  readonly maxMs: number;
  /** How long wait() waits for a first trigger before it gives up (Karpenter returns and requeues). */
  readonly pollMs?: number;
  readonly timers?: Timers;
}

interface Window {
  readonly ids: Set<string>;
  readonly openedAt: number;
  lastNewAt: number;
}

/** Collects triggers into windows; one consumer calls wait() in a loop. */
export class Batcher {
  private readonly o: BatcherOptions;
  private readonly timers: Timers;
  private window: Window | undefined;
  private wake: (() => void) | undefined;

  constructor(options: BatcherOptions) {
    this.o = options;
    this.timers = options.timers ?? realTimers;
  }

  /** Whether a window is open (a trigger arrived that no wait() has consumed yet). */
  get open(): boolean {
    return this.window !== undefined;
  }

  /** Records a trigger; a new id opens or extends the window, a repeated one changes nothing. */
  trigger(id: string): void {
    const now = this.timers.now();
    if (this.window === undefined) this.window = { ids: new Set([id]), openedAt: now, lastNewAt: now };
    else if (!this.window.ids.has(id)) {
      this.window.ids.add(id);
      this.window.lastNewAt = now;
    } else return;
    this.wake?.();
  }

  /**
   * Resolves with the batch when the window closes; undefined when no trigger came within pollMs
   * or the signal aborted (the window, if any, stays open for the next wait()).
   */
  async wait(signal?: AbortSignal): Promise<Batch | undefined> {
    for (;;) {
      if (signal?.aborted === true) return undefined;
      const window = this.window;
      const deadline =
        window === undefined ? undefined : Math.min(window.lastNewAt + this.o.idleMs, window.openedAt + this.o.maxMs);
      const now = this.timers.now();
      if (window !== undefined && deadline !== undefined && now >= deadline) {
        this.window = undefined;
        return { ids: [...window.ids], openedAt: window.openedAt, closedAt: now };
      }
      const timedOut = await this.sleep(
        deadline === undefined ? (this.o.pollMs ?? 60_000) : deadline - now,
        window === undefined,
        signal,
      );
      if (timedOut && this.window === undefined) return undefined;
    }
  }

  /** Sleeps `ms`, or until a trigger when `wakeOnTrigger`; true when the time ran out. */
  private sleep(ms: number, wakeOnTrigger: boolean, signal: AbortSignal | undefined): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (timedOut: boolean): void => {
        this.timers.clearTimeout(handle);
        this.wake = undefined;
        signal?.removeEventListener("abort", onAbort);
        resolve(timedOut);
      };
      const onAbort = (): void => done(false);
      const handle = this.timers.setTimeout(() => done(true), Math.max(0, ms));
      // A trigger only matters to a waiter with no open window: later ids move the deadline, which
      // the loop re-reads when this timer fires (the idle deadline only moves later).
      this.wake = wakeOnTrigger ? () => done(false) : undefined;
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}

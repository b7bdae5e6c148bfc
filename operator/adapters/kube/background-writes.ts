/**
 * Fire-and-forget writes that must not compete with reconcile writes: at most `concurrency` run at
 * once, at most `capacity` wait, and anything beyond that is dropped (and counted). Events are the
 * user: a burst of 1,000 Nominated events written all at once would sit in front of the NodeClaim
 * writes on the same apiserver and connection pool; client-go's event broadcaster is likewise a
 * bounded, lossy channel.
 */

/** Limits; both must be positive. */
export interface BackgroundWritesOptions {
  readonly concurrency: number;
  readonly capacity: number;
}

/** A bounded, lossy queue of async writes. */
export class BackgroundWrites {
  private readonly o: BackgroundWritesOptions;
  private readonly waiting: (() => Promise<void>)[] = [];
  private running = 0;
  private idleWaiters: (() => void)[] = [];
  /** Writes refused because the queue was full. */
  dropped = 0;

  constructor(options: BackgroundWritesOptions) {
    this.o = options;
  }

  /**
   * Queues `write`; false when the queue is full and the write was dropped. `write` must not throw
   * synchronously or reject (handle errors inside).
   */
  submit(write: () => Promise<void>): boolean {
    if (this.running < this.o.concurrency) {
      this.start(write);
      return true;
    }
    if (this.waiting.length >= this.o.capacity) {
      this.dropped += 1;
      return false;
    }
    this.waiting.push(write);
    return true;
  }

  /** Writes queued or running. */
  get pending(): number {
    return this.running + this.waiting.length;
  }

  /** Resolves when nothing is queued or running. */
  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private start(write: () => Promise<void>): void {
    this.running += 1;
    void write()
      .catch(() => undefined)
      .finally(() => {
        this.running -= 1;
        const next = this.waiting.shift();
        if (next !== undefined) this.start(next);
        else if (this.running === 0) for (const w of this.idleWaiters.splice(0)) w();
      });
  }
}

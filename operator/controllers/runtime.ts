/**
 * The controller runtime: a keyed work queue per controller with dedupe, per-key exponential backoff,
 * requeueAfter and TerminalError (controller-runtime's contract). One key is never reconciled twice
 * concurrently; a key added while it is being reconciled runs again afterwards.
 */
import type { Logger } from "pino";
import type { Metrics } from "../observability/metrics.ts";

/** What a reconcile asks for next; an empty result means "done until something changes". */
export interface Result {
  readonly requeueAfter?: number;
}

/** The longest delay setTimeout honours. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Marks an error that retrying cannot fix: logged once, not requeued. */
export class TerminalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TerminalError";
  }
}

/** A level-based reconciler: reads current state for `key` and converges it. */
export type Reconcile = (key: string, signal: AbortSignal) => Promise<Result>;

/** Backoff for failed keys: doubled from baseMs to maxMs; reset after a success. */
export interface QueueOptions {
  readonly name: string;
  readonly reconcile: Reconcile;
  readonly concurrency?: number;
  readonly baseBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /** Errors (e.g. write conflicts) that mean "requeue soon" instead of "back off". */
  readonly isConflict?: (error: unknown) => boolean;
  readonly logger: Logger;
  readonly metrics?: Metrics;
}

/** A keyed work queue that runs a reconciler. */
export class WorkQueue {
  private readonly opts: QueueOptions;
  private readonly queued = new Set<string>();
  private readonly order: string[] = [];
  private readonly active = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly failures = new Map<string, number>();
  private running = 0;
  private abort = new AbortController();
  private started = false;
  private idleWaiters: (() => void)[] = [];

  constructor(opts: QueueOptions) {
    this.opts = opts;
  }

  get name(): string {
    return this.opts.name;
  }
  /** Keys waiting to run (not counting delayed ones). */
  get depth(): number {
    return this.order.length;
  }

  /** Enqueues `key` now (no-op if already queued). */
  add(key: string): void {
    if (this.active.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.order.push(key);
    this.opts.metrics?.workqueueDepth.set({ name: this.opts.name }, this.order.length);
    this.pump();
  }

  /** Enqueues `key` after `ms`; an earlier pending timer for the key wins. */
  addAfter(key: string, requested: number): void {
    if (requested <= 0) {
      this.add(key);
      return;
    }
    // setTimeout fires at once for delays past 2^31-1 ms (~24.8 days); a key due later is
    // looked at then and requeues itself.
    const ms = Math.min(requested, MAX_TIMER_MS);
    const at = performance.now() + ms;
    const existing = this.timers.get(key);
    if (existing !== undefined && existing.at <= at) return;
    if (existing !== undefined) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, ms);
    this.timers.set(key, { at, timer });
  }

  /** Starts processing; keys added before start wait until then. */
  start(): void {
    this.started = true;
    this.abort = new AbortController();
    this.pump();
  }

  /** Stops taking work, aborts in-flight reconciles' signals and resolves when they have returned. */
  async stop(): Promise<void> {
    this.started = false;
    this.abort.abort();
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await this.idle();
  }

  /** Resolves when nothing is running. */
  idle(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    const limit = this.opts.concurrency ?? 1;
    while (this.started && this.running < limit) {
      const key = this.order.shift();
      if (key === undefined) break;
      this.queued.delete(key);
      this.active.add(key);
      this.running += 1;
      void this.process(key).finally(() => this.finish(key));
    }
  }

  private finish(key: string): void {
    this.active.delete(key);
    this.running -= 1;
    if (this.dirty.delete(key)) this.add(key);
    if (this.running === 0) for (const w of this.idleWaiters.splice(0)) w();
    this.pump();
  }

  private async process(key: string): Promise<void> {
    const started = performance.now();
    const name = this.opts.name;
    try {
      const result = await this.opts.reconcile(key, this.abort.signal);
      this.failures.delete(key);
      this.opts.metrics?.reconcileTotal.inc({
        controller: name,
        result: result.requeueAfter === undefined ? "success" : "requeue_after",
      });
      if (result.requeueAfter !== undefined && this.started) this.addAfter(key, result.requeueAfter);
    } catch (error) {
      this.failed(key, error);
    } finally {
      this.opts.metrics?.reconcileDuration.observe({ controller: name }, (performance.now() - started) / 1000);
    }
  }

  /** controller-runtime's counters of a failed reconcile: result="error" and reconcile_errors_total. */
  private countError(): void {
    this.opts.metrics?.reconcileTotal.inc({ controller: this.opts.name, result: "error" });
    this.opts.metrics?.reconcileErrors.inc({ controller: this.opts.name });
  }

  private failed(key: string, error: unknown): void {
    const name = this.opts.name;
    if (error instanceof TerminalError) {
      this.countError();
      this.opts.logger.error({ controller: name, key, err: error }, "reconciling: terminal error, not retrying");
      return;
    }
    if (this.opts.isConflict?.(error) === true) {
      this.opts.metrics?.reconcileTotal.inc({ controller: name, result: "requeue" });
      this.opts.logger.debug({ controller: name, key, err: error }, "reconciling: conflict, requeueing");
      if (this.started) this.addAfter(key, 10);
      return;
    }
    const count = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, count);
    const delay = Math.min((this.opts.baseBackoffMs ?? 100) * 2 ** (count - 1), this.opts.maxBackoffMs ?? 30_000);
    this.countError();
    this.opts.logger.error({ controller: name, key, err: error, retryInMs: delay }, "reconciling failed");
    if (this.started) this.addAfter(key, delay);
  }
}

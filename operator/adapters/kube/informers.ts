/**
 * Informers that survive apiserver restarts. @kubernetes/client-node's ListWatch relists on 410 Gone
 * but stops for good on any other error (connection reset, 5xx, a failed list); this wrapper
 * restarts it with capped exponential backoff and reports whether its cache is synced.
 */
import {
  makeInformer,
  type Informer,
  type KubeConfig,
  type KubernetesObject,
  type ListPromise,
  type ObjectCache,
} from "@kubernetes/client-node";

/** Restart delays: doubled from `initialMs` up to `maxMs` after each consecutive failure. */
export interface Backoff {
  readonly initialMs: number;
  readonly maxMs: number;
}

/** What to watch. */
export interface InformerSpec<T extends KubernetesObject> {
  readonly kubeConfig: KubeConfig;
  /** API path, e.g. "/api/v1/pods" or "/apis/karpenter.sh/v1/nodepools". */
  readonly path: string;
  readonly list: ListPromise<T>;
  readonly labelSelector?: string;
  readonly backoff?: Backoff;
  /** Applied in place to every listed or watched object before anyone else sees it (e.g. stripManagedFields). */
  readonly transform?: (obj: T) => T;
  /** Called with every watch/list failure before the restart is scheduled. */
  readonly onError?: (error: unknown) => void;
}

type Handler<T> = (obj: T) => void;

/** A self-restarting informer with its object cache. */
export class ResilientInformer<T extends KubernetesObject> implements ObjectCache<T> {
  private readonly inner: Informer<T> & ObjectCache<T>;
  private readonly spec: InformerSpec<T>;
  private readonly backoff: Backoff;
  private delayMs: number;
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private failedAt = 0;
  private startedAt = 0;
  private hasSynced = false;
  /** Number of restarts after errors; observable for tests and metrics. */
  restarts = 0;

  constructor(spec: InformerSpec<T>) {
    this.spec = spec;
    this.backoff = spec.backoff ?? { initialMs: 500, maxMs: 30_000 };
    this.delayMs = this.backoff.initialMs;
    this.inner = makeInformer(spec.kubeConfig, spec.path, spec.list, spec.labelSelector);
    // Registered first, so the cache and every later handler hold the transformed object.
    const transform = spec.transform;
    if (transform !== undefined)
      for (const verb of ["add", "update"] as const)
        this.inner.on(verb, (obj) => {
          transform(obj);
        });
    this.inner.on("error", (error) => this.failed(error));
    this.inner.on("connect", () => {
      this.delayMs = this.backoff.initialMs;
    });
  }

  /** True once a list has completed; stays true across restarts (the cache is kept, then reconciled by the relist). */
  get synced(): boolean {
    return this.hasSynced;
  }

  on(verb: "add" | "update" | "delete", handler: Handler<T>): void {
    this.inner.on(verb, handler);
  }
  get(name: string, namespace?: string): T | undefined {
    return this.inner.get(name, namespace);
  }
  list(namespace?: string): ReadonlyArray<T> {
    return this.inner.list(namespace);
  }

  /** Starts watching; resolves after the first attempt (synced or not; a failure schedules a retry). */
  async start(): Promise<void> {
    this.stopped = false;
    await this.attempt();
  }

  /** Stops watching and cancels any pending restart. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.inner.stop();
  }

  private async attempt(): Promise<void> {
    this.startedAt = performance.now();
    try {
      await this.inner.start();
    } catch (error) {
      this.failed(error);
      return;
    }
    if (this.failedAt < this.startedAt) this.hasSynced = true;
  }

  private failed(error: unknown): void {
    this.failedAt = performance.now();
    this.spec.onError?.(error);
    if (this.stopped || this.timer !== undefined) return;
    const delay = this.delayMs;
    this.delayMs = Math.min(this.delayMs * 2, this.backoff.maxMs);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.stopped) return;
      this.restarts += 1;
      void this.attempt();
    }, delay);
  }
}

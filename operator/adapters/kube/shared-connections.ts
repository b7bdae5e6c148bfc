/**
 * One connection pool per KubeConfig. client-node 2.0 builds a new undici Agent for every API call
 * (KubeConfig.applySecurityAuthentication → createDispatcher), so every call and every watch paid a
 * TCP + TLS handshake and a new HTTP/2 session: at a burst of 1,000 pending pods the operator spent
 * most of its CPU in handshakes, and a NodeClaim create waited 300–600 ms behind them.
 *
 * This subclass lets client-node authenticate each request as usual (headers, bearer tokens and the
 * TLS material stay the library's business) and then swaps in the first dispatcher it built, reused
 * for `maxAgeMs`. Renewing the pool on that schedule is how a rotated client certificate or CA file
 * is picked up (client-go reloads them too); a replaced pool closes once its requests have ended.
 */
import { KubeConfig, type RequestContext } from "@kubernetes/client-node";

type Dispatcher = NonNullable<ReturnType<RequestContext["getDispatcher"]>>;

/** How long one pool serves before a new one takes over for new requests. */
export const POOL_MAX_AGE_MS = 10 * 60_000;

/** `maxAgeMs` defaults to POOL_MAX_AGE_MS; `now` (ms, monotonic) to performance.now. */
export interface PoolOptions {
  readonly maxAgeMs?: number;
  readonly now?: () => number;
}

export class SharedConnectionsKubeConfig extends KubeConfig {
  private pool: { readonly dispatcher: Dispatcher; readonly at: number } | undefined;
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(o: PoolOptions = {}) {
    super();
    this.maxAgeMs = o.maxAgeMs ?? POOL_MAX_AGE_MS;
    this.now = o.now ?? (() => performance.now());
  }

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    // client-node sets no dispatcher for a plain-HTTP server without TLS material: fetch's global pool serves it.
    const built = context.getDispatcher();
    if (built === undefined) return;
    const now = this.now();
    if (this.pool === undefined || now - this.pool.at >= this.maxAgeMs) {
      const old = this.pool?.dispatcher;
      this.pool = { dispatcher: built, at: now };
      // close() lets requests already on the old pool (watches included) finish first.
      void old?.close().catch(() => undefined);
      return;
    }
    // The Agent client-node just built has opened nothing yet; dropping it costs nothing.
    context.setDispatcher(this.pool.dispatcher);
  }

  /** Closes the current pool once its requests have ended (an operator shutting down). */
  async closeConnections(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.dispatcher.close().catch(() => undefined);
  }
}

/** A copy of `kc` (same clusters, users, contexts and current context) with a connection pool of its own. */
export function sharingConnections(kc: KubeConfig, o: PoolOptions = {}): SharedConnectionsKubeConfig {
  const shared = new SharedConnectionsKubeConfig(o);
  shared.loadFromString(kc.exportConfig());
  return shared;
}

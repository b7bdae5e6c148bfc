/**
 * Leader election on a coordination.k8s.io/v1 Lease, with controller-runtime's timings (15 s lease,
 * 10 s renew deadline, 2 s retry). Expiry is judged from when this replica last *observed* the Lease
 * change (client-go's rule), so clock skew between replicas does not matter. A leader that cannot renew
 * for renewDeadline steps down before anyone else may take over (leaseDuration > renewDeadline), which is
 * what keeps two replicas from acting at once. On stop the Lease is released for a prompt takeover.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { CoordinationV1Api, type KubeConfig, type V1Lease } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { Metrics } from "../../observability/metrics.ts";
import { ConflictError, NotFoundError, kube, mergePatch } from "./client.ts";
import { sharingConnections, type SharedConnectionsKubeConfig } from "./shared-connections.ts";

/** Settings of one elector. */
export interface LeaderElectionOptions {
  readonly kubeConfig: KubeConfig;
  readonly name: string;
  readonly namespace: string;
  readonly identity: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  readonly logger: Logger;
  readonly metrics?: Metrics;
  /** Called once this replica holds the Lease. */
  readonly onStartedLeading: () => void | Promise<void>;
  /** Called when leadership ends: lost (`released` false) or given up on stop (`released` true). */
  readonly onStoppedLeading: (released: boolean) => void | Promise<void>;
}

/** Runs the acquire/renew loop. */
export class LeaderElector {
  private readonly o: LeaderElectionOptions;
  private readonly api: CoordinationV1Api;
  private readonly connections: SharedConnectionsKubeConfig;
  private readonly abort = new AbortController();
  private leading = false;
  private lastRenewMs = 0;
  private observed = "";
  private observedAtMs = 0;
  private loop: Promise<void> | undefined;

  constructor(options: LeaderElectionOptions) {
    this.o = options;
    // Its own connection pool, so a busy pool (watches, bursts of writes) never delays a renew.
    this.connections = sharingConnections(options.kubeConfig);
    this.api = this.connections.makeApiClient(CoordinationV1Api);
  }

  /** Whether this replica currently holds the Lease. */
  get isLeader(): boolean {
    return this.leading;
  }

  /** Starts the loop in the background. */
  start(): void {
    this.loop ??= this.run();
  }

  /** Stops the loop; a leader releases the Lease (holder "" and 1 s duration) and steps down. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    if (this.leading) {
      try {
        await this.release();
      } catch (error) {
        this.o.logger.warn({ err: error }, "releasing leader lease failed; the next leader waits for expiry");
      }
      await this.stepDown(true);
    }
    await this.connections.closeConnections();
  }

  private async run(): Promise<void> {
    while (!this.abort.signal.aborted) {
      await this.tick();
      try {
        await sleep(this.o.retryPeriodMs, undefined, { signal: this.abort.signal });
      } catch {
        return;
      }
    }
  }

  private async tick(): Promise<void> {
    let held = false;
    try {
      held = await this.tryAcquireOrRenew();
    } catch (error) {
      this.o.logger.warn({ err: error, lease: this.o.name }, "acquiring or renewing leader lease failed");
    }
    if (this.abort.signal.aborted) return;
    const now = performance.now();
    if (held) this.lastRenewMs = now;
    if (held && !this.leading) await this.stepUp();
    else if (this.leading && now - this.lastRenewMs > this.o.renewDeadlineMs) await this.stepDown(false);
  }

  private async stepUp(): Promise<void> {
    this.leading = true;
    this.o.metrics?.leaderElectionMaster.set({ name: this.o.name }, 1);
    this.o.logger.info({ lease: this.o.name, identity: this.o.identity }, "became leader");
    await this.o.onStartedLeading();
  }

  private async stepDown(released: boolean): Promise<void> {
    this.leading = false;
    this.o.metrics?.leaderElectionMaster.set({ name: this.o.name }, 0);
    this.o.logger.info(
      { lease: this.o.name, identity: this.o.identity, released },
      released ? "released leadership" : "lost leadership",
    );
    await this.o.onStoppedLeading(released);
  }

  /**
   * The Lease spec to write, times as MicroTime strings. client-node serialises Date fields with
   * millisecond precision, which the apiserver refuses for MicroTime, so times never go through its models.
   */
  private spec(previous: V1Lease["spec"], acquiring: boolean): Record<string, unknown> {
    const now = microTime(new Date());
    const acquireTime = previous?.acquireTime === undefined ? now : microTime(new Date(previous.acquireTime));
    return {
      holderIdentity: this.o.identity,
      leaseDurationSeconds: Math.ceil(this.o.leaseDurationMs / 1000),
      acquireTime: acquiring ? now : acquireTime,
      renewTime: now,
      // As client-go: every change of holder counts, including taking over a released Lease.
      leaseTransitions: (previous?.leaseTransitions ?? 0) + (acquiring && previous !== undefined ? 1 : 0),
    };
  }

  /** Merge-patches the Lease with resourceVersion as a precondition: a concurrent writer makes it fail with 409. */
  private async write(what: string, lease: V1Lease, spec: Record<string, unknown>): Promise<void> {
    const { name, namespace } = this.o;
    const body = { metadata: { resourceVersion: lease.metadata?.resourceVersion }, spec };
    await kube(what, () => this.api.patchNamespacedLease({ name, namespace, body }, mergePatch));
  }

  /** True when this replica holds the Lease after the attempt. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const { name, namespace } = this.o;
    let lease: V1Lease;
    try {
      lease = await kube("reading leader lease", () => this.api.readNamespacedLease({ name, namespace }));
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      // Create is exclusive (409 when another replica won the race); times are set by the next renew.
      const spec = {
        holderIdentity: this.o.identity,
        leaseDurationSeconds: Math.ceil(this.o.leaseDurationMs / 1000),
        leaseTransitions: 0,
      };
      try {
        await kube("creating leader lease", () =>
          this.api.createNamespacedLease({ namespace, body: { metadata: { name, namespace }, spec } }),
        );
      } catch (error) {
        if (error instanceof ConflictError) return false;
        throw error;
      }
      return true;
    }
    const holder = lease.spec?.holderIdentity ?? "";
    const mine = holder === this.o.identity;
    if (!mine && holder !== "" && !this.expired(lease)) return false;
    try {
      await this.write("updating leader lease", lease, this.spec(lease.spec, !mine));
    } catch (error) {
      if (error instanceof ConflictError) return false;
      throw error;
    }
    return true;
  }

  /** Whether the holder has not renewed for a full lease duration, as observed locally. */
  private expired(lease: V1Lease): boolean {
    const record = JSON.stringify([lease.spec?.holderIdentity, lease.spec?.renewTime, lease.metadata?.resourceVersion]);
    const now = performance.now();
    if (record !== this.observed) {
      this.observed = record;
      this.observedAtMs = now;
    }
    const duration = (lease.spec?.leaseDurationSeconds ?? Math.ceil(this.o.leaseDurationMs / 1000)) * 1000;
    return now - this.observedAtMs > duration;
  }

  private async release(): Promise<void> {
    const { name, namespace } = this.o;
    const lease = await kube("reading leader lease", () => this.api.readNamespacedLease({ name, namespace }));
    if (lease.spec?.holderIdentity !== this.o.identity) return;
    await this.write("releasing leader lease", lease, {
      holderIdentity: "",
      leaseDurationSeconds: 1,
      renewTime: microTime(new Date()),
    });
  }
}

/** RFC 3339 with exactly six fractional digits, the apiserver's MicroTime wire format. */
export function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

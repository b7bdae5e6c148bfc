/**
 * Writes core/v1 Events for the operator, suppressing repeats of the same (object, reason, key)
 * within a window, like Karpenter's dedupe. Writes run in the background, a few at a time, so a
 * burst of Events never delays the writes that launch capacity; past `capacity` waiting Events
 * the newest are dropped (counted in `dropped`), as client-go's broadcaster drops on a full channel.
 */
import { CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { EventRecorder, OperatorEvent } from "../../observability/events.ts";
import { BackgroundWrites } from "./background-writes.ts";

/** Options: `dedupeMs` defaults to 2 minutes, `concurrency` to 2 writes in flight, `capacity` to 5,000 waiting. */
export interface KubeEventRecorderOptions {
  readonly kubeConfig: KubeConfig;
  readonly logger: Logger;
  readonly component?: string;
  readonly dedupeMs?: number;
  readonly concurrency?: number;
  readonly capacity?: number;
}

/** Fire-and-forget recorder: failures are logged, never thrown into a reconcile. */
export class KubeEventRecorder implements EventRecorder {
  private readonly core: CoreV1Api;
  private readonly o: KubeEventRecorderOptions;
  private readonly recent = new Map<string, number>();
  private readonly writes: BackgroundWrites;

  constructor(options: KubeEventRecorderOptions) {
    this.o = options;
    this.core = options.kubeConfig.makeApiClient(CoreV1Api);
    this.writes = new BackgroundWrites({ concurrency: options.concurrency ?? 2, capacity: options.capacity ?? 5_000 });
  }

  /** Events dropped because too many were waiting. */
  get dropped(): number {
    return this.writes.dropped;
  }

  /** Resolves when every accepted Event has been written or has failed. */
  flushed(): Promise<void> {
    return this.writes.idle();
  }

  publish(event: OperatorEvent): void {
    const key = [
      event.involved.kind,
      event.involved.namespace,
      event.involved.name,
      event.reason,
      event.dedupeKey ?? event.message,
    ].join("/");
    const now = Date.now();
    const last = this.recent.get(key);
    if (last !== undefined && now - last < (this.o.dedupeMs ?? 120_000)) return;
    this.recent.set(key, now);
    if (this.recent.size > 10_000) this.recent.clear();
    const accepted = this.writes.submit(() =>
      this.write(event).catch((error: unknown) =>
        this.o.logger.warn({ err: error, reason: event.reason }, "writing event failed"),
      ),
    );
    if (!accepted && this.writes.dropped % 1000 === 1)
      this.o.logger.warn({ dropped: this.writes.dropped, reason: event.reason }, "too many events waiting; dropping");
  }

  private async write(event: OperatorEvent): Promise<void> {
    const namespace = event.involved.namespace ?? "default";
    const time = new Date();
    await this.core.createNamespacedEvent({
      namespace,
      body: {
        metadata: { generateName: `${event.involved.name}.`, namespace },
        involvedObject: { ...event.involved },
        reason: event.reason,
        message: event.message,
        type: event.type,
        source: { component: this.o.component ?? "karpenter" },
        firstTimestamp: time,
        lastTimestamp: time,
        count: 1,
        reportingComponent: this.o.component ?? "karpenter",
        reportingInstance: "",
      },
    });
  }
}

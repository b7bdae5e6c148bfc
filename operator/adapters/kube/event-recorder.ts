/** Writes core/v1 Events for the operator, suppressing repeats of the same (object, reason, key) within a window, like Karpenter's dedupe. */
import { CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { EventRecorder, OperatorEvent } from "../../observability/events.ts";

/** Options: `dedupeMs` defaults to 2 minutes. */
export interface KubeEventRecorderOptions {
  readonly kubeConfig: KubeConfig;
  readonly logger: Logger;
  readonly component?: string;
  readonly dedupeMs?: number;
}

/** Fire-and-forget recorder: failures are logged, never thrown into a reconcile. */
export class KubeEventRecorder implements EventRecorder {
  private readonly core: CoreV1Api;
  private readonly o: KubeEventRecorderOptions;
  private readonly recent = new Map<string, number>();

  constructor(options: KubeEventRecorderOptions) {
    this.o = options;
    this.core = options.kubeConfig.makeApiClient(CoreV1Api);
  }

  publish(event: OperatorEvent): void {
    const key = [event.involved.kind, event.involved.namespace, event.involved.name, event.reason, event.dedupeKey ?? event.message].join("/");
    const now = Date.now();
    const last = this.recent.get(key);
    if (last !== undefined && now - last < (this.o.dedupeMs ?? 120_000)) return;
    this.recent.set(key, now);
    if (this.recent.size > 10_000) this.recent.clear();
    void this.write(event).catch((error: unknown) => this.o.logger.warn({ err: error, reason: event.reason }, "writing event failed"));
  }

  private async write(event: OperatorEvent): Promise<void> {
    const namespace = event.involved.namespace ?? "default";
    const time = new Date();
    await this.core.createNamespacedEvent({
      namespace,
      body: {
        metadata: { generateName: `${event.involved.name}.`, namespace },
        involvedObject: { ...event.involved },
        reason: event.reason, message: event.message, type: event.type,
        source: { component: this.o.component ?? "karpenter" },
        firstTimestamp: time, lastTimestamp: time, count: 1,
        reportingComponent: this.o.component ?? "karpenter", reportingInstance: "",
      },
    });
  }
}

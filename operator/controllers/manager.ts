/**
 * The controller manager: one work queue per controller, fed by the change source through each controller's
 * watches. It runs only while this replica leads: start() enqueues every existing object once (a full resync),
 * stop() drains the in-flight reconciles.
 */
import type { Logger } from "pino";
import type { Metrics } from "../observability/metrics.ts";
import type { ChangeSource, ControllerSpec, Watched, WatchKind, WatchVerb } from "./controller-spec.ts";
import { WorkQueue } from "./runtime.ts";

/** Runs controllers' queues while this replica leads. */
export class ControllerManager {
  private readonly queues: { spec: ControllerSpec; queue: WorkQueue }[];
  private readonly source: ChangeSource;
  private active = false;

  constructor(
    specs: readonly ControllerSpec[],
    source: ChangeSource,
    opts: { logger: Logger; metrics?: Metrics; isConflict: (e: unknown) => boolean },
  ) {
    this.source = source;
    this.queues = specs.map((spec) => ({
      spec,
      queue: new WorkQueue({
        name: spec.name,
        reconcile: spec.reconcile,
        logger: opts.logger,
        isConflict: opts.isConflict,
        ...(spec.concurrency === undefined ? {} : { concurrency: spec.concurrency }),
        ...(opts.metrics === undefined ? {} : { metrics: opts.metrics }),
      }),
    }));
    source.onChange((kind, verb, obj) => {
      if (this.active) this.route(kind, obj, verb);
    });
  }

  /** Starts every queue and enqueues every existing object once (a full resync, as after a restart). */
  start(): void {
    this.active = true;
    for (const { queue, spec } of this.queues) {
      queue.start();
      if (spec.singleton !== undefined) queue.add(spec.singleton);
    }
    for (const kind of ["nodepools", "nodeclaims", "nodes", "ec2nodeclasses"] as const)
      for (const obj of this.source.objects(kind)) this.route(kind, obj, "add");
  }

  /** Stops taking work and waits for in-flight reconciles. */
  async stop(): Promise<void> {
    this.active = false;
    await Promise.all(this.queues.map(({ queue }) => queue.stop()));
  }

  private route(kind: WatchKind, obj: Watched, verb: WatchVerb): void {
    for (const { spec, queue } of this.queues) {
      const map = spec.watches[kind];
      if (map !== undefined) for (const key of map(obj, verb)) queue.add(key);
    }
  }
}

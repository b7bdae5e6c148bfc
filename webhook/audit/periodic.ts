/**
 * The webhook's periodic audit: every interval, the stored NodePools and EC2NodeClasses judged as a CREATE today
 * (under the Karpenter API admission uses now), exported as kerf_policy_violations{policy,kind,severity} (objects
 * violating) and as Events on the violating objects. What a team watches while every policy is at warn, before
 * switching to enforce.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { Counter, Gauge, type Registry } from "prom-client";
import type { Engine } from "../engine.ts";
import { causeText } from "../errors.ts";
import { auditObjects, countViolations } from "./audit.ts";
import { auditEvents, publishEvents } from "./events.ts";
import { listStoredObjects } from "./stored.ts";

/** What the audit needs. */
export interface PeriodicAuditOptions {
  readonly kubeConfig: KubeConfig;
  readonly engine: Engine;
  readonly registry: Registry;
  readonly logger: Logger;
  /** Time between the end of one audit and the start of the next. */
  readonly intervalMs: number;
}

/** The audit's instruments. */
function createAuditMetrics(registry: Registry): {
  violations: Gauge<"policy" | "kind" | "severity">;
  objects: Gauge<"kind">;
  lastSuccess: Gauge;
  runs: Counter<"result">;
} {
  return {
    violations: new Gauge({
      name: "kerf_policy_violations",
      help: "Stored objects that violate a policy, by policy, kind and severity, as of the last periodic audit.",
      labelNames: ["policy", "kind", "severity"] as const,
      registers: [registry],
    }),
    objects: new Gauge({
      name: "kerf_audit_objects",
      help: "Stored objects the last periodic audit judged, by kind.",
      labelNames: ["kind"] as const,
      registers: [registry],
    }),
    lastSuccess: new Gauge({
      name: "kerf_audit_last_success_timestamp_seconds",
      help: "Unix time the last periodic audit finished reading and judging the stored objects.",
      registers: [registry],
    }),
    runs: new Counter({
      name: "kerf_audit_runs_total",
      help: "Periodic audits, by result (success, error).",
      labelNames: ["result"] as const,
      registers: [registry],
    }),
  };
}

/** Runs the audit now and then every interval until stopped. */
export class PeriodicAudit {
  private readonly options: PeriodicAuditOptions;
  private readonly metrics: ReturnType<typeof createAuditMetrics>;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(options: PeriodicAuditOptions) {
    this.options = options;
    this.metrics = createAuditMetrics(options.registry);
  }

  /** Starts the first audit (not awaited: serving never waits for it). */
  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops the schedule and waits for an audit in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runOnce().finally(() => this.schedule(this.options.intervalMs));
    }, delayMs);
  }

  /** One audit: list, judge, export, publish Events. Never throws: a failure is logged and counted. */
  async runOnce(): Promise<void> {
    const { kubeConfig, engine, logger } = this.options;
    const started = Date.now();
    try {
      const stored = await listStoredObjects(kubeConfig);
      const audited = auditObjects(engine, stored);
      this.metrics.violations.reset();
      for (const c of countViolations(audited))
        this.metrics.violations.set({ policy: c.policy, kind: c.kind, severity: c.severity }, c.objects);
      this.metrics.objects.reset();
      for (const kind of ["NodePool", "EC2NodeClass"])
        this.metrics.objects.set({ kind }, audited.filter((a) => a.kind === kind).length);
      this.metrics.lastSuccess.set(Date.now() / 1000);
      this.metrics.runs.inc({ result: "success" });
      const events = await publishEvents(kubeConfig, auditEvents(audited, new Date()));
      if (events.error !== undefined) {
        logger.warn(
          { reason: `creating Events: ${causeText(events.error).split("\n")[0] ?? ""}` },
          "policy audit could not publish every Event",
        );
      }
      const violating = audited.filter((a) => a.verdict.findings.some((f) => f.severity !== "notice"));
      logger.info(
        {
          objects: audited.length,
          violating: violating.map((a) => `${a.kind}/${a.name}`),
          eventsCreated: events.created,
          karpenterApi: engine.context.api?.version,
          durationMs: Date.now() - started,
        },
        "policy audit of stored objects",
      );
    } catch (error) {
      this.metrics.runs.inc({ result: "error" });
      logger.warn(
        { reason: `listing NodePools and EC2NodeClasses: ${causeText(error).split("\n")[0] ?? ""}` },
        "policy audit failed; retrying at the next interval",
      );
    }
  }
}

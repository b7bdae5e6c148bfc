/** Admission metrics (requests and latency by kind and verdict) and the `/metrics` route; the registry is injected. */
import type { FastifyInstance, FastifyPluginAsync } from "fastify";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";

/** Label values of one answered review. */
export interface ReviewLabels {
  readonly webhook: "validate" | "mutate";
  readonly kind: string;
  readonly operation: string;
  /** allowed | denied | skipped | invalid | error | malformed */
  readonly verdict: string;
  readonly dryRun: boolean;
}

/** The webhook's metric instruments, registered on one registry. */
export interface AdmissionMetrics {
  readonly registry: Registry;
  /** Records one answered review and how long it took. */
  observeReview(labels: ReviewLabels, seconds: number): void;
  /** Counts findings by policy and severity. */
  countFindings(findings: ReadonlyArray<{ policy: string; severity: string }>): void;
  /** Counts defaults injected by the mutating webhook, by JSON Pointer. */
  countDefaults(paths: readonly string[]): void;
  /** Records the Karpenter API reviews are judged against (kerf_karpenter_api_info). */
  useApi(api: { readonly source: string; readonly version: string }): void;
}

/** Latency buckets from 0.1 ms to 1 s: evaluation is in-process and should stay well under the apiserver timeout. */
const BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/** Creates and registers the admission metrics on `registry`. */
export function createAdmissionMetrics(registry: Registry): AdmissionMetrics {
  const requests = new Counter({
    name: "kerf_admission_requests_total",
    help: "Admission reviews answered, by webhook, kind, operation, verdict and dry-run.",
    labelNames: ["webhook", "kind", "operation", "verdict", "dry_run"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "kerf_admission_review_duration_seconds",
    help: "Time from receiving an admission review to answering it, by webhook, kind and verdict.",
    labelNames: ["webhook", "kind", "verdict"] as const,
    buckets: BUCKETS,
    registers: [registry],
  });
  const violations = new Counter({
    name: "kerf_policy_violations_total",
    help: "Policy findings reported at admission, by policy and severity.",
    labelNames: ["policy", "severity"] as const,
    registers: [registry],
  });
  const defaults = new Counter({
    name: "kerf_defaults_injected_total",
    help: "Defaults the mutating webhook added, by field (JSON Pointer).",
    labelNames: ["field"] as const,
    registers: [registry],
  });
  const api = new Gauge({
    name: "kerf_karpenter_api_info",
    help: "1 for the Karpenter API admission reviews are judged against: source cluster (installed CRDs) or bundled.",
    labelNames: ["source", "version"] as const,
    registers: [registry],
  });
  return {
    registry,
    useApi({ source, version }) {
      api.reset();
      api.set({ source, version }, 1);
    },
    observeReview(labels, seconds) {
      requests.inc({
        webhook: labels.webhook,
        kind: labels.kind,
        operation: labels.operation,
        verdict: labels.verdict,
        dry_run: String(labels.dryRun),
      });
      duration.observe({ webhook: labels.webhook, kind: labels.kind, verdict: labels.verdict }, seconds);
    },
    countFindings(findings) {
      for (const f of findings) violations.inc({ policy: f.policy, severity: f.severity });
    },
    countDefaults(paths) {
      for (const field of paths) defaults.inc({ field });
    },
  };
}

/** Serves the registry in the Prometheus text format at GET /metrics. */
export const metricsRoute: FastifyPluginAsync<{ metrics: AdmissionMetrics }> = async (
  app: FastifyInstance,
  { metrics },
) => {
  app.get("/metrics", async (_request, reply) => {
    const body = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(body);
  });
};

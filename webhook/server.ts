/** buildServer(deps): the webhook's fastify instance with admission, health and metrics routes; it never listens. */
import Fastify, { LogController, type FastifyError, type FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { SecureContextOptions } from "node:tls";
import type { Engine } from "./engine.ts";
import type { ErrorCode } from "./errors.ts";
import { admissionRoutes } from "./plugins/admission.ts";
import { healthRoutes, type ReadinessChecks } from "./plugins/health.ts";
import { metricsRoute, type AdmissionMetrics } from "./plugins/metrics.ts";

/** 7 MiB: an UPDATE review carries object and oldObject, each up to the apiserver's 3 MiB request limit. */
export const DEFAULT_BODY_LIMIT = 7 * 1024 * 1024;

/** Everything the server needs, built by main.ts (or a test). */
export interface ServerDeps {
  readonly engine: Engine;
  readonly metrics: AdmissionMetrics;
  readonly logger: Logger;
  readonly readiness: ReadinessChecks;
  readonly skipUsernames?: ReadonlySet<string>;
  readonly bodyLimit?: number;
  /** TLS material; omitted in tests that use `inject`. */
  readonly https?: SecureContextOptions & { minVersion?: "TLSv1.2" | "TLSv1.3" };
}

/** How a request-level failure is answered: status and kerf error code. */
function classify(error: FastifyError): { status: number; code: ErrorCode } {
  if (error.validation !== undefined) return { status: 400, code: "KERF_ERR_REVIEW_MALFORMED" };
  if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") return { status: 400, code: "KERF_ERR_BODY_TOO_LARGE" };
  if (error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") return { status: 415, code: "KERF_ERR_UNSUPPORTED_MEDIA_TYPE" };
  const status = error.statusCode ?? 500;
  return status >= 400 && status < 500
    ? { status: 400, code: "KERF_ERR_REVIEW_MALFORMED" }
    : { status: 500, code: "KERF_ERR_EVALUATION" };
}

function installErrorHandling(app: FastifyInstance, metrics: AdmissionMetrics): void {
  app.setErrorHandler<FastifyError>(async (error, request, reply) => {
    const { status, code } = classify(error);
    if (status >= 500) request.log.error({ err: error }, "answering request failed");
    else request.log.info({ code, reason: error.message, url: request.url }, "rejected malformed request");
    const webhook = request.url.startsWith("/mutate") ? "mutate" : "validate";
    metrics.observeReview({ webhook, kind: "unknown", operation: "unknown", verdict: "malformed", dryRun: false }, 0);
    return reply.code(status).send({ code, message: `reading admission review: ${error.message}` });
  });
  app.setNotFoundHandler(async (request, reply) =>
    reply.code(404).send({ code: "KERF_ERR_NOT_FOUND", message: `no route ${request.method} ${request.url}` }),
  );
}

/** Builds the server; call `listen` (main.ts) or `inject` (tests) on the result. */
export function buildServer(deps: ServerDeps): FastifyInstance {
  const app = Fastify({
    loggerInstance: deps.logger,
    // Per-request access logs would cost more than evaluation; the admission plugin logs each decision instead.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.bodyLimit ?? DEFAULT_BODY_LIMIT,
    requestTimeout: 30_000,
    keepAliveTimeout: 90_000,
    return503OnClosing: true,
    // A manifest key "__proto__" or "constructor" is valid Kubernetes (an EC2NodeClass tag, a label): parse it as
    // an own property like any other; the engine never lets an object key reach a prototype (policies/object.ts).
    onProtoPoisoning: "ignore",
    onConstructorPoisoning: "ignore",
    // The envelope schema checks types; fastify's default coercion would turn a numeric uid into a string.
    ajv: { customOptions: { coerceTypes: false } },
    ...(deps.https === undefined ? {} : { https: deps.https }),
  }) as unknown as FastifyInstance;
  // AdmissionReviews are JSON only; fastify's built-in text/plain parser would turn other
  // bodies into 400s instead of 415s.
  app.removeContentTypeParser("text/plain");
  installErrorHandling(app, deps.metrics);
  void app.register(healthRoutes, { readiness: deps.readiness });
  void app.register(metricsRoute, { metrics: deps.metrics });
  void app.register(admissionRoutes, {
    engine: deps.engine,
    metrics: deps.metrics,
    skipUsernames: deps.skipUsernames ?? new Set<string>(),
  });
  return app;
}

/**
 * POST /validate and /mutate (also /validate/:resource, /mutate/:resource):
 * AdmissionReview in, AdmissionReview out.
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import reviewSchema from "../admission/review.schema.json" with { type: "json" };
import { decodeReview, type AdmissionReviewBody, type DecodedRequest } from "../admission/decode.ts";
import { decide, type Decision, type DecideOptions, type WebhookKind } from "../admission/decide.ts";
import { respond } from "../admission/respond.ts";
import type { AdmissionMetrics } from "./metrics.ts";

/** What the admission routes need. */
export interface AdmissionRouteOptions extends DecideOptions {
  readonly metrics: AdmissionMetrics;
}

function logDecision(request: FastifyRequest, decoded: DecodedRequest, webhook: WebhookKind, decision: Decision): void {
  const fields = {
    webhook,
    uid: decoded.uid,
    gvk: decoded.gvk,
    name: decoded.name,
    operation: decoded.operation,
    user: decoded.username,
    dryRun: decoded.dryRun,
    outcome: decision.outcome,
  };
  if (decision.outcome === "error") {
    request.log.error({ ...fields, err: decision.error }, "evaluating admission review failed; denied with code 500");
  } else if (decision.outcome === "denied" || decision.outcome === "invalid") {
    request.log.info({ ...fields, message: decision.message }, "admission review denied");
  } else {
    request.log.debug(
      { ...fields, skipReason: decision.skipReason, warnings: decision.warnings.length, patch: decision.patch.length },
      "admission review answered",
    );
  }
}

function handler(webhook: WebhookKind, options: AdmissionRouteOptions) {
  return async (request: FastifyRequest<{ Body: AdmissionReviewBody }>, reply: FastifyReply): Promise<unknown> => {
    const started = performance.now();
    const decoded = decodeReview(request.body, options.engine.isKarpenterKind);
    const decision = decide(decoded, webhook, options);
    logDecision(request, decoded, webhook, decision);
    const answer = respond(decoded.uid, decision);
    options.metrics.countFindings(decision.findings);
    if (webhook === "mutate") options.metrics.countDefaults(decision.patch.map((op) => op.path));
    options.metrics.observeReview(
      {
        webhook,
        kind: decoded.kind ?? "other",
        operation: decoded.operation,
        verdict: decision.outcome,
        dryRun: decoded.dryRun,
      },
      (performance.now() - started) / 1000,
    );
    return reply.send(answer);
  };
}

/** Registers both endpoints; the envelope is validated by the route schema before the handler runs. */
export const admissionRoutes: FastifyPluginAsync<AdmissionRouteOptions> = async (app: FastifyInstance, options) => {
  const schema = { body: reviewSchema };
  for (const webhook of ["validate", "mutate"] as const) {
    const handle = handler(webhook, options);
    app.post<{ Body: AdmissionReviewBody }>(`/${webhook}`, { schema }, handle);
    app.post<{ Body: AdmissionReviewBody }>(`/${webhook}/:resource`, { schema }, handle);
  }
};

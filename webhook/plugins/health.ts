/**
 * /healthz (the process serves HTTP) and /readyz (certificates loaded and policy data
 * parsed: can answer correctly).
 */
import type { FastifyInstance, FastifyPluginAsync } from "fastify";

/** Readiness checks by name; each returns true when ready. */
export type ReadinessChecks = Readonly<Record<string, () => boolean>>;

/** Registers the health routes. */
export const healthRoutes: FastifyPluginAsync<{ readiness: ReadinessChecks }> = async (
  app: FastifyInstance,
  { readiness },
) => {
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    const failing = Object.entries(readiness)
      .filter(([, ready]) => !ready())
      .map(([name]) => name);
    if (failing.length > 0) return reply.code(503).send({ status: "not ready", failing });
    return { status: "ok" };
  });
};

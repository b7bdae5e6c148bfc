/**
 * One benchmark server in its own process: `kerf` (the real webhook: engine, metrics, schema
 * validation) or `bare` (fastify parsing the same body and answering allowed:true). Prints
 * `listening <port>` once ready. Usage: node server-process.ts kerf|bare
 */
import Fastify from "fastify";
import { pino } from "pino";
import { Registry } from "prom-client";
import { buildServer } from "../../../webhook/server.ts";
import { loadEngine } from "../../../webhook/engine.ts";
import { createAdmissionMetrics } from "../../../webhook/plugins/metrics.ts";

async function kerf(): Promise<ReturnType<typeof Fastify>> {
  const engine = await loadEngine({ eager: true }); // as `kerf webhook` does
  return buildServer({
    engine,
    metrics: createAdmissionMetrics(new Registry()),
    logger: pino({ level: "info" }, pino.destination({ dest: "/dev/null", sync: false })),
    readiness: {},
  }) as unknown as ReturnType<typeof Fastify>;
}

function bare(): ReturnType<typeof Fastify> {
  const app = Fastify({ bodyLimit: 7 * 1024 * 1024 });
  app.post("/validate", async (request) => {
    const uid = (request.body as { request?: { uid?: string } }).request?.uid ?? "";
    return { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid, allowed: true } };
  });
  return app;
}

const which = process.argv[2];
const app = which === "kerf" ? await kerf() : bare();
await app.listen({ host: "127.0.0.1", port: 0 });
const address = app.server.address();
process.stdout.write(`listening ${typeof address === "object" && address !== null ? address.port : 0}\n`);
process.on("SIGTERM", () => void app.close().then(() => process.exit(0)));

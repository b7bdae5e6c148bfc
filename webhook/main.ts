/** `kerf webhook` composition root: config → engine (catalog + policy config) → TLS → buildServer → listen; graceful stop. */
import type { AddressInfo } from "node:net";
import { pino, type Logger } from "pino";
import { Registry, collectDefaultMetrics } from "prom-client";
import type { WebhookConfig } from "./config.ts";
import { loadEngine } from "./engine.ts";
import { createAdmissionMetrics } from "./plugins/metrics.ts";
import { buildServer } from "./server.ts";
import { loadTlsMaterial, watchTls, type SecureContextTarget } from "./tls.ts";

/** A running webhook. */
export interface RunningWebhook {
  /** The bound port (useful with port 0 in tests). */
  readonly port: number;
  /** Stops accepting connections, finishes in-flight reviews and stops the certificate watcher. */
  close(): Promise<void>;
}

/** Starts the webhook; rejects with a KerfError for bad certificates or policy config. */
export async function startWebhook(config: WebhookConfig, logger: Logger = pino({ level: config.logLevel })): Promise<RunningWebhook> {
  const engine = await loadEngine({ policyConfigFile: config.policyConfig, eager: true });
  const tls = loadTlsMaterial(config.tlsCert, config.tlsKey);
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metrics = createAdmissionMetrics(registry);
  const app = buildServer({
    engine,
    metrics,
    logger,
    readiness: { certificates: () => true, catalog: () => engine.context.catalog !== undefined },
    skipUsernames: new Set(config.skipUsernames),
    bodyLimit: config.bodyLimit,
    https: { cert: tls.cert, key: tls.key, minVersion: config.tlsMinVersion },
  });
  await app.listen({ host: config.host, port: config.port });
  const stopWatching = watchTls({
    certFile: config.tlsCert,
    keyFile: config.tlsKey,
    target: app.server as unknown as SecureContextTarget,
    logger,
    intervalMs: config.tlsReloadIntervalMs,
  });
  const port = (app.server.address() as AddressInfo).port;
  logger.info({ host: config.host, port, tlsMinVersion: config.tlsMinVersion, policyConfig: config.policyConfig ?? "default" }, "kerf webhook listening");
  return {
    port,
    close: async () => {
      stopWatching();
      await app.close();
    },
  };
}

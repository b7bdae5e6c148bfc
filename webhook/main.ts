/**
 * `kerf webhook` composition root: config → engine (catalog + policy config) → TLS
 * → buildServer → listen; graceful stop.
 */
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { Registry, collectDefaultMetrics } from "prom-client";
import { createComponentLogger } from "./logging.ts";
import type { WebhookConfig } from "./config.ts";
import { loadEngine, type Engine } from "./engine.ts";
import { KubeConfig } from "@kubernetes/client-node";
import { bundledKarpenterApi } from "../policies/api/releases/index.ts";
import { causeText } from "./errors.ts";
import { ClusterKarpenterApi } from "./karpenter-api/cluster-crds.ts";
import type { AdmissionMetrics } from "./plugins/metrics.ts";
import { createAdmissionMetrics } from "./plugins/metrics.ts";
import { buildServer } from "./server.ts";
import { PeriodicAudit } from "./audit/periodic.ts";
import { loadTlsMaterial, watchTls, type SecureContextTarget } from "./tls.ts";

/** A running webhook. */
export interface RunningWebhook {
  /** The bound port (useful with port 0 in tests). */
  readonly port: number;
  /** Stops accepting connections, finishes in-flight reviews and stops the certificate watcher. */
  close(): Promise<void>;
}

/** How long startup waits for the first read of the cluster's CRDs before serving with the fallback release. */
const CLUSTER_API_WAIT_MS = 10_000;

/** With karpenterApi "cluster": watches the installed CRDs and switches the engine's API with them. */
async function followKarpenterApi(
  config: WebhookConfig,
  deps: { engine: Engine; metrics: AdmissionMetrics; logger: Logger },
): Promise<ClusterKarpenterApi | undefined> {
  const { engine, metrics, logger } = deps;
  const fallback = engine.context.api ?? bundledKarpenterApi(config.karpenterVersion);
  metrics.useApi(fallback);
  if (config.karpenterApi === "bundled") {
    logger.info(
      { karpenterApi: { source: fallback.source, version: fallback.version } },
      "judging Karpenter objects against this API",
    );
    return undefined;
  }
  const kubeConfig = new KubeConfig();
  try {
    if (config.kubeconfig === undefined) kubeConfig.loadFromCluster();
    else kubeConfig.loadFromFile(config.kubeconfig);
  } catch (error) {
    logger.warn(
      {
        reason: `reading kubeconfig ${config.kubeconfig ?? "(in-cluster)"}: ${causeText(error)}`,
        karpenterApi: { source: fallback.source, version: fallback.version },
      },
      "cannot use the cluster's Karpenter CRDs; judging against the bundled release",
    );
    return undefined;
  }
  const onChange = (api: typeof fallback): void => {
    engine.useApi(api);
    metrics.useApi(api);
  };
  const clusterApi = new ClusterKarpenterApi({ kubeConfig, fallback, logger, onChange });
  await clusterApi.start(CLUSTER_API_WAIT_MS);
  return clusterApi;
}

/** With an audit interval: the periodic audit of the stored objects (its own kubeconfig read; none when unreadable). */
function startAudit(
  config: WebhookConfig,
  deps: { engine: Engine; registry: Registry; logger: Logger },
): PeriodicAudit | undefined {
  if (config.auditIntervalSeconds === 0) return undefined;
  const kubeConfig = new KubeConfig();
  try {
    if (config.kubeconfig === undefined) kubeConfig.loadFromCluster();
    else kubeConfig.loadFromFile(config.kubeconfig);
  } catch (error) {
    deps.logger.warn(
      { reason: `reading kubeconfig ${config.kubeconfig ?? "(in-cluster)"}: ${causeText(error)}` },
      "policy audit off: no cluster to read",
    );
    return undefined;
  }
  const audit = new PeriodicAudit({ ...deps, kubeConfig, intervalMs: config.auditIntervalSeconds * 1000 });
  audit.start();
  return audit;
}

/** Starts the webhook; rejects with a KerfError for bad certificates or policy config. Logs as the operator does. */
export async function startWebhook(
  config: WebhookConfig,
  logger: Logger = createComponentLogger("kerf-webhook", config.logLevel),
): Promise<RunningWebhook> {
  const fallback = bundledKarpenterApi(config.karpenterVersion);
  const engine = await loadEngine({
    policyConfigFile: config.policyConfig,
    eager: true,
    api: fallback,
    region: config.region,
  });
  const tls = loadTlsMaterial(config.tlsCert, config.tlsKey);
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metrics = createAdmissionMetrics(registry);
  const clusterApi = await followKarpenterApi(config, { engine, metrics, logger });
  const app = buildServer({
    engine,
    metrics,
    logger,
    readiness: { certificates: () => true, catalog: () => engine.context.catalog !== undefined },
    skipUsernames: new Set(config.skipUsernames),
    bodyLimit: config.bodyLimit,
    https: { cert: tls.cert, key: tls.key, minVersion: config.tlsMinVersion },
  });
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await clusterApi?.stop();
    throw error;
  }
  const stopWatching = watchTls({
    certFile: config.tlsCert,
    keyFile: config.tlsKey,
    target: app.server as unknown as SecureContextTarget,
    logger,
    intervalMs: config.tlsReloadIntervalMs,
  });
  const audit = startAudit(config, { engine, registry, logger });
  const port = (app.server.address() as AddressInfo).port;
  logger.info(
    { host: config.host, port, tlsMinVersion: config.tlsMinVersion, policyConfig: config.policyConfig ?? "default" },
    "kerf webhook listening",
  );
  return {
    port,
    close: async () => {
      stopWatching();
      await audit?.stop();
      await clusterApi?.stop();
      await app.close();
    },
  };
}

/**
 * Composition root of `kerf operator`: config → adapters → controllers → start; leader-gated controllers;
 * graceful shutdown. The only file that wires everything; what it builds before the controllers (kubeconfig, cluster
 * facts, catalog, AWS providers, metrics) comes from operator/startup/.
 */
import { hostname } from "node:os";
import type { KubeConfig } from "@kubernetes/client-node";
import { Ec2InstanceTags, awsEc2TagsApi } from "./adapters/aws/instance-tags.ts";
import { SqsInterruptionQueue } from "./adapters/aws/interruption-queue.ts";
import { awsSqsApi } from "./adapters/aws/sdk.ts";
import { CatalogRefresher, nodeClassNamesOf } from "./controllers/providers/catalog.ts";
import { isConflict } from "./adapters/kube/client.ts";
import { ClusterState } from "./adapters/kube/cluster-state.ts";
import { KubeEventRecorder } from "./adapters/kube/event-recorder.ts";
import { KubeCluster } from "./adapters/kube/kube-cluster.ts";
import { KubeNodeClassFinalizers } from "./adapters/kube/nodeclass-finalizers.ts";
import { KubeNodeOverlays } from "./adapters/kube/node-overlays.ts";
import { LeaderElector } from "./adapters/kube/lease.ts";
import { sharingConnections } from "./adapters/kube/shared-connections.ts";
import { loadConfig, type OperatorConfig } from "./config.ts";
import type { Clock } from "./core/clock.ts";
import { ClusterDiscoveryError } from "./core/launch-template/cluster-info.ts";
import { DEFAULT_DISRUPTION_SETTINGS, type DisruptionSettings } from "./controllers/disruption/controller.ts";
import type { ChangeSource } from "./controllers/controller-spec.ts";
import { ControllerManager } from "./controllers/manager.ts";
import { controllers } from "./controllers/registry.ts";
import { serveProbes, type ListeningServer } from "./observability/http.ts";
import { createLogger, type Logger } from "./observability/logger.ts";
import type { Metrics } from "./observability/metrics.ts";
import type { CatalogPart } from "./ports/catalog-source.ts";
import { awsClientConfig, cloudProvider, nodeCluster, regionCatalog, type AwsOverrides } from "./startup/aws.ts";
import { operatorMetrics } from "./startup/build-info.ts";
import { KubeConfigNotFoundError, kubernetesMinor, loadKubeConfig } from "./startup/kube.ts";
import { logStarted } from "./startup/start-log.ts";

export { KubeConfigNotFoundError } from "./startup/kube.ts";

/**
 * Overrides for tests and embedding; everything defaults to the real thing. AWS credentials and the SSM prefix
 * are AwsOverrides' (startup/aws.ts).
 */
export interface OperatorOverrides extends AwsOverrides {
  readonly kubeConfig?: KubeConfig;
  readonly logger?: Logger;
  readonly clock?: Clock;
  readonly serveHttp?: boolean;
  /** Disruption timings (tests and the playground shorten Karpenter's 15 s validation delay and 10 s poll). */
  readonly disruption?: Partial<Omit<DisruptionSettings, "spotToSpot">>;
  /** How often the Kubernetes version is re-read (Karpenter's 5 min; tests shorten it). */
  readonly kubernetesVersionRefreshMs?: number;
  /** Catalog refresh periods (tests shorten Karpenter's 5 minutes and 12 hours). */
  readonly catalogRefreshMs?: Partial<Record<CatalogPart, number>>;
}

/** A running operator. */
export interface RunningOperator {
  readonly config: OperatorConfig;
  readonly state: ClusterState;
  readonly metrics: Metrics;
  readonly isLeader: () => boolean;
  readonly servers: readonly ListeningServer[];
  /** Releases the Lease, stops controllers and informers, closes servers. */
  stop(): Promise<void>;
}

/** The EC2NodeClasses the NodePools use (told when a catalog refresh fails). */
function nodeClassesInUse(state: ClusterState): { metadata?: { name?: string; uid?: string } }[] {
  return nodeClassNamesOf(state.nodePools()).flatMap((n) => {
    const meta = state.nodeClass(n)?.metadata;
    if (meta?.name === undefined) return [];
    return [{ metadata: { name: meta.name, ...(meta.uid === undefined ? {} : { uid: meta.uid }) } }];
  });
}

/** Builds and starts the operator (informers on every replica; controllers only on the leader). */
export async function startOperator(
  config: OperatorConfig,
  overrides: OperatorOverrides = {},
): Promise<RunningOperator> {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const clock = overrides.clock ?? { now: () => new Date() };
  const kc = sharingConnections(overrides.kubeConfig ?? loadKubeConfig(config));
  // First, before anything starts: without these facts no launched node could join.
  const nodeClusterInfo = await nodeCluster(config, kc, logger, overrides);
  const kubernetesVersion = await kubernetesMinor(kc, logger);
  const metrics = operatorMetrics(overrides.serveHttp !== false);
  const state = new ClusterState({
    kubeConfig: kc,
    onError: (kind, err) => logger.warn({ kind, err }, "informer failed; restarting"),
    // Default topology spread selectors are deduced from Services and controllers: watched only when configured.
    selectorSources: config.schedulerConfig.defaultConstraints.length > 0,
    // Gate NodeOverlay (Karpenter's, default off): only then is the v1alpha1 CRD required and watched.
    nodeOverlays: config.featureGates["NodeOverlay"] === true,
  });
  const cluster = new KubeCluster(kc, state);
  const catalog = await regionCatalog(config, { logger, clock, overrides });
  const {
    cloud,
    resolver,
    nodeClassCloud,
    offerings,
    overlays: overlayStore,
  } = await cloudProvider(config, kc, state, {
    cluster: nodeClusterInfo,
    kubernetesVersion,
    logger,
    clock,
    overrides,
    catalog,
  });
  // Karpenter's switch: interruption handling runs exactly when a queue is configured.
  const interruption =
    config.interruptionQueue === ""
      ? undefined
      : {
          queue: new SqsInterruptionQueue({
            sqs: awsSqsApi(awsClientConfig(config, overrides)),
            queue: config.interruptionQueue,
          }),
          offerings,
        };
  const events = new KubeEventRecorder({ kubeConfig: kc, logger });
  const catalogRefresher = new CatalogRefresher({
    catalog,
    clock,
    logger,
    metrics,
    events,
    periods: overrides.catalogRefreshMs,
    nodeClassesInUse: () => nodeClassesInUse(state),
  });
  catalogRefresher.refreshedAt(clock.now().getTime());
  const specs = controllers({
    cluster,
    cloud,
    clock,
    events,
    metrics,
    logger,
    timeouts: { launchMs: config.launchTimeoutMs, registrationMs: config.registrationTimeoutMs },
    clusterCABundle: nodeClusterInfo.caBundle,
    nodeClassResolver: resolver,
    nodeClassCloud,
    nodeClassFinalizers: new KubeNodeClassFinalizers(kc),
    batch: { idleMs: config.batchIdleDurationMs, maxMs: config.batchMaxDurationMs },
    scheduling: {
      maxPriceRatio: config.maxPriceRatio,
      schedulerConfig: config.schedulerConfig,
      expendablePodsPriorityCutoff: config.expendablePodsPriorityCutoff,
    },
    ...(interruption === undefined ? {} : { interruption }),
    disruption: {
      ...DEFAULT_DISRUPTION_SETTINGS,
      ...overrides.disruption,
      spotToSpot: config.featureGates["SpotToSpotConsolidation"] === true,
    },
    nodeRepair: config.featureGates["NodeRepair"] === true,
    staticCapacity: config.featureGates["StaticCapacity"] === true,
    tagging: {
      tags: new Ec2InstanceTags(awsEc2TagsApi(awsClientConfig(config, overrides))),
      clusterName: config.clusterName,
    },
    kubernetesVersion: { provider: kubernetesVersion, periodMs: overrides.kubernetesVersionRefreshMs },
    catalogRefresher,
    catalogFreshness: () => catalog.freshness(),
    nodeOverlays: { port: new KubeNodeOverlays(kc, state), store: overlayStore },
    overlays: overlayStore,
    reservedCapacity: config.featureGates["ReservedCapacity"] !== false,
  });
  const manager = new ControllerManager(specs, state as unknown as ChangeSource, { logger, metrics, isConflict });
  await state.start();
  const elector = config.disableLeaderElection
    ? undefined
    : new LeaderElector({
        kubeConfig: kc,
        name: config.leaderElectionName,
        namespace: config.leaderElectionNamespace,
        identity: config.leaderElectionIdentity,
        leaseDurationMs: config.leaseDurationMs,
        renewDeadlineMs: config.renewDeadlineMs,
        retryPeriodMs: config.retryPeriodMs,
        logger,
        metrics,
        onStartedLeading: () => manager.start(),
        onStoppedLeading: () => manager.stop(),
      });
  if (elector === undefined) manager.start();
  else elector.start();
  const servers =
    overrides.serveHttp === false
      ? []
      : await serveProbes(
          { ready: () => state.synced, registry: metrics.registry },
          { health: config.healthProbePort, metrics: config.metricsPort },
        );
  const syncTimer = setInterval(() => metrics.clusterStateSynced.set(state.synced ? 1 : 0), 1000);
  if (config.featureGates["NodeRepair"] === true) {
    // Said once at start: users of Karpenter v1.14+ get its budget-paced repair by default, kerf the legacy controller.
    logger.info(
      { legacyNodeRepair: config.legacyNodeRepair },
      "node repair on: Karpenter's node.health controller (legacy node repair), not paced by disruption budgets",
    );
  }
  logStarted(logger, config);
  return {
    config,
    state,
    metrics,
    servers,
    isLeader: () => elector?.isLeader ?? true,
    stop: async () => {
      clearInterval(syncTimer);
      if (elector === undefined) await manager.stop();
      else await elector.stop();
      await manager.stop();
      await state.stop();
      await Promise.all(servers.map((s) => s.close()));
      await kc.closeConnections();
    },
  };
}

/** `kerf operator`: runs until SIGTERM/SIGINT; resolves to the exit code. */
export async function runOperator(argv: readonly string[], log: (line: string) => void): Promise<number> {
  let config: OperatorConfig;
  try {
    config = loadConfig({ argv, env: process.env, hostname: hostname(), pid: process.pid });
  } catch (error) {
    log(`${(error as Error).message}\n`);
    return 2;
  }
  let operator: RunningOperator;
  try {
    operator = await startOperator(config);
  } catch (error) {
    // A setting to fix, like a config error: one line naming it, no stack trace.
    if (!(error instanceof ClusterDiscoveryError) && !(error instanceof KubeConfigNotFoundError)) throw error;
    log(`${error.message.replace(/\s*\n\s*/g, " ")}\n`);
    return 2;
  }
  await new Promise<void>((resolve) => {
    process.once("SIGTERM", resolve);
    process.once("SIGINT", resolve);
  });
  await operator.stop();
  return 0;
}

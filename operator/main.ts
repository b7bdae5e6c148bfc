/** Composition root of `kerf operator`: config → adapters → controllers → start; leader-gated controllers; graceful shutdown. The only file that wires everything. */
import { hostname } from "node:os";
import { readFileSync } from "node:fs";
import path from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { builtinCatalog, isBundledRegion } from "../policies/domain/catalog/builtin.ts";
import { discoverCluster } from "./adapters/aws/cluster-discovery.ts";
import { Ec2InstanceTags, awsEc2TagsApi } from "./adapters/aws/instance-tags.ts";
import { createAwsProviders } from "./adapters/aws/factory.ts";
import { SqsInterruptionQueue } from "./adapters/aws/interruption-queue.ts";
import { Ec2CatalogProvider } from "./adapters/aws/providers/catalog.ts";
import { awsEc2CatalogApi, awsEksApi, awsPricingApi, awsSqsApi, type AwsClientConfig } from "./adapters/aws/sdk.ts";
import { pricingApiRegion } from "../policies/domain/catalog/prices.ts";
import { CatalogRefresher, nodeClassNamesOf } from "./controllers/providers/catalog.ts";
import { kubeconfigCABundle } from "./adapters/kube/ca-bundle.ts";
import { isConflict } from "./adapters/kube/client.ts";
import { KubernetesVersionProvider, apiserverVersion, kubeDnsClusterIP } from "./adapters/kube/cluster-facts.ts";
import { ClusterState } from "./adapters/kube/cluster-state.ts";
import { KubeEventRecorder } from "./adapters/kube/event-recorder.ts";
import { KubeCluster } from "./adapters/kube/kube-cluster.ts";
import { KubeNodeClassFinalizers } from "./adapters/kube/nodeclass-finalizers.ts";
import { KubeNodeOverlays } from "./adapters/kube/node-overlays.ts";
import { OverlayStore } from "./controllers/nodeoverlay/store.ts";
import { LeaderElector } from "./adapters/kube/lease.ts";
import { sharingConnections } from "./adapters/kube/shared-connections.ts";
import { loadConfig, type OperatorConfig } from "./config.ts";
import type { Clock } from "./core/clock.ts";
import { ClusterDiscoveryError, type ClusterInfo } from "./core/launch-template/cluster-info.ts";
import type { EC2NodeClassLike } from "./core/launch-template/node-class.ts";
import type { OfferingAvailability } from "./controllers/interruption/controller.ts";
import { DEFAULT_DISRUPTION_SETTINGS, type DisruptionSettings } from "./controllers/disruption/controller.ts";
import { ControllerManager, controllers, type ChangeSource } from "./controllers/registry.ts";
import { serveProbes, type ListeningServer } from "./observability/http.ts";
import { createLogger, type Logger } from "./observability/logger.ts";
import { IGNORED_FEATURE_GATES, ignoredFeatureGates, ignoredSettings } from "../policies/operator-coverage.ts";
import { createMetrics, type Metrics } from "./observability/metrics.ts";
import type { CatalogPart } from "./ports/catalog-source.ts";
import type { CloudProvider } from "./ports/cloud-provider.ts";
import type { NodeClassCloud } from "./ports/node-class-cloud.ts";
import type { NodeClassResolver } from "./ports/node-class-resolver.ts";

/** Overrides for tests and embedding; everything defaults to the real thing. */
export interface OperatorOverrides {
  readonly kubeConfig?: KubeConfig;
  readonly logger?: Logger;
  readonly clock?: Clock;
  /** AWS credentials (tests: moto's fake ones); the SDK's default chain otherwise. */
  readonly awsCredentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  readonly serveHttp?: boolean;
  /** SSM prefix of the public AMI parameters (tests: moto refuses /aws/...). */
  readonly ssmPrefix?: string;
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

/** The version AMI aliases resolve for when the apiserver cannot tell it at start. */
const FALLBACK_KUBERNETES_VERSION = "1.36";

/** The cluster's Kubernetes version, read now and again by providers.version (AMI aliases follow an upgrade). */
function kubernetesMinor(kc: KubeConfig, logger: Logger): Promise<KubernetesVersionProvider> {
  return KubernetesVersionProvider.start(apiserverVersion(kc), logger, FALLBACK_KUBERNETES_VERSION);
}

function awsClientConfig(config: OperatorConfig, overrides: OperatorOverrides): AwsClientConfig {
  return { region: config.region, ...(config.awsEndpoint === "" ? {} : { endpoint: config.awsEndpoint }), ...(overrides.awsCredentials === undefined ? {} : { credentials: overrides.awsCredentials }) };
}

/**
 * The endpoint, CA, service CIDR and cluster DNS address node user data carries. Never the operator's
 * own kubeconfig server: in a pod that is the `kubernetes` Service address, which a booting node cannot reach.
 */
async function nodeCluster(config: OperatorConfig, kc: KubeConfig, logger: Logger, overrides: OperatorOverrides): Promise<ClusterInfo> {
  const settings = { name: config.clusterName, endpoint: config.clusterEndpoint, caBundle: config.clusterCABundle };
  const cluster = await discoverCluster(settings, {
    eks: awsEksApi(awsClientConfig(config, overrides)), kubeconfigCA: () => kubeconfigCABundle(kc), kubeDnsClusterIP: kubeDnsClusterIP(kc), logger,
  });
  if (cluster.caBundle === undefined) logger.warn("no cluster CA bundle (kubeconfig without one, no --cluster-ca-bundle): node user data carries none and AL2023 nodes will not join");
  logger.info({ endpoint: cluster.endpoint, caBundle: cluster.caBundle !== undefined, serviceCIDR: cluster.serviceCIDR ?? "not discovered", clusterDNS: cluster.dnsIP ?? "not discovered" }, "cluster facts for node user data");
  return cluster;
}

/**
 * The region's catalog from AWS, refreshed once before any controller runs: a failed part keeps the bundled
 * data of the region (warned), and the providers.catalog controller retries it.
 */
async function regionCatalog(config: OperatorConfig, o: { logger: Logger; clock: Clock; overrides: OperatorOverrides }): Promise<Ec2CatalogProvider> {
  const aws = awsClientConfig(config, o.overrides);
  const reference = builtinCatalog();
  const catalog = new Ec2CatalogProvider({
    region: config.region, ec2: awsEc2CatalogApi(aws), clock: o.clock, reference,
    pricing: config.isolatedVPC ? undefined : awsPricingApi(aws, pricingApiRegion(config.region)),
    bundled: isBundledRegion(config.region) ? builtinCatalog(config.region) : undefined,
  });
  const started = performance.now();
  const results = await Promise.allSettled([catalog.refreshInstanceTypes(), catalog.refreshSpotPrices(), catalog.refreshOnDemandPrices()]);
  for (const r of results) {
    if (r.status === "rejected") o.logger.warn({ err: r.reason }, "the instance-type catalog starts without this part from AWS; using the bundled data until a refresh succeeds");
  }
  const types = catalog.current().instanceTypes.length;
  o.logger.info({ region: config.region, instanceTypes: types, ms: Math.round(performance.now() - started), parts: catalog.freshness().parts }, "instance-type catalog");
  if (types === 0) o.logger.warn({ region: config.region }, "no instance types: AWS did not answer and kerf bundles no data for this region; nothing launches until a refresh succeeds");
  return catalog;
}

async function cloudProvider(config: OperatorConfig, kc: KubeConfig, state: ClusterState, o: { cluster: ClusterInfo; kubernetesVersion: KubernetesVersionProvider; logger: Logger; clock: Clock; overrides: OperatorOverrides; catalog: Ec2CatalogProvider }): Promise<{ cloud: CloudProvider; resolver: NodeClassResolver; nodeClassCloud: NodeClassCloud; offerings: OfferingAvailability; overlays: OverlayStore | undefined }> {
  // Gate NodeOverlay: the evaluated overlays the launch, the provisioner and the disruption pass decorate types with.
  const overlays = config.featureGates["NodeOverlay"] === true ? new OverlayStore() : undefined;
  const graph = createAwsProviders({
    cluster: o.cluster,
    aws: awsClientConfig(config, o.overrides),
    kubernetesVersion: o.kubernetesVersion.get,
    ...(o.overrides.ssmPrefix === undefined ? {} : { ssmPrefix: o.overrides.ssmPrefix }),
    reservedCapacity: config.featureGates["ReservedCapacity"] !== false,
  }, { catalog: o.catalog, clock: o.clock, nodeClass: async (name) => state.nodeClass(name) as EC2NodeClassLike | undefined, overlays });
  return { cloud: graph.cloudProvider, resolver: graph.resolver, nodeClassCloud: graph.nodeClassCloud, offerings: graph.unavailable, overlays };
}

/** The EC2NodeClasses the NodePools use (told when a catalog refresh fails). */
function nodeClassesInUse(state: ClusterState): { metadata?: { name?: string; uid?: string } }[] {
  return nodeClassNamesOf(state.nodePools()).flatMap((n) => {
    const meta = state.nodeClass(n)?.metadata;
    if (meta?.name === undefined) return [];
    return [{ metadata: { name: meta.name, ...(meta.uid === undefined ? {} : { uid: meta.uid }) } }];
  });
}

/** No Kubernetes API to talk to: a setting to fix, reported in one line. */
export class KubeConfigNotFoundError extends Error {
  constructor(message: string) {
    super(`finding the Kubernetes API: ${message}`);
    this.name = "KubeConfigNotFoundError";
  }
}

function loadKubeConfig(config: OperatorConfig): KubeConfig {
  const kc = new KubeConfig();
  if (config.kubeconfig !== "") { kc.loadFromFile(config.kubeconfig); return kc; }
  kc.loadFromDefault();
  // With no ~/.kube/config and no in-cluster token, client-node falls back to an unauthenticated
  // http://localhost:8080, which it then refuses on every request ("HTTP protocol is not allowed"): say so now.
  const cluster = kc.getCurrentCluster();
  if (cluster?.name === "cluster" && cluster.server === "http://localhost:8080" && kc.getCurrentUser()?.name === "user") {
    throw new KubeConfigNotFoundError("no --kubeconfig (KUBECONFIG), no ~/.kube/config and no in-cluster "
      + "ServiceAccount token at /var/run/secrets/kubernetes.io/serviceaccount/token; run it in a pod with a "
      + "ServiceAccount or pass --kubeconfig");
  }
  return kc;
}

/** karpenter_build_info's labels: kerf's package version; Node's version and architecture stand for Go's. */
function buildInfo(): { version: string; goversion: string; goarch: string; commit: string } {
  let version = "unknown";
  try {
    const pkg = JSON.parse(readFileSync(path.join(import.meta.dirname, "..", "package.json"), "utf8")) as { version?: string };
    version = pkg.version ?? version;
  } catch { /* a bundle without package.json: the version stays unknown */ }
  return { version, goversion: process.version, goarch: process.arch, commit: "" };
}

/** The operator's registry (process metrics when it serves them), karpenter_build_info set. */
function operatorMetrics(processMetrics: boolean): Metrics {
  const metrics = createMetrics({ processMetrics });
  metrics.buildInfo.set(buildInfo(), 1);
  return metrics;
}

/** Builds and starts the operator (informers on every replica; controllers only on the leader). */
export async function startOperator(config: OperatorConfig, overrides: OperatorOverrides = {}): Promise<RunningOperator> {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const clock = overrides.clock ?? { now: () => new Date() };
  const kc = sharingConnections(overrides.kubeConfig ?? loadKubeConfig(config));
  // First, before anything starts: without these facts no launched node could join.
  const nodeClusterInfo = await nodeCluster(config, kc, logger, overrides);
  const kubernetesVersion = await kubernetesMinor(kc, logger);
  const metrics = operatorMetrics(overrides.serveHttp !== false);
  const state = new ClusterState({
    kubeConfig: kc, onError: (kind, err) => logger.warn({ kind, err }, "informer failed; restarting"),
    // Default topology spread selectors are deduced from Services and controllers: watched only when configured.
    selectorSources: config.schedulerConfig.defaultConstraints.length > 0,
    // Gate NodeOverlay (Karpenter's, default off): only then is the v1alpha1 CRD required and watched.
    nodeOverlays: config.featureGates["NodeOverlay"] === true,
  });
  const cluster = new KubeCluster(kc, state);
  const catalog = await regionCatalog(config, { logger, clock, overrides });
  const { cloud, resolver, nodeClassCloud, offerings, overlays: overlayStore } = await cloudProvider(config, kc, state, { cluster: nodeClusterInfo, kubernetesVersion, logger, clock, overrides, catalog });
  // Karpenter's switch: interruption handling runs exactly when a queue is configured.
  const interruption = config.interruptionQueue === "" ? undefined : { queue: new SqsInterruptionQueue({ sqs: awsSqsApi(awsClientConfig(config, overrides)), queue: config.interruptionQueue }), offerings };
  const events = new KubeEventRecorder({ kubeConfig: kc, logger });
  const catalogRefresher = new CatalogRefresher({
    catalog, clock, logger, metrics, events, periods: overrides.catalogRefreshMs,
    nodeClassesInUse: () => nodeClassesInUse(state),
  });
  catalogRefresher.refreshedAt(clock.now().getTime());
  const specs = controllers({ cluster, cloud, clock, events, metrics, logger, timeouts: { launchMs: config.launchTimeoutMs, registrationMs: config.registrationTimeoutMs },
    clusterCABundle: nodeClusterInfo.caBundle, nodeClassResolver: resolver, nodeClassCloud, nodeClassFinalizers: new KubeNodeClassFinalizers(kc), batch: { idleMs: config.batchIdleDurationMs, maxMs: config.batchMaxDurationMs }, scheduling: { maxPriceRatio: config.maxPriceRatio, schedulerConfig: config.schedulerConfig, expendablePodsPriorityCutoff: config.expendablePodsPriorityCutoff }, ...(interruption === undefined ? {} : { interruption }),
    disruption: { ...DEFAULT_DISRUPTION_SETTINGS, ...overrides.disruption, spotToSpot: config.featureGates["SpotToSpotConsolidation"] === true },
    nodeRepair: config.featureGates["NodeRepair"] === true,
    staticCapacity: config.featureGates["StaticCapacity"] === true,
    tagging: { tags: new Ec2InstanceTags(awsEc2TagsApi(awsClientConfig(config, overrides))), clusterName: config.clusterName },
    kubernetesVersion: { provider: kubernetesVersion, periodMs: overrides.kubernetesVersionRefreshMs },
    catalogRefresher, catalogFreshness: () => catalog.freshness(),
    nodeOverlays: { port: new KubeNodeOverlays(kc, state), store: overlayStore }, overlays: overlayStore,
    reservedCapacity: config.featureGates["ReservedCapacity"] !== false,
  });
  const manager = new ControllerManager(specs, state as unknown as ChangeSource, { logger, metrics, isConflict });
  await state.start();
  const elector = config.disableLeaderElection ? undefined : new LeaderElector({
    kubeConfig: kc, name: config.leaderElectionName, namespace: config.leaderElectionNamespace, identity: config.leaderElectionIdentity,
    leaseDurationMs: config.leaseDurationMs, renewDeadlineMs: config.renewDeadlineMs, retryPeriodMs: config.retryPeriodMs, logger, metrics,
    onStartedLeading: () => manager.start(),
    onStoppedLeading: () => manager.stop(),
  });
  if (elector === undefined) manager.start(); else elector.start();
  const servers = overrides.serveHttp === false ? [] : await serveProbes({ ready: () => state.synced, registry: metrics.registry }, { health: config.healthProbePort, metrics: config.metricsPort });
  const syncTimer = setInterval(() => metrics.clusterStateSynced.set(state.synced ? 1 : 0), 1000);
  if (config.featureGates["NodeRepair"] === true) {
    // Said once at start: users of Karpenter v1.14+ get its budget-paced repair by default, kerf the legacy controller.
    logger.info({ legacyNodeRepair: config.legacyNodeRepair }, "node repair on: Karpenter's node.health controller (legacy node repair), not paced by disruption budgets");
  }
  logStarted(logger, config);
  return {
    config, state, metrics, servers,
    isLeader: () => elector?.isLeader ?? true,
    stop: async () => {
      clearInterval(syncTimer);
      if (elector === undefined) await manager.stop(); else await elector.stop();
      await manager.stop();
      await state.stop();
      await Promise.all(servers.map((s) => s.close()));
      await kc.closeConnections();
    },
  };
}

/** The start line, then what of the configuration kerf ignores. */
function logStarted(logger: Logger, config: OperatorConfig): void {
  logger.info({ cluster: config.clusterName, region: config.region, identity: config.leaderElectionIdentity }, "operator started");
  logIgnoredConfiguration(logger, config.featureGates, process.env);
}

/**
 * Says once, at start, which Karpenter feature gates and settings this operator was given but ignores (the kerf
 * chart refuses them; an operator started another way would otherwise ignore them silently).
 */
function logIgnoredConfiguration(logger: Logger, gates: Readonly<Record<string, boolean>>, env: NodeJS.ProcessEnv): void {
  const { ignored, unknown } = ignoredFeatureGates(gates);
  if (ignored.length > 0) {
    logger.warn({ featureGates: ignored.map((g) => ({ gate: g, karpenter: IGNORED_FEATURE_GATES[g] })) }, "kerf's operator ignores these feature gates: kerf does not implement them");
  }
  if (unknown.length > 0) logger.warn({ featureGates: unknown }, "unknown feature gates: neither Karpenter's nor kerf's; ignored");
  const settings = ignoredSettings(env);
  if (settings.length > 0) logger.warn({ settings }, "kerf's operator ignores these Karpenter settings");
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

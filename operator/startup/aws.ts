/**
 * What `kerf operator` builds on AWS before any controller runs: the facts node user data carries (endpoint,
 * CA, service CIDR, DNS), the region's instance-type catalog (refreshed once), and the AWS provider graph.
 * Called by the composition root (operator/main.ts) only.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import { builtinCatalog, isBundledRegion } from "../../policies/domain/catalog/builtin.ts";
import { pricingApiRegion } from "../../policies/domain/catalog/prices.ts";
import { discoverCluster } from "../adapters/aws/cluster-discovery.ts";
import { createAwsProviders } from "../adapters/aws/factory.ts";
import { Ec2CatalogProvider } from "../adapters/aws/providers/catalog.ts";
import { awsEc2CatalogApi, awsEksApi, awsPricingApi, type AwsClientConfig } from "../adapters/aws/sdk.ts";
import { kubeconfigCABundle } from "../adapters/kube/ca-bundle.ts";
import { kubeDnsClusterIP, type KubernetesVersionProvider } from "../adapters/kube/cluster-facts.ts";
import type { ClusterState } from "../adapters/kube/cluster-state.ts";
import type { OperatorConfig } from "../config.ts";
import type { OfferingAvailability } from "../controllers/interruption/controller.ts";
import { OverlayStore } from "../controllers/nodeoverlay/store.ts";
import type { Clock } from "../core/clock.ts";
import type { ClusterInfo } from "../core/launch-template/cluster-info.ts";
import type { EC2NodeClassLike } from "../core/launch-template/node-class.ts";
import type { Logger } from "../observability/logger.ts";
import type { CloudProvider } from "../ports/cloud-provider.ts";
import type { NodeClassCloud } from "../ports/node-class-cloud.ts";
import type { NodeClassResolver } from "../ports/node-class-resolver.ts";

/** The overrides (main.ts's OperatorOverrides) the AWS clients read. */
export interface AwsOverrides {
  /** AWS credentials (tests: moto's fake ones); the SDK's default chain otherwise. */
  readonly awsCredentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** SSM prefix of the public AMI parameters (tests: moto refuses /aws/...). */
  readonly ssmPrefix?: string;
}

/** The SDK clients' region, endpoint (--aws-endpoint) and credentials. */
export function awsClientConfig(config: OperatorConfig, overrides: AwsOverrides): AwsClientConfig {
  return {
    region: config.region,
    ...(config.awsEndpoint === "" ? {} : { endpoint: config.awsEndpoint }),
    ...(overrides.awsCredentials === undefined ? {} : { credentials: overrides.awsCredentials }),
  };
}

/**
 * The endpoint, CA, service CIDR and cluster DNS address node user data carries. Never the operator's
 * own kubeconfig server: in a pod that is the `kubernetes` Service address, which a booting node cannot reach.
 */
export async function nodeCluster(
  config: OperatorConfig,
  kc: KubeConfig,
  logger: Logger,
  overrides: AwsOverrides,
): Promise<ClusterInfo> {
  const settings = { name: config.clusterName, endpoint: config.clusterEndpoint, caBundle: config.clusterCABundle };
  const cluster = await discoverCluster(settings, {
    eks: awsEksApi(awsClientConfig(config, overrides)),
    kubeconfigCA: () => kubeconfigCABundle(kc),
    kubeDnsClusterIP: kubeDnsClusterIP(kc),
    logger,
  });
  if (cluster.caBundle === undefined)
    logger.warn(
      "no cluster CA bundle (kubeconfig without one, no --cluster-ca-bundle): " +
        "node user data carries none and AL2023 nodes will not join",
    );
  logger.info(
    {
      endpoint: cluster.endpoint,
      caBundle: cluster.caBundle !== undefined,
      serviceCIDR: cluster.serviceCIDR ?? "not discovered",
      clusterDNS: cluster.dnsIP ?? "not discovered",
    },
    "cluster facts for node user data",
  );
  return cluster;
}

/**
 * The region's catalog from AWS, refreshed once before any controller runs: a failed part keeps the bundled
 * data of the region (warned), and the providers.catalog controller retries it.
 */
export async function regionCatalog(
  config: OperatorConfig,
  o: { logger: Logger; clock: Clock; overrides: AwsOverrides },
): Promise<Ec2CatalogProvider> {
  const aws = awsClientConfig(config, o.overrides);
  const reference = builtinCatalog();
  const catalog = new Ec2CatalogProvider({
    region: config.region,
    ec2: awsEc2CatalogApi(aws),
    clock: o.clock,
    reference,
    pricing: config.isolatedVPC ? undefined : awsPricingApi(aws, pricingApiRegion(config.region)),
    bundled: isBundledRegion(config.region) ? builtinCatalog(config.region) : undefined,
  });
  const started = performance.now();
  const results = await Promise.allSettled([
    catalog.refreshInstanceTypes(),
    catalog.refreshSpotPrices(),
    catalog.refreshOnDemandPrices(),
  ]);
  for (const r of results) {
    if (r.status === "rejected")
      o.logger.warn(
        { err: r.reason },
        "the instance-type catalog starts without this part from AWS; using the bundled data until a refresh succeeds",
      );
  }
  const types = catalog.current().instanceTypes.length;
  o.logger.info(
    {
      region: config.region,
      instanceTypes: types,
      ms: Math.round(performance.now() - started),
      parts: catalog.freshness().parts,
    },
    "instance-type catalog",
  );
  if (types === 0)
    o.logger.warn(
      { region: config.region },
      "no instance types: AWS did not answer and kerf bundles no data for this region; " +
        "nothing launches until a refresh succeeds",
    );
  return catalog;
}

/**
 * The AWS provider graph (cloud provider, node class resolver and cloud, offering availability) over the
 * region's catalog, and the NodeOverlay store when that gate is on.
 */
export async function cloudProvider(
  config: OperatorConfig,
  kc: KubeConfig,
  state: ClusterState,
  o: {
    cluster: ClusterInfo;
    kubernetesVersion: KubernetesVersionProvider;
    logger: Logger;
    clock: Clock;
    overrides: AwsOverrides;
    catalog: Ec2CatalogProvider;
  },
): Promise<{
  cloud: CloudProvider;
  resolver: NodeClassResolver;
  nodeClassCloud: NodeClassCloud;
  offerings: OfferingAvailability;
  overlays: OverlayStore | undefined;
}> {
  // Gate NodeOverlay: the evaluated overlays the launch, the provisioner and the disruption pass decorate types with.
  const overlays = config.featureGates["NodeOverlay"] === true ? new OverlayStore() : undefined;
  const graph = createAwsProviders(
    {
      cluster: o.cluster,
      aws: awsClientConfig(config, o.overrides),
      kubernetesVersion: o.kubernetesVersion.get,
      ...(o.overrides.ssmPrefix === undefined ? {} : { ssmPrefix: o.overrides.ssmPrefix }),
      reservedCapacity: config.featureGates["ReservedCapacity"] !== false,
    },
    {
      catalog: o.catalog,
      clock: o.clock,
      nodeClass: async (name) => state.nodeClass(name) as EC2NodeClassLike | undefined,
      overlays,
    },
  );
  return {
    cloud: graph.cloudProvider,
    resolver: graph.resolver,
    nodeClassCloud: graph.nodeClassCloud,
    offerings: graph.unavailable,
    overlays,
  };
}

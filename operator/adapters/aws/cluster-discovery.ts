/**
 * Cluster discovery at operator start: EKS DescribeCluster (endpoint, CA, service CIDR) and the
 * kubeconfig's CA, combined by core/launch-template/cluster-info in Karpenter's order.
 */
import type { DescribeClusterCommandOutput } from "@aws-sdk/client-eks";
import {
  ClusterDiscoveryError, ENDPOINT_SETTING, describeClusterRequired, resolveClusterInfo, shouldDescribeCluster,
  type ClusterInfo, type ClusterSettings, type DescribedCluster,
} from "../../core/launch-template/cluster-info.ts";
import type { Logger } from "../../observability/logger.ts";
import { describeAwsError } from "./errors.ts";
import type { EksApi } from "./sdk.ts";

/** What discovery reads from. */
export interface ClusterDiscoveryDeps {
  readonly eks: EksApi;
  /** The CA bundle of the operator's kubeconfig; called only when no other source has one. */
  readonly kubeconfigCA: () => string | undefined;
  readonly logger: Pick<Logger, "warn">;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

/** The fields user data needs; the IPv4 service CIDR first, as Karpenter reads it. */
export function describedCluster(out: DescribeClusterCommandOutput): DescribedCluster {
  const cluster = out.cluster;
  const network = cluster?.kubernetesNetworkConfig;
  return {
    endpoint: nonEmpty(cluster?.endpoint),
    caBundle: nonEmpty(cluster?.certificateAuthority?.data),
    serviceCIDR: nonEmpty(network?.serviceIpv4Cidr) ?? nonEmpty(network?.serviceIpv6Cidr),
  };
}

/** DescribeCluster when allowed; a failure is fatal only when the endpoint has no other source. */
async function describe(settings: ClusterSettings, deps: ClusterDiscoveryDeps): Promise<DescribedCluster | undefined> {
  if (!shouldDescribeCluster(settings)) return undefined;
  try {
    return describedCluster(await deps.eks.describeCluster({ name: settings.name }));
  } catch (error) {
    const cause = describeAwsError(`describing EKS cluster ${settings.name}`, error);
    if (describeClusterRequired(settings)) throw new ClusterDiscoveryError(`${ENDPOINT_SETTING} is empty and EKS could not tell the endpoint: ${cause}`, { cause: error });
    deps.logger.warn({ err: error }, `${cause}; node user data carries the configured endpoint and no discovered service CIDR`);
    return undefined;
  }
}

/** The endpoint, CA and service CIDR node user data carries; throws ClusterDiscoveryError when there is no endpoint. */
export async function discoverCluster(settings: ClusterSettings, deps: ClusterDiscoveryDeps): Promise<ClusterInfo> {
  return resolveClusterInfo(settings, await describe(settings, deps), deps.kubeconfigCA);
}

/**
 * Cluster discovery at operator start: EKS DescribeCluster (endpoint, CA, service CIDR), the
 * kubeconfig's CA and the `kube-dns` Service's clusterIP, combined by core/launch-template/cluster-info
 * in Karpenter's order.
 */
import type { DescribeClusterCommandOutput } from "@aws-sdk/client-eks";
import {
  ClusterDiscoveryError,
  ENDPOINT_SETTING,
  OPTIONAL_DESCRIBE_TIMEOUT_MS,
  clusterDnsAddress,
  describeClusterRequired,
  resolveClusterInfo,
  type ClusterInfo,
  type ClusterSettings,
  type DescribedCluster,
} from "../../core/launch-template/cluster-info.ts";
import type { Logger } from "../../observability/logger.ts";
import { describeAwsError } from "./errors.ts";
import type { EksApi } from "./sdk.ts";

/** What discovery reads from. */
export interface ClusterDiscoveryDeps {
  readonly eks: EksApi;
  /** The CA bundle of the operator's kubeconfig; called only when no other source has one. */
  readonly kubeconfigCA: () => string | undefined;
  /**
   * The clusterIP of Service kube-system/kube-dns; undefined when there is no such Service. A failure
   * (no permission, apiserver unreachable) throws and is logged: nodes then get the family's default.
   */
  readonly kubeDnsClusterIP?: (() => Promise<string | undefined>) | undefined;
  readonly logger: Pick<Logger, "warn" | "info">;
  /** How long an optional DescribeCluster may take (default OPTIONAL_DESCRIBE_TIMEOUT_MS; tests shorten it). */
  readonly optionalDescribeTimeoutMs?: number | undefined;
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

/** The call's answer, or a rejection after `ms` (the call itself goes on; its late answer is dropped). */
async function within<T>(ms: number, what: string, call: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  call.catch(() => undefined);
  try {
    return await Promise.race([call, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * DescribeCluster, always (Karpenter reads the service CIDR from it even with the endpoint configured
 * and in an isolated VPC). A failure is fatal only when the endpoint has no other source; otherwise
 * the call is bounded in time, so a VPC without an EKS endpoint does not hold the start for minutes.
 */
async function describe(settings: ClusterSettings, deps: ClusterDiscoveryDeps): Promise<DescribedCluster | undefined> {
  const required = describeClusterRequired(settings);
  try {
    const call = deps.eks.describeCluster({ name: settings.name });
    const timeoutMs = deps.optionalDescribeTimeoutMs ?? OPTIONAL_DESCRIBE_TIMEOUT_MS;
    const out = required ? await call : await within(timeoutMs, "DescribeCluster", call);
    return describedCluster(out);
  } catch (error) {
    const cause = describeAwsError(`describing EKS cluster ${settings.name}`, error);
    if (required) {
      const message = `${ENDPOINT_SETTING} is empty and EKS could not tell the endpoint: ${cause}`;
      throw new ClusterDiscoveryError(message, { cause: error });
    }
    const consequence = "node user data carries the configured endpoint and no discovered service CIDR";
    deps.logger.warn({ err: error }, `${cause}; ${consequence}`);
    return undefined;
  }
}

const DERIVED_DNS = "node user data derives the cluster DNS from the service CIDR";

/** The kube-dns clusterIP as the cluster DNS address; undefined (and logged) when it cannot be read. */
async function kubeDns(deps: ClusterDiscoveryDeps): Promise<string | undefined> {
  if (deps.kubeDnsClusterIP === undefined) return undefined;
  try {
    const clusterIP = await deps.kubeDnsClusterIP();
    const address = clusterDnsAddress(clusterIP);
    if (address === undefined) {
      deps.logger.info({ clusterIP }, `no usable kube-system/kube-dns Service: ${DERIVED_DNS}`);
    }
    return address;
  } catch (error) {
    // As Karpenter: custom DNS set-ups have no kube-dns Service, and that must not stop the operator.
    deps.logger.warn({ err: error }, `reading Service kube-system/kube-dns failed: ${DERIVED_DNS}`);
    return undefined;
  }
}

/**
 * The endpoint, CA, service CIDR and DNS address node user data carries; throws ClusterDiscoveryError when
 * there is no endpoint.
 */
export async function discoverCluster(settings: ClusterSettings, deps: ClusterDiscoveryDeps): Promise<ClusterInfo> {
  // In turn: when DescribeCluster fails fatally, nothing else is read (or logged).
  const described = await describe(settings, deps);
  return resolveClusterInfo(settings, described, deps.kubeconfigCA, await kubeDns(deps));
}

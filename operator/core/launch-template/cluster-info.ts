/**
 * The cluster facts node user data carries (API server endpoint, CA bundle, service CIDR) and the
 * order they are taken in, as Karpenter does: the operator's settings first, then EKS
 * DescribeCluster, then the operator's own kubeconfig (CA only). Pure: the adapter makes the calls.
 */

/** What a node needs to join the cluster. */
export interface ClusterInfo {
  readonly name: string;
  /** The API server URL nodes join with; never the in-cluster `kubernetes` Service address. */
  readonly endpoint: string;
  /** Base64 PEM of the cluster CA; undefined when no source had one. */
  readonly caBundle?: string | undefined;
  /**
   * The Services CIDR as DescribeCluster reports it; undefined when it was not discovered, and then
   * each AMI family falls back on its own (AL2023: EKS's default, AL2 and Bottlerocket: their boot-time detection).
   */
  readonly serviceCIDR?: string | undefined;
}

/** The operator settings discovery starts from; "" means not configured. */
export interface ClusterSettings {
  readonly name: string;
  readonly endpoint: string;
  readonly caBundle: string;
  readonly isolatedVPC: boolean;
}

/** The part of an EKS DescribeCluster answer user data needs. */
export interface DescribedCluster {
  readonly endpoint?: string | undefined;
  /** certificateAuthority.data (already base64). */
  readonly caBundle?: string | undefined;
  /** kubernetesNetworkConfig.serviceIpv4Cidr, else serviceIpv6Cidr. */
  readonly serviceCIDR?: string | undefined;
}

/** The cluster facts cannot be established; the operator must not start (its nodes would never join). */
export class ClusterDiscoveryError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(`discovering the cluster for node user data: ${message}`, options);
    this.name = "ClusterDiscoveryError";
  }
}

/** What a user sets to skip discovery; every discovery error names it. */
export const ENDPOINT_SETTING = "--cluster-endpoint (CLUSTER_ENDPOINT)";

/**
 * Whether to call DescribeCluster: always outside an isolated VPC — for the endpoint when it is not
 * configured, and for the service CIDR either way (Karpenter resolves the CIDR with DescribeCluster
 * even when the endpoint is set).
 */
export function shouldDescribeCluster(settings: ClusterSettings): boolean {
  return !settings.isolatedVPC;
}

/** Whether a failed DescribeCluster is fatal: only when it was the endpoint's only source. */
export function describeClusterRequired(settings: ClusterSettings): boolean {
  return settings.endpoint === "";
}

/**
 * Combines the sources. The CA follows the endpoint: DescribeCluster's CA for the endpoint it
 * reported, the kubeconfig's (read only when needed) for a configured one; --cluster-ca-bundle wins.
 */
export function resolveClusterInfo(settings: ClusterSettings, described: DescribedCluster | undefined, kubeconfigCA: () => string | undefined): ClusterInfo {
  const endpoint = settings.endpoint !== "" ? settings.endpoint : (described?.endpoint ?? "");
  if (endpoint === "") throw new ClusterDiscoveryError(`${ENDPOINT_SETTING} is empty and EKS DescribeCluster ${settings.name} reported no endpoint`);
  const discoveredCA = settings.endpoint === "" ? described?.caBundle : undefined;
  const caBundle = settings.caBundle !== "" ? settings.caBundle : (discoveredCA ?? kubeconfigCA());
  return { name: settings.name, endpoint, caBundle, serviceCIDR: described?.serviceCIDR };
}

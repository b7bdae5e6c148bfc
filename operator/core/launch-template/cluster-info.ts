/**
 * The cluster facts node user data carries (API server endpoint, CA bundle, service CIDR, cluster DNS)
 * and the order they are taken in, as Karpenter does: the operator's settings first, then EKS
 * DescribeCluster, then the operator's own kubeconfig (CA only); the cluster DNS address from the
 * `kube-dns` Service. Also the Kubernetes minor version AMI aliases resolve for. Pure: the adapters
 * make the calls.
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
  /**
   * The clusterIP of the `kube-dns` Service in kube-system, which node user data passes as the
   * kubelet's clusterDNS unless spec.kubelet.clusterDNS is set (Karpenter's default); undefined when
   * the Service could not be read, and then each family derives it from the service CIDR.
   */
  readonly dnsIP?: string | undefined;
}

/** The operator settings discovery starts from; "" means not configured. */
export interface ClusterSettings {
  readonly name: string;
  readonly endpoint: string;
  readonly caBundle: string;
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
 * How long discovery waits for DescribeCluster when its answer is optional (the endpoint is
 * configured): in an isolated VPC without an EKS endpoint the call can only time out, and the
 * operator must not wait minutes for that at start.
 */
export const OPTIONAL_DESCRIBE_TIMEOUT_MS = 10_000;

/**
 * Whether a failed DescribeCluster is fatal: only when it was the endpoint's only source. Discovery
 * calls it always, as Karpenter does — for the endpoint when it is not configured, and for the
 * service CIDR either way, in an isolated VPC too (EKS has a VPC endpoint there).
 */
export function describeClusterRequired(settings: ClusterSettings): boolean {
  return settings.endpoint === "";
}

/**
 * Combines the sources. The CA follows the endpoint: DescribeCluster's CA for the endpoint it
 * reported, the kubeconfig's (read only when needed) for a configured one; --cluster-ca-bundle wins.
 */
export function resolveClusterInfo(
  settings: ClusterSettings,
  described: DescribedCluster | undefined,
  kubeconfigCA: () => string | undefined,
  dnsIP?: string,
): ClusterInfo {
  const endpoint = settings.endpoint !== "" ? settings.endpoint : (described?.endpoint ?? "");
  if (endpoint === "") {
    const why = `EKS DescribeCluster ${settings.name} reported no endpoint`;
    throw new ClusterDiscoveryError(`${ENDPOINT_SETTING} is empty and ${why}`);
  }
  const discoveredCA = settings.endpoint === "" ? described?.caBundle : undefined;
  const caBundle = settings.caBundle !== "" ? settings.caBundle : (discoveredCA ?? kubeconfigCA());
  const info = { name: settings.name, endpoint, caBundle, serviceCIDR: described?.serviceCIDR };
  return dnsIP === undefined ? info : { ...info, dnsIP };
}

/** A clusterIP usable as the cluster DNS address: an IPv4 or IPv6 address (not "None", not ""). */
export function clusterDnsAddress(clusterIP: string | undefined): string | undefined {
  if (clusterIP === undefined) return undefined;
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(clusterIP)) {
    return clusterIP.split(".").every((o) => Number(o) <= 255) ? clusterIP : undefined;
  }
  return /^[0-9a-fA-F:]+$/.test(clusterIP) && clusterIP.includes(":") ? clusterIP : undefined;
}

/**
 * The "major.minor" AMI alias parameters are published under, from the apiserver's /version answer
 * (`minor` may carry a suffix, e.g. "36+" on EKS); undefined when the answer has no such numbers.
 */
export function kubernetesMinor(version: { readonly major?: string; readonly minor?: string }): string | undefined {
  const major = /^\d+/.exec(version.major ?? "")?.[0];
  const minor = /^\d+/.exec(version.minor ?? "")?.[0];
  return major === undefined || minor === undefined ? undefined : `${major}.${minor}`;
}

/**
 * The launch template's network interfaces as Karpenter computes them (launchtemplate generateNetworkInterfaces):
 * one EFA interface per network card the instance type offers when the NodeClaim requests
 * vpc.amazonaws.com/efa, and the IPv6 settings (a primary IPv6 address) in an IPv6 cluster.
 */

/** One interface in launch-template terms; the adapter maps it to the SDK shape. */
export interface NetworkInterface {
  readonly deviceIndex: number;
  readonly networkCardIndex?: number | undefined;
  readonly interfaceType?: "efa" | undefined;
  readonly groups: readonly string[];
  readonly associatePublicIPAddress?: boolean | undefined;
  readonly primaryIpv6?: boolean | undefined;
  readonly ipv6AddressCount?: number | undefined;
}

/** What the interfaces depend on. */
export interface NetworkInterfaceOptions {
  /** EFA interfaces to attach (the instance type's vpc.amazonaws.com/efa capacity when requested), else 0. */
  readonly efaCount: number;
  /** The cluster's IP family is IPv6 (its kube-dns address is IPv6). */
  readonly ipv6: boolean;
  readonly securityGroupIds: readonly string[];
  readonly associatePublicIPAddress?: boolean | undefined;
}

function ipv6Fields(ipv6: boolean): Pick<NetworkInterface, "primaryIpv6" | "ipv6AddressCount"> {
  return ipv6 ? { primaryIpv6: true, ipv6AddressCount: 1 } : {};
}

/**
 * The interfaces, or undefined when none needs declaring: then the template carries the security groups
 * itself (kerf keeps that shape for IPv4 clusters without EFA or a public-IP choice; Karpenter always
 * declares the one interface, which EC2 treats the same).
 */
export function networkInterfaces(o: NetworkInterfaceOptions): NetworkInterface[] | undefined {
  const groups = [...o.securityGroupIds].sort();
  const common = { groups, associatePublicIPAddress: o.associatePublicIPAddress, ...ipv6Fields(o.ipv6) };
  if (o.efaCount > 0) {
    // Card 0 keeps device index 0 so it has priority (the one that gets a public IP); the others take 1.
    return Array.from({ length: o.efaCount }, (_, i) => ({
      networkCardIndex: i,
      deviceIndex: i === 0 ? 0 : 1,
      interfaceType: "efa" as const,
      ...common,
    }));
  }
  if (!o.ipv6 && o.associatePublicIPAddress === undefined) return undefined;
  return [{ deviceIndex: 0, ...common }];
}

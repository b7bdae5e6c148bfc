/** Chooses the user-data generator by AMI family; AL2 uses bootstrap.sh, Custom passes spec.userData through. */
import { clusterDNSFromCIDR, isIPv6CIDR, labelFlag, mimeDocument, taintFlag, userParts, type BootstrapOptions } from "./bootstrap.ts";
import { bottlerocketUserData } from "./bottlerocket.ts";
import { al2023UserData } from "./nodeadm.ts";

function quote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/**
 * bootstrap.sh learns the service CIDR only from DescribeCluster, which it skips when given the
 * endpoint and CA: pass the cluster DNS derived from the discovered CIDR (IPv4), or the IPv6 CIDR
 * itself (bootstrap.sh derives the DNS address from it). spec.kubelet.clusterDNS wins.
 */
function networkArgs(options: BootstrapOptions): string[] {
  const cidr = options.clusterCIDR;
  const ipv6 = cidr !== undefined && isIPv6CIDR(cidr);
  const dns = options.kubelet.clusterDNS?.[0] ?? (ipv6 ? undefined : clusterDNSFromCIDR(cidr));
  const args = ipv6 ? ["--ip-family ipv6", `--service-ipv6-cidr ${quote(cidr)}`] : [];
  if (dns !== undefined) args.push(`--dns-cluster-ip ${quote(dns)}`);
  return args;
}

/** AL2: the user's parts, then a shell part running /etc/eks/bootstrap.sh with labels and taints as kubelet flags. */
export function al2UserData(options: BootstrapOptions): string {
  const extra = [`--node-labels=${labelFlag(options.labels)}`];
  if (options.taints.length > 0) extra.push(`--register-with-taints=${taintFlag(options.taints)}`);
  if (options.kubelet.maxPods !== undefined) extra.push(`--max-pods=${options.kubelet.maxPods}`);
  const args = [`/etc/eks/bootstrap.sh ${quote(options.clusterName)}`, `--apiserver-endpoint ${quote(options.clusterEndpoint)}`];
  if (options.caBundle !== undefined) args.push(`--b64-cluster-ca ${quote(options.caBundle)}`);
  if (options.kubelet.maxPods !== undefined) args.push("--use-max-pods false");
  args.push(...networkArgs(options));
  args.push(`--kubelet-extra-args ${quote(extra.join(" "))}`);
  const script = `#!/bin/bash -xe\nexec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1\n${args.join(" \\\n")}\n`;
  return mimeDocument([...userParts(options.customUserData, "text/x-shellscript; charset=\"us-ascii\""), { contentType: "text/x-shellscript; charset=\"us-ascii\"", body: script }]);
}

/** User data for an AMI family (as named by amiFamilyOf); unknown and Windows families pass spec.userData through. */
export function userDataFor(family: string, options: BootstrapOptions): string {
  switch (family) {
    case "AL2023": return al2023UserData(options);
    case "Bottlerocket": return bottlerocketUserData(options);
    case "AL2": return al2UserData(options);
    default: return options.customUserData ?? "";
  }
}

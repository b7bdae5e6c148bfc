/**
 * Chooses the user-data generator by AMI family: AL2 runs bootstrap.sh, AL2023 nodeadm, Bottlerocket TOML,
 * Windows Start-EKSBootstrap.ps1; Custom passes spec.userData through.
 */
import {
  clusterDNSFromCIDR,
  isIPv6CIDR,
  kubeletExtraArgs,
  mimeDocument,
  userParts,
  type BootstrapOptions,
} from "./bootstrap.ts";
import { bottlerocketUserData } from "./bottlerocket.ts";
import { al2023UserData } from "./nodeadm.ts";
import { windowsUserData } from "./windows.ts";

function quote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/**
 * bootstrap.sh learns the service CIDR only from DescribeCluster, which it skips when given the
 * endpoint and CA. Karpenter passes the cluster DNS (the IPv6 family when it is an IPv6 address);
 * kerf also passes an IPv6 service CIDR when no DNS address is known, for bootstrap.sh to derive it.
 */
function networkArgs(options: BootstrapOptions): string[] {
  const cidr = options.clusterCIDR;
  const ipv6CIDR = cidr !== undefined && isIPv6CIDR(cidr) ? cidr : undefined;
  const dns = options.kubelet.clusterDNS?.[0] ?? (ipv6CIDR === undefined ? clusterDNSFromCIDR(cidr) : undefined);
  if (dns === undefined)
    return ipv6CIDR === undefined ? [] : ["--ip-family ipv6", `--service-ipv6-cidr ${quote(ipv6CIDR)}`];
  return [...(isIPv6CIDR(dns) ? ["--ip-family ipv6"] : []), `--dns-cluster-ip ${quote(dns)}`];
}

/** The shell script running /etc/eks/bootstrap.sh, line for line as Karpenter writes it. */
export function al2BootstrapScript(options: BootstrapOptions): string {
  const ca = options.caBundle === undefined ? "" : `--b64-cluster-ca ${quote(options.caBundle)}`;
  const first =
    `/etc/eks/bootstrap.sh ${quote(options.clusterName)} ` +
    `--apiserver-endpoint ${quote(options.clusterEndpoint)} ${ca}`;
  const args = [first, ...networkArgs(options)];
  if (options.kubelet.maxPods !== undefined) args.push("--use-max-pods false");
  args.push(`--kubelet-extra-args ${quote(kubeletExtraArgs(options).join(" "))}`);
  if (options.instanceStorePolicy === "RAID0") args.push("--local-disks raid0");
  const log = "exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1";
  return `#!/bin/bash -xe\n${log}\n${args.join(" \\\n")}`;
}

/** AL2: the user's parts, then a shell part running /etc/eks/bootstrap.sh with the kubelet flags. */
export function al2UserData(options: BootstrapOptions): string {
  const shell = 'text/x-shellscript; charset="us-ascii"';
  return mimeDocument([
    ...userParts(options.customUserData, shell),
    { contentType: shell, body: al2BootstrapScript(options) },
  ]);
}

/** User data for an AMI family (as named by amiFamilyOf); Custom and unknown families pass spec.userData through. */
export function userDataFor(family: string, options: BootstrapOptions): string {
  switch (family) {
    case "AL2023":
      return al2023UserData(options);
    case "Bottlerocket":
      return bottlerocketUserData(options);
    case "AL2":
      return al2UserData(options);
    case "Windows2019":
    case "Windows2022":
    case "Windows2025":
      return windowsUserData(options);
    default:
      return options.customUserData ?? "";
  }
}

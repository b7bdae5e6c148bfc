/**
 * Windows (2019, 2022, 2025) user data: one `<powershell>` block holding the user's script, then the
 * EKS-optimized AMI's Start-EKSBootstrap.ps1 with the cluster, the kubelet flags and the cluster DNS.
 * Windows ignores spec.instanceStorePolicy, as Karpenter's Windows family does.
 */
import { kubeletExtraArgs, type BootstrapOptions } from "./bootstrap.ts";

const SCRIPT_FILE = '[string]$EKSBootstrapScriptFile = "$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1"';

/** PowerShell single-quoted string: a quote is doubled. */
function quote(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** The user data Karpenter's Windows families write. */
export function windowsUserData(options: BootstrapOptions): string {
  const lines = ["<powershell>"];
  const custom = options.customUserData ?? "";
  if (custom !== "") lines.push(custom);
  lines.push(SCRIPT_FILE);
  let call = `& $EKSBootstrapScriptFile -EKSClusterName ${quote(options.clusterName)}`;
  call += ` -APIServerEndpoint ${quote(options.clusterEndpoint)}`;
  if (options.caBundle !== undefined) call += ` -Base64ClusterCA ${quote(options.caBundle)}`;
  const args = kubeletExtraArgs(options);
  if (args.length > 0) call += ` -KubeletExtraArgs ${quote(args.join(" "))}`;
  const dns = options.kubelet.clusterDNS?.[0];
  if (dns !== undefined) call += ` -DNSClusterIP ${quote(dns)}`;
  lines.push(call, "</powershell>");
  return lines.join("\n");
}

/** Bottlerocket user data: TOML settings for the kubelet, labels and taints. */
import { clusterDNSFromCIDR, type BootstrapOptions } from "./bootstrap.ts";

function str(value: string): string {
  return JSON.stringify(value);
}

function table(name: string, entries: Readonly<Record<string, string | readonly string[]>> | undefined): string[] {
  if (entries === undefined || Object.keys(entries).length === 0) return [];
  const lines = ["", `[${name}]`];
  for (const key of Object.keys(entries).sort()) {
    const v = entries[key] ?? "";
    lines.push(`${str(key)} = ${typeof v === "string" ? str(v) : `[${v.map(str).join(", ")}]`}`);
  }
  return lines;
}

/** spec.kubelet.clusterDNS, else the address derived from the discovered service CIDR (else Bottlerocket detects it at boot). */
function clusterDNS(options: BootstrapOptions): readonly string[] {
  if (options.kubelet.clusterDNS !== undefined && options.kubelet.clusterDNS.length > 0) return options.kubelet.clusterDNS;
  const derived = clusterDNSFromCIDR(options.clusterCIDR);
  return derived === undefined ? [] : [derived];
}

function scalars(options: BootstrapOptions): string[] {
  const k = options.kubelet;
  const lines = [`api-server = ${str(options.clusterEndpoint)}`, `cluster-name = ${str(options.clusterName)}`];
  if (options.caBundle !== undefined) lines.push(`cluster-certificate = ${str(options.caBundle)}`);
  if (k.maxPods !== undefined) lines.push(`max-pods = ${k.maxPods}`);
  if (k.podsPerCore !== undefined) lines.push(`pods-per-core = ${k.podsPerCore}`);
  const dns = clusterDNS(options);
  if (dns.length > 0) lines.push(`cluster-dns-ip = [${dns.map(str).join(", ")}]`);
  if (k.cpuCFSQuota !== undefined) lines.push(`cpu-cfs-quota-enforced = ${k.cpuCFSQuota}`);
  if (k.imageGCHighThresholdPercent !== undefined) lines.push(`image-gc-high-threshold-percent = ${k.imageGCHighThresholdPercent}`);
  if (k.imageGCLowThresholdPercent !== undefined) lines.push(`image-gc-low-threshold-percent = ${k.imageGCLowThresholdPercent}`);
  if (k.evictionMaxPodGracePeriod !== undefined) lines.push(`eviction-max-pod-grace-period = ${k.evictionMaxPodGracePeriod}`);
  return lines;
}

function taints(options: BootstrapOptions): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const t of options.taints) (out[t.key] ??= []).push(`${t.value ?? ""}:${t.effect}`);
  return out;
}

/**
 * Bottlerocket user data. The user's TOML comes first, unchanged; kerf's [settings.kubernetes]
 * tables follow, so user data must not define those tables itself (no TOML merge yet).
 */
export function bottlerocketUserData(options: BootstrapOptions): string {
  const k = options.kubelet;
  const lines = [
    "[settings.kubernetes]", ...scalars(options),
    ...table("settings.kubernetes.node-labels", options.labels),
    ...table("settings.kubernetes.node-taints", taints(options)),
    ...table("settings.kubernetes.eviction-hard", k.evictionHard),
    ...table("settings.kubernetes.eviction-soft", k.evictionSoft),
    ...table("settings.kubernetes.eviction-soft-grace-period", k.evictionSoftGracePeriod),
    ...table("settings.kubernetes.kube-reserved", k.kubeReserved),
    ...table("settings.kubernetes.system-reserved", k.systemReserved),
  ];
  const user = options.customUserData?.trim() ?? "";
  return `${user === "" ? "" : `${user}\n\n`}${lines.join("\n")}\n`;
}

/** What every AMI family's user data needs to join the node to the cluster (shared input of the generators). */
import { formatDuration, parseDuration } from "../../../policies/domain/duration.ts";
import type { NodeClassKubelet } from "./node-class.ts";

/** A taint to register the node with. */
export interface BootstrapTaint {
  readonly key: string;
  readonly value?: string | undefined;
  readonly effect: string;
}

/** Inputs of a user-data generator. */
export interface BootstrapOptions {
  readonly clusterName: string;
  readonly clusterEndpoint: string;
  /** Base64 PEM of the cluster CA; omitted when unknown. */
  readonly caBundle?: string | undefined;
  /** Service CIDR from DescribeCluster; undefined when not discovered (each family falls back on its own). */
  readonly clusterCIDR?: string | undefined;
  readonly kubelet: NodeClassKubelet;
  /** Node labels to register with, e.g. karpenter.sh/nodepool and karpenter.sh/capacity-type. */
  readonly labels: Readonly<Record<string, string>>;
  /** Taints to register with (startup taints and karpenter.sh/unregistered included). */
  readonly taints: readonly BootstrapTaint[];
  /** The EC2NodeClass spec.userData, merged per family. */
  readonly customUserData?: string | undefined;
  /** spec.instanceStorePolicy: "RAID0" makes each family assemble the instance-store disks into one array. */
  readonly instanceStorePolicy?: string | undefined;
}

/** The taint every Karpenter node registers with until the operator has synced it. */
export const UNREGISTERED_TAINT: BootstrapTaint = { key: "karpenter.sh/unregistered", effect: "NoExecute" };

/** Labels as the kubelet flag spells them, sorted by key: `a=1,b=2`. */
export function labelFlag(labels: Readonly<Record<string, string>>): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k] ?? ""}`)
    .join(",");
}

/** Taints as the kubelet flag spells them: `key=value:Effect,key:Effect`. */
export function taintFlag(taints: readonly BootstrapTaint[]): string {
  return taints
    .map((t) => (t.value === undefined || t.value === "" ? `${t.key}:${t.effect}` : `${t.key}=${t.value}:${t.effect}`))
    .join(",");
}

/** Karpenter's `--node-labels="a=1,b=2"` (sorted by key), or undefined without labels. */
export function nodeLabelArg(labels: Readonly<Record<string, string>>): string | undefined {
  return Object.keys(labels).length === 0 ? undefined : `--node-labels=${JSON.stringify(labelFlag(labels))}`;
}

/** Karpenter's `--register-with-taints="..."`, written even when there is no taint. */
export function nodeTaintArg(taints: readonly BootstrapTaint[]): string {
  return `--register-with-taints=${JSON.stringify(taintFlag(taints))}`;
}

/** `name="k1<sep>v1,k2<sep>v2"` with keys sorted (Karpenter iterates a Go map; sorting keeps the hash stable). */
function joinedArg(name: string, entries: Readonly<Record<string, string>> | undefined, separator: string): string[] {
  const keys = Object.keys(entries ?? {}).sort();
  if (keys.length === 0) return [];
  return [`${name}=${JSON.stringify(keys.map((k) => `${k}${separator}${entries?.[k] ?? ""}`).join(","))}`];
}

/** A grace period as Go's time.Duration prints it ("90s" → "1m30s"), as Karpenter's parsed config does. */
export function goDuration(value: string): string {
  try {
    return formatDuration(parseDuration(value));
  } catch {
    return value;
  }
}

function mapValues(
  entries: Readonly<Record<string, string>> | undefined,
  f: (v: string) => string,
): Record<string, string> {
  return Object.fromEntries(Object.entries(entries ?? {}).map(([k, v]) => [k, f(v)]));
}

/**
 * The kubelet flags AL2's bootstrap.sh and Windows' Start-EKSBootstrap.ps1 get, in Karpenter's order:
 * labels, taints, max-pods, pods-per-core, reserved resources, eviction thresholds, image GC, CFS quota.
 */
export function kubeletExtraArgs(options: BootstrapOptions): string[] {
  const k = options.kubelet;
  const args = [nodeLabelArg(options.labels), nodeTaintArg(options.taints)].filter((a) => a !== undefined);
  if (k.maxPods !== undefined) args.push(`--max-pods=${k.maxPods}`);
  if (k.podsPerCore !== undefined) args.push(`--pods-per-core=${k.podsPerCore}`);
  args.push(
    ...joinedArg("--system-reserved", k.systemReserved, "="),
    ...joinedArg("--kube-reserved", k.kubeReserved, "="),
  );
  args.push(...joinedArg("--eviction-hard", k.evictionHard, "<"), ...joinedArg("--eviction-soft", k.evictionSoft, "<"));
  args.push(...joinedArg("--eviction-soft-grace-period", mapValues(k.evictionSoftGracePeriod, goDuration), "="));
  if (k.evictionMaxPodGracePeriod !== undefined)
    args.push(`--eviction-max-pod-grace-period=${k.evictionMaxPodGracePeriod}`);
  if (k.imageGCHighThresholdPercent !== undefined)
    args.push(`--image-gc-high-threshold=${k.imageGCHighThresholdPercent}`);
  if (k.imageGCLowThresholdPercent !== undefined) args.push(`--image-gc-low-threshold=${k.imageGCLowThresholdPercent}`);
  if (k.cpuCFSQuota !== undefined) args.push(`--cpu-cfs-quota=${k.cpuCFSQuota}`);
  return args;
}

/** Whether a CIDR is IPv6 (EKS reports serviceIpv6Cidr for IPv6 clusters). */
export function isIPv6CIDR(cidr: string): boolean {
  return cidr.includes(":");
}

/**
 * The cluster DNS address bootstrap.sh and nodeadm derive from a service CIDR: the 10th address
 * (`172.20.0.0/16` → `172.20.0.10`, `fd00:1::/108` → `fd00:1::a`). Undefined when the CIDR has
 * another shape, so callers leave the choice to the node.
 */
export function clusterDNSFromCIDR(cidr: string | undefined): string | undefined {
  const [address, bits] = (cidr ?? "").split("/");
  if (address === undefined || bits === undefined) return undefined;
  if (isIPv6CIDR(address)) return address.endsWith("::") ? `${address}a` : undefined;
  const value = ipv4Value(address);
  const prefix = Number(bits);
  if (value === undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > 28) return undefined;
  const dns = value - (value % 2 ** (32 - prefix)) + 10;
  return [24, 16, 8, 0].map((shift) => Math.floor(dns / 2 ** shift) % 256).join(".");
}

function ipv4Value(address: string): number | undefined {
  const octets = address.split(".").map(Number);
  if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o) || o < 0 || o > 255)) return undefined;
  return octets.reduce((n, o) => n * 256 + o, 0);
}

/** Mime boundary Karpenter uses. */
export const MIME_BOUNDARY = "//";

/** One MIME part. */
export interface MimePart {
  readonly contentType: string;
  readonly body: string;
}

/** A multipart/mixed document made of the parts, in order. */
export function mimeDocument(parts: readonly MimePart[]): string {
  const lines = ["MIME-Version: 1.0", `Content-Type: multipart/mixed; boundary="${MIME_BOUNDARY}"`, ""];
  for (const p of parts)
    lines.push(`--${MIME_BOUNDARY}`, `Content-Type: ${p.contentType}`, "", p.body.replace(/\n$/, ""));
  lines.push(`--${MIME_BOUNDARY}--`, "");
  return lines.join("\n");
}

function boundaryOf(doc: string): string | undefined {
  return /boundary="?([^"\r\n;]+)"?/i.exec(doc)?.[1];
}

/** The parts of user-supplied user data: a MIME document's parts, or the whole text as one part. */
export function userParts(userData: string | undefined, defaultType: string): MimePart[] {
  if (userData === undefined || userData.trim() === "") return [];
  // Karpenter reads user data starting with either header as MIME.
  const boundary = /^(MIME-Version|Content-Type):/i.test(userData.trimStart()) ? boundaryOf(userData) : undefined;
  if (boundary === undefined)
    return [
      {
        contentType: userData.startsWith("#!") ? 'text/x-shellscript; charset="us-ascii"' : defaultType,
        body: userData,
      },
    ];
  const parts: MimePart[] = [];
  for (const chunk of userData.split(`--${boundary}`).slice(1)) {
    if (chunk.startsWith("--")) break;
    const [head, ...body] = chunk.replace(/^\r?\n/, "").split(/\r?\n\r?\n/);
    const contentType = /Content-Type:\s*([^\r\n]+)/i.exec(head ?? "")?.[1] ?? defaultType;
    parts.push({ contentType, body: body.join("\n\n").replace(/\r?\n$/, "") });
  }
  return parts;
}

/** What every AMI family's user data needs to join the node to the cluster (shared input of the generators). */
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
  /** Service CIDR (AL2023 nodeadm needs it). */
  readonly clusterCIDR?: string | undefined;
  readonly kubelet: NodeClassKubelet;
  /** Node labels to register with, e.g. karpenter.sh/nodepool and karpenter.sh/capacity-type. */
  readonly labels: Readonly<Record<string, string>>;
  /** Taints to register with (startup taints and karpenter.sh/unregistered included). */
  readonly taints: readonly BootstrapTaint[];
  /** The EC2NodeClass spec.userData, merged per family. */
  readonly customUserData?: string | undefined;
}

/** The taint every Karpenter node registers with until the operator has synced it. */
export const UNREGISTERED_TAINT: BootstrapTaint = { key: "karpenter.sh/unregistered", effect: "NoExecute" };

/** Labels as the kubelet flag spells them, sorted by key: `a=1,b=2`. */
export function labelFlag(labels: Readonly<Record<string, string>>): string {
  return Object.keys(labels).sort().map((k) => `${k}=${labels[k] ?? ""}`).join(",");
}

/** Taints as the kubelet flag spells them: `key=value:Effect,key:Effect`. */
export function taintFlag(taints: readonly BootstrapTaint[]): string {
  return taints.map((t) => (t.value === undefined || t.value === "" ? `${t.key}:${t.effect}` : `${t.key}=${t.value}:${t.effect}`)).join(",");
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
  for (const p of parts) lines.push(`--${MIME_BOUNDARY}`, `Content-Type: ${p.contentType}`, "", p.body.replace(/\n$/, ""));
  lines.push(`--${MIME_BOUNDARY}--`, "");
  return lines.join("\n");
}

function boundaryOf(doc: string): string | undefined {
  return /boundary="?([^"\r\n;]+)"?/i.exec(doc)?.[1];
}

/** The parts of user-supplied user data: a MIME document's parts, or the whole text as one part. */
export function userParts(userData: string | undefined, defaultType: string): MimePart[] {
  if (userData === undefined || userData.trim() === "") return [];
  const boundary = /^MIME-Version:/i.test(userData.trimStart()) ? boundaryOf(userData) : undefined;
  if (boundary === undefined) return [{ contentType: userData.startsWith("#!") ? "text/x-shellscript; charset=\"us-ascii\"" : defaultType, body: userData }];
  const parts: MimePart[] = [];
  for (const chunk of userData.split(`--${boundary}`).slice(1)) {
    if (chunk.startsWith("--")) break;
    const [head, ...body] = chunk.replace(/^\r?\n/, "").split(/\r?\n\r?\n/);
    const contentType = /Content-Type:\s*([^\r\n]+)/i.exec(head ?? "")?.[1] ?? defaultType;
    parts.push({ contentType, body: body.join("\n\n").replace(/\r?\n$/, "") });
  }
  return parts;
}

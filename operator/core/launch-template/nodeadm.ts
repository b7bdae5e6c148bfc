/** AL2023 user data: a nodeadm NodeConfig (kubelet config, labels, taints) appended to the user's MIME parts. */
import { stringify } from "yaml";
import { mimeDocument, nodeLabelArg, userParts, type BootstrapOptions } from "./bootstrap.ts";

const NODEADM_TYPE = "application/node.eks.aws";

/**
 * The cidr when DescribeCluster did not report one: EKS's default Services CIDR (for VPCs outside
 * 10.0.0.0/8). nodeadm refuses a NodeConfig without a cidr, and derives the cluster DNS from it
 * unless spec.kubelet.clusterDNS is set.
 */
export const DEFAULT_SERVICE_CIDR = "10.100.0.0/16";

/**
 * The NodeConfig's kubelet config: spec.kubelet whole. From Karpenter v1.15 spec.kubelet is a free-form
 * KubeletConfiguration that AL2023 passes through as written, any field (shutdownGracePeriod, …), besides the
 * typed ones the other families turn into flags; then the NodeClaim's taints to register with.
 */
function kubeletConfig(options: BootstrapOptions): Record<string, unknown> {
  const config: Record<string, unknown> = { ...(options.kubelet as Readonly<Record<string, unknown>>) };
  if (options.taints.length > 0) {
    config["registerWithTaints"] = options.taints.map((t) => ({
      key: t.key,
      ...(t.value ? { value: t.value } : {}),
      effect: t.effect,
    }));
  }
  return config;
}

function cluster(options: BootstrapOptions): Record<string, unknown> {
  const out: Record<string, unknown> = { name: options.clusterName, apiServerEndpoint: options.clusterEndpoint };
  if (options.caBundle !== undefined) out["certificateAuthority"] = options.caBundle;
  out["cidr"] = options.clusterCIDR ?? DEFAULT_SERVICE_CIDR;
  return out;
}

/** The NodeConfig document Karpenter's AL2023 family generates. */
export function nodeConfig(options: BootstrapOptions): Record<string, unknown> {
  const label = nodeLabelArg(options.labels);
  const spec: Record<string, unknown> = {
    cluster: cluster(options),
    kubelet: { config: kubeletConfig(options), flags: label === undefined ? [] : [label] },
  };
  // nodeadm mounts the instance-store disks as one RAID-0 array under containerd and kubelet.
  if (options.instanceStorePolicy === "RAID0") spec["instance"] = { localStorage: { strategy: "RAID0" } };
  return { apiVersion: "node.eks.aws/v1alpha1", kind: "NodeConfig", spec };
}

/**
 * AL2023 user data: the user's parts first (nodeadm merges later configs over earlier
 * ones), then kerf's NodeConfig.
 */
export function al2023UserData(options: BootstrapOptions): string {
  const ours = { contentType: NODEADM_TYPE, body: stringify(nodeConfig(options), { sortMapEntries: true }) };
  return mimeDocument([...userParts(options.customUserData, NODEADM_TYPE), ours]);
}

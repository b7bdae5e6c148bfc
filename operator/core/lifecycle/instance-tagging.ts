/**
 * The tags a NodeClaim's instance gets once its Node registered, as Karpenter's nodeclaim.tagging
 * controller adds them: `Name` (the Node's name, on AWS its private DNS name), `karpenter.sh/nodeclaim`
 * and `eks:eks-cluster-name`. Tags already on the instance are left as they are (a user's `Name` from
 * spec.tags wins); two annotations on the NodeClaim record that it is done. Pure.
 */
import type { NodeClaim } from "./objects.ts";

/** Karpenter's annotations: the instance carries its Name and NodeClaim tags / its cluster-name tag. */
export const TAGGED_ANNOTATION = "karpenter.k8s.aws/tagged";
export const CLUSTER_NAME_TAGGED_ANNOTATION = "compatibility.karpenter.k8s.aws/cluster-name-tagged";

/** The annotations that mark a NodeClaim tagged. */
export const TAGGED_ANNOTATIONS: Readonly<Record<string, string>> = {
  [TAGGED_ANNOTATION]: "true",
  [CLUSTER_NAME_TAGGED_ANNOTATION]: "true",
};

/** Whether the instance still needs tagging: a Node name is known, not yet tagged, not terminating. */
export function isTaggable(nodeClaim: NodeClaim): boolean {
  const annotations = nodeClaim.metadata?.annotations ?? {};
  if (annotations[TAGGED_ANNOTATION] === "true" && annotations[CLUSTER_NAME_TAGGED_ANNOTATION] === "true") return false;
  if ((nodeClaim.status?.nodeName ?? "") === "") return false;
  return nodeClaim.metadata?.deletionTimestamp === undefined;
}

/**
 * The `Name` earlier kerf versions put on every instance at launch (`karpenter.sh/nodepool/<pool>`):
 * a placeholder, not a user's choice, so it is replaced by the Node's name like a missing tag.
 */
function isLaunchPlaceholder(value: string): boolean {
  return value.startsWith("karpenter.sh/nodepool/");
}

/** The tags to create on the instance (empty: nothing to do). */
export function missingInstanceTags(
  nodeClaim: NodeClaim,
  clusterName: string,
  existing: Readonly<Record<string, string>>,
): Record<string, string> {
  const wanted: Record<string, string> = {
    Name: nodeClaim.status?.nodeName ?? "",
    "karpenter.sh/nodeclaim": nodeClaim.metadata?.name ?? "",
    "eks:eks-cluster-name": clusterName,
  };
  const missing: Record<string, string> = {};
  for (const [key, value] of Object.entries(wanted)) {
    const current = existing[key];
    if (current === undefined || (key === "Name" && isLaunchPlaceholder(current))) missing[key] = value;
  }
  return missing;
}

/**
 * The instance profile an EC2NodeClass's instances launch with. With `spec.instanceProfile` it is that
 * profile, unchanged. With `spec.role` kerf manages one profile per node class, named
 * `<cluster>_<FNV-1 64 of region + node class name>` (decimal): Karpenter's name up to v1.5
 * (`hashstructure.Hash(region+name, FormatV2)` hashes a string with FNV-1 64), so a cluster moving
 * from Karpenter adopts the profiles it already has. The name is stable for a node class; a role
 * change swaps the role inside the same profile.
 */
import { fnv1Hash64 } from "./hash.ts";
import type { EC2NodeClassSpec } from "./node-class.ts";

/** Tag holding the node class name (also on instances and launch templates). */
export const NODE_CLASS_TAG = "karpenter.k8s.aws/ec2nodeclass";
/** Tag holding the cluster that manages the profile (Karpenter's v1beta1 key, kept for tooling that reads it). */
export const MANAGED_BY_TAG = "karpenter.sh/managed-by";
/** Tag holding the region the profile was created for. */
export const REGION_TAG = "topology.kubernetes.io/region";
/** Tag holding the EKS cluster name. */
export const EKS_CLUSTER_NAME_TAG = "eks:eks-cluster-name";

/** Where a managed profile lives: cluster, region and node class. */
export interface ManagedProfileScope {
  readonly clusterName: string;
  readonly region: string;
  readonly nodeClassName: string;
}

/** The managed profile's name for a node class (stable across restarts, replicas and role changes). */
export function managedInstanceProfileName(scope: ManagedProfileScope): string {
  return `${scope.clusterName}_${fnv1Hash64(`${scope.region}${scope.nodeClassName}`)}`;
}

/**
 * Tags of a managed profile (Karpenter's InstanceProfileTags): the node class's spec.tags, then the
 * ownership tags, which win over user tags of the same key.
 */
export function instanceProfileTags(
  scope: ManagedProfileScope,
  specTags: Readonly<Record<string, string>> = {},
): Record<string, string> {
  return {
    ...specTags,
    [`kubernetes.io/cluster/${scope.clusterName}`]: "owned",
    [EKS_CLUSTER_NAME_TAG]: scope.clusterName,
    [MANAGED_BY_TAG]: scope.clusterName,
    [NODE_CLASS_TAG]: scope.nodeClassName,
    [REGION_TAG]: scope.region,
  };
}

/**
 * The IAM path of a managed profile: `/karpenter/<region>/<cluster>/`, plus `<uid>/` when the node
 * class has one (Karpenter's layout).
 */
export function instanceProfilePath(scope: ManagedProfileScope, nodeClassUid?: string): string {
  const base = `/karpenter/${scope.region}/${scope.clusterName}/`;
  return nodeClassUid === undefined || nodeClassUid === "" ? base : `${base}${nodeClassUid}/`;
}

/** The role name AddRoleToInstanceProfile takes: `spec.role` without an ARN prefix or IAM path. */
export function roleNameOf(role: string): string {
  return role.split("/").at(-1) ?? role;
}

/**
 * The profile instances of this node class launch with: spec.instanceProfile, else the
 * managed one when spec.role is set.
 */
export function launchInstanceProfile(spec: EC2NodeClassSpec, managedName: string): string | undefined {
  if (spec.instanceProfile !== undefined) return spec.instanceProfile;
  return spec.role === undefined ? undefined : managedName;
}

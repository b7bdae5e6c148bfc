/**
 * The EC2NodeClass static drift hash (behaviour §4.10): `karpenter.k8s.aws/ec2nodeclass-hash` with
 * `karpenter.k8s.aws/ec2nodeclass-hash-version`, stamped on each NodeClaim at launch. Hashed: every
 * field of `spec` except the selector terms (subnets, security groups, AMIs and capacity
 * reservations drift through their own checks against what they resolve to), `amiFamily` (the
 * resolved family is hashed instead, so `amiFamily: AL2023` and an `al2023@…` alias agree) and
 * `ipPrefixCount`, and the cluster's CA bundle as Karpenter's EC2NodeClass.Hash hashes it (a CA rotation
 * rolls the nodes, whose user data carries the old CA). Empty values are ignored (hashstructure's
 * IgnoreZeroValue); map key order never matters. FNV-1a 64 over canonical JSON: kerf cannot reproduce
 * Karpenter's Go hash bytes (its version, v6 in v1.15, is not kerf's), so the version is kerf's own and a
 * NodeClaim stamped by Karpenter, or by an older kerf, is re-stamped, never drifted.
 */
import { canonicalJson, fnv64, pruned } from "../launch-template/hash.ts";
import { amiFamilyOf, type EC2NodeClassSpec } from "../launch-template/node-class.ts";

export const NodeClassHash = {
  key: "karpenter.k8s.aws/ec2nodeclass-hash",
  versionKey: "karpenter.k8s.aws/ec2nodeclass-hash-version",
  /** Bump when the hashed fields or their normalisation change (re-stamps, not drift). kerf-2: the CA bundle. */
  version: "kerf-2",
} as const;

const EXCLUDED = new Set([
  "subnetSelectorTerms",
  "securityGroupSelectorTerms",
  "amiSelectorTerms",
  "capacityReservationSelectorTerms",
  "amiFamily",
  "ipPrefixCount",
]);

type Obj = Readonly<Record<string, unknown>>;

/** The normalised part of an EC2NodeClass the hash covers. */
export function hashedNodeClass(nodeClass: { readonly spec?: Obj | undefined }): unknown {
  const spec = nodeClass.spec ?? {};
  const kept = Object.fromEntries(Object.entries(spec).filter(([k]) => !EXCLUDED.has(k)));
  const family = amiFamilyOf({ amiSelectorTerms: [], ...spec } as unknown as EC2NodeClassSpec);
  return { ...(pruned(kept) as Obj | undefined), resolvedAMIFamily: family };
}

/** The hash value of an EC2NodeClass (decimal uint64), with the cluster's CA bundle (base64 PEM) when known. */
export function nodeClassHash(nodeClass: { readonly spec?: Obj | undefined }, caBundle?: string): string {
  const hashed = hashedNodeClass(nodeClass) as Obj;
  return fnv64(canonicalJson(caBundle === undefined || caBundle === "" ? hashed : { ...hashed, caBundle }));
}

/** The two annotations a NodeClaim launched from `nodeClass` carries. */
export function nodeClassHashAnnotations(
  nodeClass: { readonly spec?: Obj | undefined },
  caBundle?: string,
): Record<string, string> {
  return { [NodeClassHash.key]: nodeClassHash(nodeClass, caBundle), [NodeClassHash.versionKey]: NodeClassHash.version };
}

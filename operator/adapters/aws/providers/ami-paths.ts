/**
 * SSM parameter paths of the public EKS-optimized AMIs per alias family, under a configurable
 * prefix (default /aws/service).
 */
import { variantRequirements, type AmiVariant } from "../../../core/launch-template/amis.ts";
import type { NodeSelectorRequirement } from "../../../../policies/domain/requirements.ts";

/** One SSM parameter to read and the requirements of the image it names. */
export interface AliasParameter {
  readonly path: string;
  readonly requirements: NodeSelectorRequirement[];
}

/** An alias the node class uses that kerf cannot resolve (unknown family, AL2 on a new Kubernetes, …). */
export class AliasError extends Error {
  constructor(alias: string, reason: string) {
    super(`resolving AMI alias ${alias}: ${reason}`);
    this.name = "AliasError";
  }
}

const ARCHES = [
  ["x86_64", "amd64"],
  ["arm64", "arm64"],
] as const;

function al2023(prefix: string, k8s: string, version: string): AliasParameter[] {
  const out: AliasParameter[] = [];
  for (const [arch, kube] of ARCHES) {
    const variants: AmiVariant[] = arch === "x86_64" ? ["standard", "nvidia", "neuron"] : ["standard", "nvidia"];
    for (const variant of variants) {
      const leaf = version === "latest" ? "recommended" : `amazon-eks-node-al2023-${arch}-${variant}-${k8s}-${version}`;
      out.push({
        path: `${prefix}/eks/optimized-ami/${k8s}/amazon-linux-2023/${arch}/${variant}/${leaf}/image_id`,
        requirements: variantRequirements(kube, variant),
      });
    }
  }
  return out;
}

function bottlerocket(prefix: string, k8s: string, version: string): AliasParameter[] {
  const v = version === "latest" ? "latest" : version.replace(/^v/, "");
  return ARCHES.flatMap(([arch, kube]) => [
    {
      path: `${prefix}/bottlerocket/aws-k8s-${k8s}/${arch}/${v}/image_id`,
      requirements: variantRequirements(kube, "standard"),
    },
    {
      path: `${prefix}/bottlerocket/aws-k8s-${k8s}-nvidia/${arch}/${v}/image_id`,
      requirements: variantRequirements(kube, "nvidia"),
    },
  ]);
}

function al2(prefix: string, k8s: string, version: string): AliasParameter[] {
  const [major, minor] = k8s.split(".").map(Number);
  if ((major ?? 0) > 1 || (minor ?? 0) >= 33)
    throw new AliasError(`al2@${version}`, `AL2 is not published for Kubernetes ${k8s} (≥ 1.33)`);
  const leaf = (suffix: string): string =>
    version === "latest" ? "recommended" : `amazon-eks${suffix}-node-${k8s}-${version}`;
  return [
    {
      path: `${prefix}/eks/optimized-ami/${k8s}/amazon-linux-2/${leaf("")}/image_id`,
      requirements: variantRequirements("amd64", "standard"),
    },
    {
      path: `${prefix}/eks/optimized-ami/${k8s}/amazon-linux-2-arm64/${leaf("-arm64")}/image_id`,
      requirements: variantRequirements("arm64", "standard"),
    },
    {
      path: `${prefix}/eks/optimized-ami/${k8s}/amazon-linux-2-gpu/${leaf("-gpu")}/image_id`,
      requirements: variantRequirements("amd64", "nvidia"),
    },
  ];
}

function windows(prefix: string, k8s: string, release: string, version: string): AliasParameter[] {
  if (version !== "latest")
    throw new AliasError(`windows${release}@${version}`, "windows families only support version latest");
  return [
    {
      path: `${prefix}/ami-windows-latest/Windows_Server-${release}-English-Core-EKS_Optimized-${k8s}/image_id`,
      requirements: [
        { key: "kubernetes.io/os", operator: "In", values: ["windows"] },
        { key: "kubernetes.io/arch", operator: "In", values: ["amd64"] },
      ],
    },
  ];
}

/** The SSM parameters an alias `family@version` resolves through, for a Kubernetes minor version like "1.36". */
export function aliasParameters(alias: string, prefix: string, kubernetesVersion: string): AliasParameter[] {
  const [family = "", version = "latest"] = alias.split("@");
  switch (family) {
    case "al2023":
      return al2023(prefix, kubernetesVersion, version);
    case "bottlerocket":
      return bottlerocket(prefix, kubernetesVersion, version);
    case "al2":
      return al2(prefix, kubernetesVersion, version);
    case "windows2019":
    case "windows2022":
    case "windows2025":
      return windows(prefix, kubernetesVersion, family.slice("windows".length), version);
    default:
      throw new AliasError(alias, `unknown family ${family}`);
  }
}

/**
 * AMI facts as data: requirements per alias variant, newest-first ordering, and which
 * AMI boots which instance type.
 */
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { Label } from "../../../policies/domain/labels.ts";
import { Requirements, type NodeSelectorRequirement } from "../../../policies/domain/requirements.ts";

/** A resolved AMI with the requirements an instance type must meet to boot it. */
export interface ResolvedAmi {
  readonly id: string;
  readonly name?: string | undefined;
  /** ISO date; newer images win among those with equal requirements. */
  readonly creationDate?: string | undefined;
  readonly deprecated: boolean;
  readonly requirements: readonly NodeSelectorRequirement[];
}

/** Alias image variants: plain, NVIDIA GPU, AWS Neuron. */
export type AmiVariant = "standard" | "nvidia" | "neuron";

/** The Kubernetes arch of an EC2 image architecture (x86_64 → amd64). */
export function kubeArch(ec2Arch: string): string {
  return ec2Arch === "x86_64" ? "amd64" : ec2Arch === "arm64" ? "arm64" : ec2Arch;
}

/** Requirements of an alias image (Karpenter's per-variant requirements). */
export function variantRequirements(arch: string, variant: AmiVariant): NodeSelectorRequirement[] {
  const reqs: NodeSelectorRequirement[] = [{ key: Label.arch, operator: "In", values: [arch] }];
  if (variant === "nvidia") reqs.push({ key: Label.instanceGpuCount, operator: "Exists" });
  if (variant === "neuron") reqs.push({ key: Label.instanceAcceleratorCount, operator: "Exists" });
  if (variant === "standard")
    reqs.push(
      { key: Label.instanceGpuCount, operator: "DoesNotExist" },
      { key: Label.instanceAcceleratorCount, operator: "DoesNotExist" },
    );
  return reqs;
}

/** Non-deprecated first, then newest first, then by id: the order status.amis is written in. */
export function sortAmis(amis: readonly ResolvedAmi[]): ResolvedAmi[] {
  return [...amis].sort(
    (a, b) =>
      Number(a.deprecated) - Number(b.deprecated) ||
      (b.creationDate ?? "").localeCompare(a.creationDate ?? "") ||
      a.id.localeCompare(b.id),
  );
}

/** Keeps the best image per distinct requirement set (the newest non-deprecated one). */
export function newestPerRequirements(amis: readonly ResolvedAmi[]): ResolvedAmi[] {
  const seen = new Set<string>();
  return sortAmis(amis).filter((ami) => {
    const key = Requirements.fromSelectors(ami.requirements).signature();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The first AMI (in sortAmis order) whose requirements the type's labels meet. */
export function amiForType(amis: readonly ResolvedAmi[], type: InstanceType): ResolvedAmi | undefined {
  return sortAmis(amis).find(
    (ami) => Requirements.fromSelectors(ami.requirements).matchLabels(type.labels) === undefined,
  );
}

/**
 * The types some AMI of the list boots (its requirements met by the type's labels). The scheduler only
 * plans these: a NodeClaim whose cheapest options are all arm64 while the node class resolves only
 * x86_64 images could never launch.
 */
export function bootable(amis: readonly ResolvedAmi[], types: readonly InstanceType[]): InstanceType[] {
  const requirements = amis.map((ami) => Requirements.fromSelectors(ami.requirements));
  return types.filter((t) => requirements.some((r) => r.matchLabels(t.labels) === undefined));
}

/** Groups instance types by the image that boots them; types no AMI can boot are left out. */
export function typesByImage(amis: readonly ResolvedAmi[], types: readonly InstanceType[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const type of types) {
    const ami = amiForType(amis, type);
    if (ami !== undefined) (out.get(ami.id) ?? out.set(ami.id, []).get(ami.id))?.push(type.name);
  }
  return out;
}

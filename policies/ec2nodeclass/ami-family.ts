// The AMI family an EC2NodeClass boots, shared by kerf's EC2NodeClass checks and the operator's launch templates.

/** The fields the family depends on. */
export interface AmiFamilySource {
  readonly amiFamily?: string | undefined;
  readonly amiSelectorTerms: readonly { readonly alias?: string | undefined }[];
}

const ALIAS_FAMILIES: Readonly<Record<string, string>> = {
  al2: "AL2",
  al2023: "AL2023",
  bottlerocket: "Bottlerocket",
  windows2019: "Windows2019",
  windows2022: "Windows2022",
  windows2025: "Windows2025",
};

/** The AMI family a node class boots: spec.amiFamily when set (it may be Custom), else the alias family. */
export function amiFamilyOf(spec: AmiFamilySource): string {
  if (spec.amiFamily !== undefined) return spec.amiFamily;
  const alias = spec.amiSelectorTerms.find((t) => t.alias !== undefined)?.alias;
  return alias === undefined ? "Custom" : (ALIAS_FAMILIES[alias.split("@")[0] ?? ""] ?? "Custom");
}

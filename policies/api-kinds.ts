// Objects that look like Karpenter's but that kerf (and Karpenter v1) would never see as a NodePool, NodeClaim or
// EC2NodeClass: a misspelt kind, a kind in the other Karpenter group, or a retired API version. A manifest tool
// that skipped them as "other kinds" would pass exactly the mistakes it exists to catch, so they are denied.
import { closest, distance } from "fastest-levenshtein";

/** The API version and kind each checked Karpenter kind is written with. */
const CURRENT: Readonly<Record<string, string>> = {
  NodePool: "karpenter.sh/v1",
  NodeClaim: "karpenter.sh/v1",
  EC2NodeClass: "karpenter.k8s.aws/v1",
};

/** Versions Karpenter no longer serves, with the release that stopped serving them and what replaced them. */
const RETIRED: Readonly<Record<string, string>> = {
  "karpenter.sh/v1beta1": "Karpenter 1.1 stopped serving karpenter.sh/v1beta1 (1.0 converted it to v1)",
  "karpenter.k8s.aws/v1beta1": "Karpenter 1.1 stopped serving karpenter.k8s.aws/v1beta1 (1.0 converted it to v1)",
  "karpenter.sh/v1alpha5":
    "Karpenter v0.33 stopped serving karpenter.sh/v1alpha5 (Provisioner became NodePool in v0.32)",
  "karpenter.k8s.aws/v1alpha1":
    "Karpenter v0.33 stopped serving karpenter.k8s.aws/v1alpha1 (AWSNodeTemplate became EC2NodeClass in v0.32)",
};

/** Kinds of retired versions and the current kind that replaced each. */
const RENAMED: Readonly<Record<string, string>> = {
  Provisioner: "NodePool",
  Machine: "NodeClaim",
  AWSNodeTemplate: "EC2NodeClass",
};

const KARPENTER_GROUPS = new Set(["karpenter.sh", "karpenter.k8s.aws"]);

/** Why an object is denied instead of skipped: the field to fix and the hint. */
export interface KindMistake {
  readonly path: "apiVersion" | "kind";
  readonly message: string;
}

/** The checked kind `kind` was probably meant as: same letters in another case, or within two edits. */
function nearKind(kind: string): string | undefined {
  const kinds = Object.keys(CURRENT);
  const exact = kinds.find((k) => k.toLowerCase() === kind.toLowerCase());
  if (exact !== undefined) return exact;
  const candidate = closest(kind, kinds);
  return distance(kind, candidate) <= 2 ? candidate : undefined;
}

function current(kind: string): string {
  return `apiVersion: ${CURRENT[kind] ?? ""}, kind: ${kind}`;
}

/**
 * The mistake in an object of a Karpenter API group that is not a checked kind, or undefined for anything else
 * (other groups, and kinds Karpenter still serves that the engine does not evaluate, such as karpenter.sh/v1alpha1
 * NodeOverlay, which kerf check validates itself: policies/nodeoverlay/validate.ts). `apiVersion`/`kind` are the
 * object's own fields, of any type.
 */
export function karpenterKindMistake(apiVersion: unknown, kind: unknown): KindMistake | undefined {
  if (typeof apiVersion !== "string" || typeof kind !== "string") return undefined;
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  if (!KARPENTER_GROUPS.has(group)) return undefined;
  const renamed = Object.hasOwn(RENAMED, kind) ? RENAMED[kind] : undefined;
  const meant = renamed ?? nearKind(kind);
  if (Object.hasOwn(RETIRED, apiVersion)) return retiredMistake(apiVersion, kind, meant);
  if (meant === undefined) return undefined;
  if (meant !== kind) {
    return {
      path: "kind",
      message: `kind "${kind}" is not a Karpenter kind in ${group}: did you mean ${current(meant)}?`,
    };
  }
  return CURRENT[kind] === apiVersion
    ? undefined
    : { path: "apiVersion", message: `${kind} is not served as ${apiVersion}: write ${current(kind)}` };
}

function retiredMistake(apiVersion: string, kind: string, meant: string | undefined): KindMistake {
  const target = meant === undefined ? "a current Karpenter v1 kind" : `${current(meant)} (see docs/migrate.md)`;
  return {
    path: "apiVersion",
    message: `${apiVersion} ${kind}: ${RETIRED[apiVersion] ?? ""}; kerf checks v1 objects only: write ${target}`,
  };
}

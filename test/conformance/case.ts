// The conformance case shape and builders: an object, what the apiserver (CRD + CEL) does with it, and kerf's verdict.
import type { Kind } from "../../policies/types.ts";

/** An expected finding: policy and path must match, message (when given) must be contained. */
export interface ExpectedFinding {
  policy: string;
  path: string;
  message?: string;
}

/** One case. The apiserver run (test/integration) applies `object` with the generated CRDs and compares `apiserver`. */
export interface ConformanceCase {
  /** Reads as a sentence: "rejects a budget whose schedule has six fields". */
  name: string;
  kind: Kind;
  operation?: "CREATE" | "UPDATE";
  object: Record<string, unknown>;
  oldObject?: Record<string, unknown>;
  /** What kube-apiserver with the generated CRDs answers (parity; schema + CEL only). */
  apiserver: "accept" | "reject";
  /** kerf's verdict with the default policy config (kerf may be stricter, never looser). */
  kerf: "allow" | "deny";
  /** Findings that must be present (others may be too). */
  expect?: ExpectedFinding[];
  /** Node class names known to the render (CLI); undefined = webhook. */
  nodeClassNames?: string[];
  /**
   * kerf's mutating webhook fixes the object: the apiserver accepts the defaulted object (Verdict.defaulted),
   * while `apiserver` and `kerf` state what happens without that mutation.
   */
  fixedByDefaults?: boolean;
  /** karpenter-v1-api.md section or quirk the case pins down. */
  ref?: string;
}

/**
 * The copy an edit function changes. Untyped on purpose: a case reaches any path of the object in one
 * expression (`o.spec.template.spec.kubelet = ...`), including paths the schema does not have. The alias
 * keeps the one lint exception on its own line, where a formatter's line wrapping cannot separate them.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Draft = any;

/** A deep copy of `base` changed by `edit` (which may mutate the copy freely). */
export function variant<T>(base: T, edit: (copy: Draft) => void): T {
  const copy = structuredClone(base);
  edit(copy);
  return copy;
}

/** A NodePool every kerf policy accepts: broad requirements, limits, nodeClassRef to "default". */
export const NODEPOOL: Record<string, unknown> = {
  apiVersion: "karpenter.sh/v1",
  kind: "NodePool",
  metadata: { name: "general" },
  spec: {
    template: {
      metadata: { labels: { team: "platform" } },
      spec: {
        nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
        requirements: [
          { key: "karpenter.k8s.aws/instance-category", operator: "In", values: ["c", "m", "r"] },
          { key: "karpenter.k8s.aws/instance-generation", operator: "Gt", values: ["4"] },
          { key: "kubernetes.io/arch", operator: "In", values: ["amd64", "arm64"] },
        ],
      },
    },
    limits: { cpu: "1000", memory: "1000Gi" },
    disruption: { consolidationPolicy: "WhenEmptyOrUnderutilized", consolidateAfter: "1m" },
  },
};

/** An EC2NodeClass every kerf policy accepts. */
export const EC2NODECLASS: Record<string, unknown> = {
  apiVersion: "karpenter.k8s.aws/v1",
  kind: "EC2NodeClass",
  metadata: { name: "default" },
  spec: {
    role: "KarpenterNodeRole-demo",
    amiSelectorTerms: [{ alias: "al2023@latest" }],
    subnetSelectorTerms: [{ tags: { "karpenter.sh/discovery": "demo" } }],
    securityGroupSelectorTerms: [{ tags: { "karpenter.sh/discovery": "demo" } }],
  },
};

/** A NodeClaim as the operator writes it. */
export const NODECLAIM: Record<string, unknown> = {
  apiVersion: "karpenter.sh/v1",
  kind: "NodeClaim",
  metadata: { name: "general-abcde", labels: { "karpenter.sh/nodepool": "general" } },
  spec: {
    nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
    requirements: [
      { key: "karpenter.sh/nodepool", operator: "In", values: ["general"] },
      { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.large", "m5.xlarge"] },
    ],
    resources: { requests: { cpu: "1", memory: "1Gi" } },
  },
};

// Reduces CustomResourceDefinition objects (Karpenter's own, kerf's generated ones, or whatever a cluster has
// installed) to a KarpenterApi: the v1 openAPIV3Schema of each kind, descriptions dropped. Shared by the vendoring
// script, `kerf check --karpenter-crds` and the webhook's reading of the cluster's CRDs.
import type { Kind } from "../../types.ts";
import type { SchemaNode } from "../schemas/openapi.ts";
import { identifyKarpenterRelease, type KarpenterApi } from "./index.ts";

/** The CRD (metadata.name) defining each kind. */
export const KARPENTER_CRD_NAMES: Readonly<Record<Kind, string>> = Object.freeze({
  NodePool: "nodepools.karpenter.sh",
  NodeClaim: "nodeclaims.karpenter.sh",
  EC2NodeClass: "ec2nodeclasses.karpenter.k8s.aws",
});

const KINDS = Object.keys(KARPENTER_CRD_NAMES) as Kind[];

/** CRDs that do not define the three kinds' v1 schemas; the message names what is missing. */
export class KarpenterCrdError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "KarpenterCrdError";
  }
}

interface CrdShape {
  kind?: unknown;
  metadata?: { name?: unknown; annotations?: Record<string, unknown>; labels?: Record<string, unknown> };
  spec?: { versions?: { name?: unknown; schema?: { openAPIV3Schema?: unknown } }[] };
}

/** Drops `description` (documentation, ~70% of the bytes) everywhere except where it is a property name. */
export function stripDescriptions(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripDescriptions);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "description" && typeof value === "string") continue;
    out[key] =
      key === "properties" && typeof value === "object" && value !== null
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, stripDescriptions(v)]))
        : stripDescriptions(value);
  }
  return out;
}

function crdNamed(crds: readonly unknown[], name: string): CrdShape | undefined {
  return crds.find((c): c is CrdShape => {
    const crd = c as CrdShape | null;
    return crd?.kind === "CustomResourceDefinition" && crd.metadata?.name === name;
  });
}

/** A CRD's v1 openAPIV3Schema, or undefined when it has none (Karpenter before v1.0 served v1beta1 only). */
export function v1SchemaOf(crd: unknown): object | undefined {
  const schema = (crd as CrdShape | null)?.spec?.versions?.find((v) => v.name === "v1")?.schema?.openAPIV3Schema;
  return typeof schema === "object" && schema !== null ? schema : undefined;
}

/** The v1 schema of each kind, descriptions dropped; throws KarpenterCrdError naming the missing CRDs or versions. */
export function schemasFromCrds(crds: readonly unknown[]): Record<Kind, SchemaNode> {
  const schemas: Partial<Record<Kind, SchemaNode>> = {};
  const missing: string[] = [];
  for (const kind of KINDS) {
    const crd = crdNamed(crds, KARPENTER_CRD_NAMES[kind]);
    const schema = v1SchemaOf(crd);
    if (schema !== undefined) schemas[kind] = stripDescriptions(schema) as SchemaNode;
    else
      missing.push(
        crd === undefined ? `no CRD ${KARPENTER_CRD_NAMES[kind]}` : `${KARPENTER_CRD_NAMES[kind]} has no v1 schema`,
      );
  }
  if (missing.length > 0) throw new KarpenterCrdError(missing.join("; "));
  return schemas as Record<Kind, SchemaNode>;
}

/**
 * The Karpenter release the CRDs say they are: kerf's generated CRDs carry `kerf.dev/generated-from`
 * ("… Karpenter v1.14.1 …"); a Helm chart may set the `app.kubernetes.io/version` label. Karpenter's own CRDs name
 * only controller-gen's version, so for them this is undefined.
 */
export function versionFromCrds(crds: readonly unknown[]): string | undefined {
  for (const kind of KINDS) {
    const metadata = crdNamed(crds, KARPENTER_CRD_NAMES[kind])?.metadata;
    const generatedFrom = metadata?.annotations?.["kerf.dev/generated-from"];
    const match = typeof generatedFrom === "string" ? /Karpenter v(\d+\.\d+\.\d+)/.exec(generatedFrom) : null;
    if (match?.[1] !== undefined) return match[1];
    const label = metadata?.labels?.["app.kubernetes.io/version"];
    if (typeof label === "string" && /^v?\d+\.\d+\.\d+$/.test(label)) return label.replace(/^v/, "");
  }
  return undefined;
}

/**
 * A KarpenterApi from installed (or exported) CRDs. Its version: what the CRDs say, else the bundled release with
 * exactly these schemas, else `unnamed`.
 */
export function karpenterApiFromCrds(crds: readonly unknown[], unnamed = "cluster"): KarpenterApi {
  const schemas = Object.freeze(schemasFromCrds(crds));
  const version = versionFromCrds(crds) ?? identifyKarpenterRelease(schemas) ?? unnamed;
  return Object.freeze({ version, source: "cluster" as const, schemas });
}

// Builds the three CRDs (wire-compatible with Karpenter v1.15.1) from the schemas and renders them as YAML (pure).
// Field descriptions are Karpenter's own, vendored from its published CRDs (releases/*.descriptions.json).
import { stringify } from "yaml";
import { withDescriptions } from "./descriptions.ts";
import DESCRIPTIONS from "./releases/karpenter-v1.15.1.descriptions.json" with { type: "json" };
import { EC2NODECLASS_SCHEMA } from "./schemas/ec2nodeclass.schema.ts";
import { NODECLAIM_SCHEMA } from "./schemas/nodeclaim.schema.ts";
import { NODEPOOL_SCHEMA } from "./schemas/nodepool.schema.ts";
import { NODEOVERLAY_SCHEMA } from "./schemas/nodeoverlay.schema.ts";
import type { SchemaNode } from "./schemas/openapi.ts";

interface Column {
  name: string;
  jsonPath: string;
  type: string;
  priority?: number;
}

interface CrdSpec {
  group: string;
  kind: string;
  plural: string;
  singular: string;
  shortNames?: string[];
  columns: Column[];
  schema: SchemaNode;
  scale?: boolean;
  /** The served and stored version (default v1). */
  version?: string;
}

const ready = (): Column => ({
  name: "Ready",
  jsonPath: '.status.conditions[?(@.type=="Ready")].status',
  type: "string",
});
const age = (): Column => ({ name: "Age", jsonPath: ".metadata.creationTimestamp", type: "date" });

const SPECS: readonly CrdSpec[] = [
  {
    group: "karpenter.sh",
    kind: "NodePool",
    plural: "nodepools",
    singular: "nodepool",
    schema: NODEPOOL_SCHEMA,
    scale: true,
    columns: [
      { name: "NodeClass", jsonPath: ".spec.template.spec.nodeClassRef.name", type: "string" },
      { name: "Nodes", jsonPath: ".status.nodes", type: "string" },
      ready(),
      age(),
      { name: "Weight", jsonPath: ".spec.weight", type: "integer", priority: 1 },
      { name: "CPU", jsonPath: ".status.resources.cpu", type: "string", priority: 1 },
      { name: "Memory", jsonPath: ".status.resources.memory", type: "string", priority: 1 },
    ],
  },
  {
    group: "karpenter.sh",
    kind: "NodeClaim",
    plural: "nodeclaims",
    singular: "nodeclaim",
    schema: NODECLAIM_SCHEMA,
    columns: [
      { name: "Type", jsonPath: ".metadata.labels.node\\.kubernetes\\.io/instance-type", type: "string" },
      { name: "Capacity", jsonPath: ".metadata.labels.karpenter\\.sh/capacity-type", type: "string" },
      { name: "Zone", jsonPath: ".metadata.labels.topology\\.kubernetes\\.io/zone", type: "string" },
      { name: "Node", jsonPath: ".status.nodeName", type: "string" },
      ready(),
      age(),
      { name: "ImageID", jsonPath: ".status.imageID", type: "string", priority: 1 },
      { name: "ID", jsonPath: ".status.providerID", type: "string", priority: 1 },
      { name: "NodePool", jsonPath: ".metadata.labels.karpenter\\.sh/nodepool", type: "string", priority: 1 },
      { name: "NodeClass", jsonPath: ".spec.nodeClassRef.name", type: "string", priority: 1 },
      { name: "Drifted", jsonPath: '.status.conditions[?(@.type=="Drifted")].status', type: "string", priority: 1 },
    ],
  },
  {
    group: "karpenter.k8s.aws",
    kind: "EC2NodeClass",
    plural: "ec2nodeclasses",
    singular: "ec2nodeclass",
    shortNames: ["ec2nc", "ec2ncs"],
    schema: EC2NODECLASS_SCHEMA,
    columns: [ready(), age(), { name: "Role", jsonPath: ".spec.role", type: "string", priority: 1 }],
  },
  {
    // Karpenter v1.7+ (gate NodeOverlay); operator/core/overlay/apply.ts applies it.
    group: "karpenter.sh",
    kind: "NodeOverlay",
    plural: "nodeoverlays",
    singular: "nodeoverlay",
    shortNames: ["overlays"],
    schema: NODEOVERLAY_SCHEMA,
    version: "v1alpha1",
    columns: [ready(), age(), { name: "Weight", jsonPath: ".spec.weight", type: "integer", priority: 1 }],
  },
];

/** The Karpenter release whose API (shape, rules and descriptions) the generated CRDs serve. */
export const CRD_CONTRACT_VERSION = "1.15.1";

const descriptions = DESCRIPTIONS.descriptions as Readonly<Record<string, Readonly<Record<string, string>>>>;

function crd(spec: CrdSpec): Record<string, unknown> {
  const subresources: Record<string, unknown> =
    spec.scale === true
      ? { scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.nodes" }, status: {} }
      : { status: {} };
  const names: Record<string, unknown> = {
    categories: ["karpenter"],
    kind: spec.kind,
    listKind: `${spec.kind}List`,
    plural: spec.plural,
  };
  if (spec.shortNames !== undefined) names["shortNames"] = spec.shortNames;
  names["singular"] = spec.singular;
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: {
      annotations: { "kerf.dev/generated-from": `policies/api (Karpenter v${CRD_CONTRACT_VERSION} contract)` },
      name: `${spec.plural}.${spec.group}`,
    },
    spec: {
      group: spec.group,
      names,
      scope: "Cluster",
      versions: [
        {
          additionalPrinterColumns: spec.columns,
          name: spec.version ?? "v1",
          schema: { openAPIV3Schema: withDescriptions(spec.schema, descriptions[spec.kind] ?? {}) },
          served: true,
          storage: true,
          subresources,
        },
      ],
    },
  };
}

/** The generated CRD files: file name under manifests/crds → YAML text. */
export function renderCrds(): Record<string, string> {
  const header = "# Generated by .ci/generate-crds.ts from policies/api; do not edit by hand.\n---\n";
  return Object.fromEntries(
    SPECS.map((spec) => [
      `${spec.group}_${spec.plural}.yaml`,
      header + stringify(crd(spec), { lineWidth: 0, minContentWidth: 0 }),
    ]),
  );
}

/** The CRD objects themselves (for tests and the integration harness). */
export function crdObjects(): Record<string, unknown>[] {
  return SPECS.map(crd);
}

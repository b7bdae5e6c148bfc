// From Karpenter v1.15 spec.kubelet is free-form, so the apiserver no longer checks the fields kerf writes into user
// data. Karpenter v1.15 validates them itself and reports ValidationSucceeded=False (reason
// InvalidKubeletConfiguration); kerf checks the fields it honours against their v1.14 types (the last release that
// typed them), read from the vendored v1.14.1 CRD, so a malformed value never reaches a node's user data. Pure.
import { bundledKarpenterApi, type KarpenterApi } from "../api/releases/index.ts";
import type { SchemaNode } from "../api/schemas/openapi.ts";
import { validateStructure } from "../schema.ts";

/** The release whose CRD last typed spec.kubelet. */
const TYPED_KUBELET_RELEASE = "1.14.1";

function typedKubelet(): SchemaNode {
  const kubelet =
    bundledKarpenterApi(TYPED_KUBELET_RELEASE).schemas.EC2NodeClass.properties?.["spec"]?.properties?.["kubelet"];
  if (kubelet === undefined)
    throw new Error(`reading Karpenter ${TYPED_KUBELET_RELEASE}'s EC2NodeClass: no spec.kubelet`);
  // Other fields are the user's (kerf ignores them, operator-coverage.ts); only the typed ones are checked here.
  const open: SchemaNode = { "x-kubernetes-preserve-unknown-fields": true };
  return {
    type: "object",
    properties: {
      spec: {
        type: "object",
        properties: { kubelet: { ...kubelet, additionalProperties: open } },
        additionalProperties: open,
      },
    },
  };
}

let api: KarpenterApi | undefined;

function kubeletApi(): KarpenterApi {
  if (api === undefined) {
    const schema = typedKubelet();
    api = Object.freeze({
      version: `${TYPED_KUBELET_RELEASE} kubelet`,
      source: "bundled" as const,
      schemas: { NodePool: schema, NodeClaim: schema, EC2NodeClass: schema },
    });
  }
  return api;
}

/** Each problem of the kubelet fields kerf honours ("spec.kubelet.maxPods: …"), in path order; [] when none. */
export function kubeletTypeProblems(nodeClass: unknown): string[] {
  return validateStructure("EC2NodeClass", nodeClass, kubeletApi()).map((issue) => `${issue.path}: ${issue.message}`);
}

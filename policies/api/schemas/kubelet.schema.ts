// Structural schema of EC2NodeClass spec.kubelet as released in Karpenter v1.15: free-form (any field of the
// upstream KubeletConfiguration), so that no field a user sets is pruned. Karpenter validates the fields itself and
// reports ValidationSucceeded=False; what kerf writes into user data is HONOURED_KUBELET_KEYS (operator-coverage.ts).
import { map, type SchemaNode } from "./openapi.ts";

/** The kubelet block: an object keeping every field (v1.14's typed fields and CEL rules are gone upstream). */
export function kubelet(): SchemaNode {
  return map({ "x-kubernetes-preserve-unknown-fields": true }, { "x-kubernetes-preserve-unknown-fields": true });
}

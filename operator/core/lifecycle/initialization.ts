/**
 * Pure decision for NodeClaim initialization: is the registered Node ready for pods (Ready, startup taints
 * gone, extended resources present)?
 */
import { parseQuantity } from "../../../policies/domain/quantity.ts";
import type { Node, NodeClaim } from "./objects.ts";
import { isTrue } from "./objects.ts";

/** Taints the node lifecycle and cloud controllers put on booting nodes (Karpenter's "known ephemeral taints"). */
export const EPHEMERAL_TAINTS: readonly string[] = [
  "node.kubernetes.io/not-ready",
  "node.kubernetes.io/unreachable",
  "node.cloudprovider.kubernetes.io/uninitialized",
];

const WELL_KNOWN_RESOURCES = new Set(["cpu", "memory", "pods", "ephemeral-storage"]);

function missingExtendedResource(nodeClaim: NodeClaim, node: Node): string | undefined {
  const allocatable = node.status?.allocatable ?? {};
  for (const [name, requested] of Object.entries(nodeClaim.spec?.resources?.requests ?? {})) {
    if (WELL_KNOWN_RESOURCES.has(name) || parseQuantity(requested) === 0) continue;
    const have = allocatable[name];
    if (have === undefined || parseQuantity(have) === 0) return name;
  }
  return undefined;
}

/** Why the Node is not initialized yet, or undefined when it is. */
export function initializationBlocker(nodeClaim: NodeClaim, node: Node): string | undefined {
  if (!isTrue(node.status?.conditions, "Ready")) return "node is not ready";
  const taints = node.spec?.taints ?? [];
  const startup = (nodeClaim.spec?.startupTaints ?? []).find((s) =>
    taints.some((t) => t.key === s.key && t.effect === s.effect),
  );
  if (startup !== undefined) return `startup taint "${startup.key}" still exists`;
  const ephemeral = taints.find((t) => EPHEMERAL_TAINTS.includes(t.key));
  if (ephemeral !== undefined) return `known ephemeral taint "${ephemeral.key}" still exists`;
  const resource = missingExtendedResource(nodeClaim, node);
  if (resource !== undefined) return `requested resource "${resource}" not registered`;
  return undefined;
}

/** Reconciles one EC2NodeClass: resolve its selectors, compute the status, write it when it changed. */
import type { EC2NodeClassLike, EC2NodeClassStatus } from "../../core/launch-template/node-class.ts";
import type { NodeClassResolver } from "../../ports/node-class-resolver.ts";
import { computeNodeClassStatus } from "./status.ts";

/** Karpenter's SUBNET_REFRESH_INTERVAL / AMI_REFRESH_INTERVAL: re-resolve every minute. */
export const NODE_CLASS_REFRESH_MS = 60_000;

/** What the reconciler needs; the status write (PATCH .../status) is the runtime's. */
export interface NodeClassControllerDeps {
  readonly resolver: NodeClassResolver;
  readonly writeStatus: (name: string, status: EC2NodeClassStatus) => Promise<void>;
  readonly clock: { now(): Date };
}

function sameStatus(a: EC2NodeClassStatus | undefined, b: EC2NodeClassStatus): boolean {
  return JSON.stringify(a ?? {}) === JSON.stringify(b);
}

/** One reconcile; the status write is skipped when nothing changed. Returns when to look again. */
export async function reconcileNodeClass(deps: NodeClassControllerDeps, nodeClass: EC2NodeClassLike): Promise<{ requeueAfter: number; status: EC2NodeClassStatus }> {
  const facts = await deps.resolver.resolve(nodeClass);
  const status = computeNodeClassStatus(nodeClass, facts, deps.clock.now());
  if (!sameStatus(nodeClass.status, status)) await deps.writeStatus(nodeClass.metadata.name, status);
  return { requeueAfter: NODE_CLASS_REFRESH_MS, status };
}

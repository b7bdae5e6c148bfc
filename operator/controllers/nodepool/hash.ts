/**
 * The nodepool.hash controller (Karpenter's): keeps `karpenter.sh/nodepool-hash` and
 * `karpenter.sh/nodepool-hash-version` current on every NodePool and, after a hash-version change,
 * re-stamps the pool's NodeClaims so the change drifts none of them (decision: core/nodepool/hash.ts).
 */
import type { NodeClaim } from "../../core/lifecycle/objects.ts";
import { planHashUpdate } from "../../core/nodepool/hash.ts";
import type { Cluster } from "../../ports/cluster.ts";
import type { Result } from "../runtime.ts";

/** Reconciles the NodePool called `name` from the cache; writes are locked, a stale cache requeues. */
export async function reconcileNodePoolHash(deps: { readonly cluster: Cluster }, name: string): Promise<Result> {
  const nodePool = deps.cluster.nodePool(name);
  if (nodePool === undefined) return {};
  const claims = deps.cluster.nodeClaims().filter((c) => c.metadata?.labels?.["karpenter.sh/nodepool"] === name);
  const update = planHashUpdate<NodeClaim>(nodePool, claims);
  // NodeClaims first: the NodePool's new version is what marks the re-stamp as done.
  await Promise.all(
    update.claims.map(({ claim, annotations }) => deps.cluster.patchNodeClaimMetadata(claim, { annotations })),
  );
  if (update.pool !== undefined) await deps.cluster.patchNodePoolAnnotations(nodePool, update.pool);
  return {};
}

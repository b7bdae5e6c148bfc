/** What every NodeClaim lifecycle step receives (named dependencies, built in main.ts). */
import type { Logger } from "pino";
import type { Clock } from "../../core/clock.ts";
import type { LivenessTimeouts } from "../../core/lifecycle/liveness.ts";
import type { Condition, NodeClaim } from "../../core/lifecycle/objects.ts";
import { setCondition } from "../../core/lifecycle/objects.ts";
import type { EventRecorder } from "../../observability/events.ts";
import type { Metrics } from "../../observability/metrics.ts";
import type { CloudProvider } from "../../ports/cloud-provider.ts";
import type { Cluster } from "../../ports/cluster.ts";

export interface NodeClaimDeps {
  readonly cluster: Cluster;
  readonly cloud: CloudProvider;
  readonly clock: Clock;
  readonly events: EventRecorder;
  readonly metrics: Metrics;
  readonly logger: Logger;
  readonly timeouts: LivenessTimeouts;
  /** The cluster CA bundle node user data carries: hashed into the EC2NodeClass hash (Karpenter's Hash(caBundle)). */
  readonly clusterCABundle?: string | undefined;
}

/** A step's answer: a Result ends this pass; undefined lets the next step run. */
export type StepResult = { readonly requeueAfter?: number } | undefined;

/** The NodeClaim's conditions with one set, ready for a status patch. */
export function withCondition(
  deps: NodeClaimDeps,
  nodeClaim: NodeClaim,
  condition: Omit<Condition, "lastTransitionTime">,
): Condition[] {
  return setCondition(nodeClaim.status?.conditions, condition, deps.clock.now());
}

/** Labels for per-NodePool metrics. */
export function poolLabels(nodeClaim: NodeClaim): { nodepool: string; capacity_type: string } {
  const labels = nodeClaim.metadata?.labels ?? {};
  return { nodepool: labels["karpenter.sh/nodepool"] ?? "", capacity_type: labels["karpenter.sh/capacity-type"] ?? "" };
}

/** metadata.name, or "" (keeps optional chains out of the controllers' control flow). */
export function nameOf(
  obj: { readonly metadata?: { readonly name?: string | undefined } | undefined } | undefined,
): string {
  return obj?.metadata?.name ?? "";
}

/**
 * The nodepool.static controller: Karpenter's static.provisioning and static.deprovisioning in one
 * reconcile per NodePool (decision: core/nodepool/static.ts). A static NodePool (`spec.replicas`) gets
 * NodeClaims launched from its template until it has its replicas, and loses its surplus in Karpenter's
 * scale-down order. Counts are read from the caches on every reconcile (the Cluster port sees its own
 * creates at once), so a restart or a second reconcile never launches twice.
 *
 * With the StaticCapacity feature gate off Karpenter runs neither controller and a static pool gets no
 * node; kerf does the same, and says so once per NodePool: a Warning Event and a log line.
 */
import type { Logger } from "pino";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import type { Clock } from "../../core/clock.ts";
import { isTrue, type Condition, type NodeClaim } from "../../core/lifecycle/objects.ts";
import { minValuesRelaxed } from "../../core/metrics/nodeclaims.ts";
import {
  isStatic,
  staticClaim,
  staticDecision,
  type StaticDecision,
  type StaticMember,
} from "../../core/nodepool/static.ts";
import type { NodePoolObject } from "../../core/provisioning/cluster-view.ts";
import { nodeClaimManifest, templateOf } from "../../core/provisioning/nodeclaim-template.ts";
import {
  noCompatibleInstanceTypes,
  staticCapacityDisabled,
  staticNodeLimitReached,
  type EventRecorder,
} from "../../observability/events.ts";
import type { Metrics } from "../../observability/metrics.ts";
import type { CloudProvider } from "../../ports/cloud-provider.ts";
import type { Cluster } from "../../ports/cluster.ts";
import type { Result } from "../runtime.ts";

/** Named dependencies. */
export interface StaticCapacityDeps {
  readonly cluster: Cluster;
  readonly cloud: Pick<CloudProvider, "getInstanceTypes">;
  readonly clock: Clock;
  readonly events: EventRecorder;
  readonly metrics: Metrics;
  readonly logger: Logger;
  /** --feature-gates StaticCapacity. */
  readonly enabled: boolean;
  /** NodePool uids already told the gate is off (once per process). */
  readonly told: Set<string>;
}

/** Karpenter's periods: look again each minute when steady, every 30 s at the node limit. */
const STEADY_MS = 60_000;
const LIMIT_MS = 30_000;
/** Karpenter's reason label for static launches (metrics.ProvisionedReason). */
const REASON = "provisioned";

/** A NodePool as the provisioning core reads it (the cache holds it whole). */
type Pool = NodePoolObject;

function members(cluster: Cluster, name: string): StaticMember[] {
  return cluster
    .nodeClaims()
    .filter((c) => c.metadata?.labels?.["karpenter.sh/nodepool"] === name)
    .map((claim) => {
      const node = cluster.nodeByProviderID(claim.status?.providerID ?? "");
      return { claim, pods: node?.metadata?.name === undefined ? [] : cluster.podsOnNode(node.metadata.name) };
    });
}

function tellDisabled(deps: StaticCapacityDeps, pool: Pool): void {
  const key = pool.metadata?.uid ?? pool.metadata?.name ?? "";
  if (deps.told.has(key)) return;
  deps.told.add(key);
  deps.events.publish(staticCapacityDisabled(pool));
  deps.logger.warn(
    { nodepool: pool.metadata?.name, replicas: pool.spec?.["replicas"] },
    "NodePool sets spec.replicas but the StaticCapacity feature gate is off; no nodes are kept for it",
  );
}

async function instanceTypes(deps: StaticCapacityDeps, pool: Pool): Promise<readonly InstanceType[] | undefined> {
  const className = String((templateOf(pool).spec["nodeClassRef"] as { name?: unknown } | undefined)?.name ?? "");
  try {
    return await deps.cloud.getInstanceTypes(className);
  } catch (error) {
    deps.logger.warn(
      { nodepool: pool.metadata?.name, nodeclass: className, err: error },
      "listing instance types failed; static NodePool waits",
    );
    return undefined;
  }
}

async function scaleUp(deps: StaticCapacityDeps, pool: Pool, count: number): Promise<Result> {
  const name = pool.metadata?.name ?? "";
  const types = await instanceTypes(deps, pool);
  if (types === undefined) return { requeueAfter: LIMIT_MS };
  const planned = staticClaim(pool, types);
  if (planned === undefined) {
    deps.events.publish(noCompatibleInstanceTypes(pool));
    return { requeueAfter: LIMIT_MS };
  }
  const manifest = nodeClaimManifest(pool, planned);
  const results = await Promise.allSettled(
    Array.from({ length: count }, async () => {
      const created = await deps.cluster.createNodeClaim(manifest);
      deps.metrics.nodeClaimsCreated.inc({
        reason: REASON,
        nodepool: name,
        min_values_relaxed: minValuesRelaxed(created),
      });
      const cheapest = `${planned.launch.instanceType}/${planned.launch.zone}`;
      deps.logger.info({ nodeclaim: created.metadata?.name, nodepool: name, cheapest }, "created nodeclaim");
    }),
  );
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed !== undefined) {
    throw new Error(`creating nodeclaims of static NodePool ${name}: ${String(failed.reason)}`, {
      cause: failed.reason,
    });
  }
  return { requeueAfter: STEADY_MS };
}

async function scaleDown(deps: StaticCapacityDeps, pool: Pool, claims: readonly NodeClaim[]): Promise<Result> {
  const names = claims.map((c) => c.metadata?.name ?? "");
  const results = await Promise.allSettled(
    names.map(async (n) => {
      await deps.cluster.deleteNodeClaim(n);
      deps.logger.info({ nodeclaim: n, nodepool: pool.metadata?.name }, "deleting nodeclaim");
    }),
  );
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed !== undefined) {
    const doing = `deprovisioning nodeclaims of static NodePool ${pool.metadata?.name ?? ""}`;
    throw new Error(`${doing}: ${String(failed.reason)}`, { cause: failed.reason });
  }
  return { requeueAfter: STEADY_MS };
}

/** Acts on the decision for a synced, enabled, static pool. */
async function act(deps: StaticCapacityDeps, pool: Pool, decision: StaticDecision): Promise<Result> {
  const name = pool.metadata?.name ?? "";
  const counts = { nodepool: name, current: decision.current, desired: decision.desired };
  switch (decision.kind) {
    case "steady":
      return { requeueAfter: STEADY_MS };
    case "limit-reached":
      deps.logger.info(counts, "nodepool node limit reached");
      deps.events.publish(staticNodeLimitReached(pool, decision.current, decision.desired, decision.limit));
      return { requeueAfter: LIMIT_MS };
    case "scale-down":
      deps.logger.info(
        { ...counts, "deprovision-count": decision.claims.length },
        "deprovisioning nodeclaims to satisfy replica count",
      );
      return scaleDown(deps, pool, decision.claims);
    case "scale-up":
      // As Karpenter: a NotReady pool (its EC2NodeClass not ready) launches nothing; scale-down does not wait.
      if (!isTrue(pool.status?.["conditions"] as Condition[] | undefined, "Ready")) return { requeueAfter: STEADY_MS };
      deps.logger.info(
        { ...counts, "provision-count": decision.count },
        "provisioning nodeclaims to satisfy replica count",
      );
      return scaleUp(deps, pool, decision.count);
  }
}

/** Reconciles the static NodePool called `name` (a dynamic or missing one: nothing to do). */
export async function reconcileStaticCapacity(deps: StaticCapacityDeps, name: string): Promise<Result> {
  const pool = deps.cluster.nodePool(name) as Pool | undefined;
  if (pool === undefined || !isStatic(pool) || pool.metadata?.deletionTimestamp !== undefined) return {};
  if (!deps.enabled) {
    tellDisabled(deps, pool);
    return {};
  }
  // An unsynced cache undercounts and would launch too many.
  if (!deps.cluster.synced) return { requeueAfter: 1000 };
  const decision = staticDecision({ pool, members: members(deps.cluster, name), now: deps.clock.now().getTime() });
  return decision === undefined ? {} : act(deps, pool, decision);
}

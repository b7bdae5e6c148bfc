/**
 * The provisioner (behaviour §1): a singleton loop that waits for a batch window, then — once the
 * cluster state has synced — plans (core/provisioning/plan.ts) and applies the plan: creates the
 * NodeClaims, nominates pods, reports pods that fit nowhere. NodeClaims it created count as
 * capacity from the moment they exist, also before the informer has delivered them (the Cluster
 * port reads its own creates), so a pod never gets two NodeClaims. After an ICE the launch deletes
 * the NodeClaim; that deletion triggers a new batch whose instance types no longer offer the
 * failed offering.
 */
import type { Logger } from "pino";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import type { Clock } from "../../core/clock.ts";
import type { Pod } from "../../core/lifecycle/objects.ts";
import type { SimulateOptions } from "../../core/scheduling/types.ts";
import {
  planProvisioning,
  takesPart,
  type NodePoolObject,
  type PlannedClaim,
  type ProvisioningPlan,
} from "../../core/provisioning/plan.ts";
import { templateOf } from "../../core/provisioning/nodeclaim-template.ts";
import {
  failedScheduling,
  noCompatibleInstanceTypes,
  nodePoolOff,
  nominated,
  type EventRecorder,
} from "../../observability/events.ts";
import { minValuesRelaxed } from "../../core/metrics/nodeclaims.ts";
import type { Metrics } from "../../observability/metrics.ts";
import type { CloudProvider } from "../../ports/cloud-provider.ts";
import type { Cluster } from "../../ports/cluster.ts";
import type { Result } from "../runtime.ts";
import type { Batcher } from "./batcher.ts";

/** Named dependencies. */
export interface ProvisionerDeps {
  readonly cluster: Cluster;
  readonly cloud: Pick<CloudProvider, "getInstanceTypes">;
  readonly events: EventRecorder;
  readonly metrics: Metrics;
  readonly logger: Logger;
  readonly batcher: Batcher;
  /** Records nodes promised to pending pods (disruption leaves them alone for the nomination window). */
  readonly nominations?: { nominate(node: string): void };
  /** Scheduling options from the operator's configuration (maxPriceRatio). */
  readonly scheduling?: SimulateOptions;
  /** Now, for do-not-disrupt durations on the pods of deleting nodes; absent: the system clock. */
  readonly clock?: Clock;
  /**
   * The NodeOverlay gate is on: the evaluated overlays (controllers/nodeoverlay/store.ts) decorate every pool's
   * types; a pool not evaluated yet sits out (Karpenter's "awaiting nodeoverlay evaluation").
   */
  readonly overlays?:
    { apply(pool: string, types: readonly InstanceType[]): readonly InstanceType[] | undefined } | undefined;
}

const CONTROLLER = "provisioner";

/** The provisioning loop and its triggers. */
export class Provisioner {
  private readonly deps: ProvisionerDeps;
  private retries = 0;

  constructor(deps: ProvisionerDeps) {
    this.deps = deps;
  }

  /** A pod UID or another change that may need capacity: opens or extends the batch window. */
  trigger(id: string): void {
    this.deps.batcher.trigger(id);
  }

  /** One loop turn: wait for a batch, provision, come back at once. */
  async reconcile(signal: AbortSignal): Promise<Result> {
    if (!this.deps.cluster.synced) return { requeueAfter: 1000 };
    const batch = await this.deps.batcher.wait(signal);
    if (signal.aborted) return {};
    // No trigger within the poll period: still look once if pods wait (a missed event, a new leader).
    if (batch !== undefined || this.deps.cluster.pendingPods().length > 0) await this.provision();
    return { requeueAfter: 0 };
  }

  /** Plans against the current caches and applies the plan; returns it (undefined when nothing is pending). */
  async provision(): Promise<ProvisioningPlan | undefined> {
    const view = this.deps.cluster.snapshot();
    const pending = this.deps.cluster.pendingPods();
    if (
      pending.length === 0 &&
      !view.nodeClaims.some((c) => c.metadata?.deletionTimestamp !== undefined) &&
      !view.nodes.some((n) => n.metadata?.deletionTimestamp !== undefined)
    )
      return undefined;
    const listed = performance.now();
    const instanceTypes = await this.instanceTypes(view.nodePools);
    const started = performance.now();
    const now = (this.deps.clock?.now() ?? new Date()).getTime();
    const options = this.deps.scheduling === undefined ? {} : { options: this.deps.scheduling };
    const plan = planProvisioning({ cluster: view, pending, instanceTypes, now, ...options });
    const solved = performance.now();
    this.deps.metrics.schedulingDuration.observe({ controller: CONTROLLER }, (solved - started) / 1000);
    // Karpenter's message, so log queries carry over; durations say where a slow batch spent its time.
    if (plan.claims.length > 0)
      this.deps.logger.info(
        {
          pods: pending.length,
          nodeclaims: plan.claims.length,
          instanceTypesMs: Math.round(started - listed),
          solveMs: Math.round(solved - started),
        },
        "computed new nodeclaim(s) to fit pod(s)",
      );
    this.deps.metrics.schedulerQueueDepth.set({ controller: CONTROLLER }, pending.length);
    this.deps.metrics.unschedulablePods.set({ controller: CONTROLLER }, plan.podErrors.length);
    await this.apply(plan);
    return plan;
  }

  private instanceTypes(pools: readonly NodePoolObject[]): Promise<Map<string, readonly InstanceType[]>> {
    return instanceTypesByPool(this.deps, pools);
  }

  private async apply(plan: ProvisioningPlan): Promise<void> {
    const results = await Promise.allSettled(plan.claims.map((c) => this.create(c)));
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    for (const f of failed)
      this.deps.logger.error({ err: f.reason }, "creating a nodeclaim failed; retrying in the next batch");
    if (failed.length > 0) this.trigger(`retry/${++this.retries}`);
    for (const n of plan.nominations) {
      this.deps.events.publish(nominated(n.pod, n.target));
      if (n.target.startsWith("node/")) this.deps.nominations?.nominate(n.target.slice("node/".length));
    }
    for (const e of plan.podErrors) this.deps.events.publish(failedScheduling(e.pod, e.reason));
    for (const pool of plan.incompatiblePools) this.deps.events.publish(noCompatibleInstanceTypes(pool));
    for (const h of plan.heldByOffPools) this.deps.events.publish(nodePoolOff(h.pod, h.nodePool, h.state.until));
    if (plan.podErrors.length > 0)
      this.deps.logger.info(
        { pods: plan.podErrors.length, reason: plan.podErrors[0]?.reason },
        "could not schedule pods",
      );
  }

  private async create(planned: PlannedClaim): Promise<void> {
    const claim = await this.deps.cluster.createNodeClaim(planned.manifest);
    const name = claim.metadata?.name ?? "";
    // Karpenter's reason for a NodeClaim made for pending pods is "provisioned".
    this.deps.metrics.nodeClaimsCreated.inc({
      reason: "provisioned",
      nodepool: planned.nodePool,
      min_values_relaxed: minValuesRelaxed(claim),
    });
    for (const pod of planned.pods) this.deps.events.publish(nominated(pod, `nodeclaim/${name}`));
    this.deps.logger.info(
      {
        nodeclaim: name,
        nodepool: planned.nodePool,
        pods: planned.pods.length,
        cheapest: `${planned.launch.instanceType}/${planned.launch.zone}`,
      },
      "created nodeclaim",
    );
  }
}

/**
 * Instance types per NodePool `include` picks (default: those taking part in provisioning), one cloud call
 * per EC2NodeClass; a pool whose class fails is left out.
 */
export async function instanceTypesByPool(
  deps: Pick<ProvisionerDeps, "cloud" | "logger" | "overlays">,
  pools: readonly NodePoolObject[],
  include: (pool: NodePoolObject) => boolean = takesPart,
): Promise<Map<string, readonly InstanceType[]>> {
  const byClass = new Map<string, Promise<InstanceType[] | undefined>>();
  const out = new Map<string, readonly InstanceType[]>();
  for (const pool of pools.filter(include)) {
    const className = String((templateOf(pool).spec["nodeClassRef"] as { name?: unknown } | undefined)?.name ?? "");
    if (!byClass.has(className)) {
      byClass.set(
        className,
        deps.cloud.getInstanceTypes(className).catch((error: unknown) => {
          deps.logger.warn(
            { nodeclass: className, err: error },
            "listing instance types failed; its NodePools sit this batch out",
          );
          return undefined;
        }),
      );
    }
    const types = await byClass.get(className);
    if (types === undefined) continue;
    const name = pool.metadata?.name ?? "";
    const overlaid = deps.overlays === undefined ? types : deps.overlays.apply(name, types);
    if (overlaid === undefined) deps.logger.debug({ nodepool: name }, "skipping, awaiting nodeoverlay evaluation");
    else out.set(name, overlaid);
  }
  return out;
}

/** Trigger ids for a watched change (undefined: the change cannot need new capacity). */
export function podTrigger(cluster: Pick<Cluster, "isProvisionable">, pod: Pod): string | undefined {
  return cluster.isProvisionable(pod) ? `pod/${pod.metadata?.uid ?? ""}` : undefined;
}

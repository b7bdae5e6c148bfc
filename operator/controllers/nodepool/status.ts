/**
 * NodePool status: resources and node count summed over its NodeClaims (counter), NodeClassReady/ValidationSucceeded/
 * Ready conditions (readiness), and kerf's kerf.dev/ScheduledOff while the pool has a kerf.dev/off-schedule annotation.
 */
import {
  addResources,
  formatResource,
  parseResourceList,
  type ResourceList,
} from "../../../policies/domain/quantity.ts";
import type { Clock } from "../../core/clock.ts";
import type { Condition, NodeClaim } from "../../core/lifecycle/objects.ts";
import { isTrue, setCondition } from "../../core/lifecycle/objects.ts";
import { ROLLOUT_CONDITION, rolloutCondition } from "../../core/disruption/rollout.ts";
import {
  OFF_SCHEDULE_CONDITION,
  offScheduleStatus,
  withoutCondition,
} from "../../core/nodepool/off-schedule-condition.ts";
import { IGNORED_FIELDS_CONDITION, ignoredFieldsCondition } from "../../core/ignored/ignored-fields.ts";
import type { Metrics } from "../../observability/metrics.ts";
import type { Cluster, CustomObjectLike } from "../../ports/cluster.ts";
import type { Result } from "../runtime.ts";

/** Named dependencies. */
export interface NodePoolDeps {
  readonly cluster: Cluster;
  readonly clock: Clock;
  readonly metrics: Metrics;
}

function usage(claims: readonly NodeClaim[]): ResourceList {
  return addResources(...claims.map((c) => parseResourceList(c.status?.capacity)));
}

function poolClaims(cluster: Cluster, name: string): NodeClaim[] {
  return cluster
    .nodeClaims()
    .filter(
      (c) => c.metadata?.labels?.["karpenter.sh/nodepool"] === name && c.metadata.deletionTimestamp === undefined,
    );
}

function nodeClassReady(cluster: Cluster, nodePool: CustomObjectLike): Omit<Condition, "lastTransitionTime"> {
  const ref =
    (nodePool.spec?.["template"] as { spec?: { nodeClassRef?: { name?: string } } } | undefined)?.spec?.nodeClassRef
      ?.name ?? "";
  const nodeClass = cluster.nodeClass(ref);
  if (nodeClass === undefined)
    return {
      type: "NodeClassReady",
      status: "False",
      reason: "NodeClassNotFound",
      message: `EC2NodeClass "${ref}" not found`,
    };
  const ready = isTrue(nodeClass.status?.["conditions"] as Condition[] | undefined, "Ready");
  return ready
    ? { type: "NodeClassReady", status: "True", reason: "NodeClassReady" }
    : {
        type: "NodeClassReady",
        status: "False",
        reason: "NodeClassNotReady",
        message: `EC2NodeClass "${ref}" is not ready`,
      };
}

/** The NodePool status this controller owns, computed from the caches. */
export function desiredStatus(cluster: Cluster, nodePool: CustomObjectLike, now: Date): Record<string, unknown> {
  const name = nodePool.metadata?.name ?? "";
  const claims = poolClaims(cluster, name);
  // Karpenter's counter: one node per launched NodeClaim (a capacity known), registered or not.
  const nodes = claims.filter((c) => Object.keys(c.status?.capacity ?? {}).length > 0).length;
  const classReady = nodeClassReady(cluster, nodePool);
  let conditions = setCondition(
    nodePool.status?.["conditions"] as Condition[] | undefined,
    { type: "ValidationSucceeded", status: "True", reason: "ValidationSucceeded" },
    now,
  );
  conditions = setCondition(conditions, classReady, now);
  const ready = classReady.status === "True";
  conditions = setCondition(
    conditions,
    ready
      ? { type: "Ready", status: "True", reason: "Ready" }
      : { type: "Ready", status: "False", reason: "NodeClassNotReady", message: "NodeClassReady=False" },
    now,
  );
  const all = cluster.nodeClaims().filter((c) => c.metadata?.labels?.["karpenter.sh/nodepool"] === name);
  const rollout = rolloutCondition(nodePool, { claims: all, nodes: cluster.nodes(), pods: cluster.pods() }, now);
  conditions = setCondition(conditions, rollout, now);
  const off = offScheduleStatus(nodePool, now).condition;
  conditions =
    off === undefined ? withoutCondition(conditions, OFF_SCHEDULE_CONDITION) : setCondition(conditions, off, now);
  // kerf's IgnoredFields: present while the NodePool sets something kerf does not act on (docs/migrate.md).
  const ignored = ignoredFieldsCondition("NodePool", nodePool);
  conditions =
    ignored === undefined
      ? conditions.filter((c) => c.type !== IGNORED_FIELDS_CONDITION)
      : setCondition(conditions, ignored, now);
  const resources = Object.fromEntries(Object.entries(usage(claims)).map(([k, v]) => [k, formatResource(k, v)]));
  return {
    resources: { ...resources, nodes: String(nodes) },
    nodes,
    conditions: conditions.map((c) => ({ ...c, observedGeneration: nodePool.metadata?.generation })),
  };
}

const comparable = (status: Readonly<Record<string, unknown>> | undefined): string =>
  JSON.stringify({
    r: status?.["resources"],
    n: status?.["nodes"],
    c: (status?.["conditions"] as Condition[] | undefined)?.map((c) => [
      c.type,
      c.status,
      c.reason,
      c.message,
      c.observedGeneration,
    ]),
  });

/** Reconciles the NodePool called `name`. */
export async function reconcileNodePool(deps: NodePoolDeps, name: string): Promise<Result> {
  const nodePool = deps.cluster.nodePool(name);
  if (nodePool === undefined) return {};
  const now = deps.clock.now();
  const status = desiredStatus(deps.cluster, nodePool, now);
  for (const [resource, value] of Object.entries(usage(poolClaims(deps.cluster, name))))
    deps.metrics.nodePoolUsage.set({ nodepool: name, resource_type: resource }, value);
  // While a rollout runs, budget windows open and close without any object changing: look again each minute.
  const rollout = isTrue(status["conditions"] as Condition[], ROLLOUT_CONDITION) ? ROLLOUT_RECHECK_MS : undefined;
  // A kerf.dev/off-schedule window opens or closes with no object changing: look again just after the edge.
  const wakeAt = offScheduleStatus(nodePool, now).wakeAt;
  const edge = wakeAt === undefined ? undefined : Math.max(wakeAt - now.getTime(), 0) + EDGE_SLACK_MS;
  const after = [rollout, edge].filter((ms): ms is number => ms !== undefined);
  const result = after.length === 0 ? {} : { requeueAfter: Math.min(...after) };
  if (comparable(status) === comparable(nodePool.status)) return result;
  // A NodePool deleted since the cache saw it ends here: the kube adapter treats that 404 as done, not failed
  // (a requeue then finds no NodePool and stops).
  await deps.cluster.patchNodePoolStatus(nodePool, status);
  return result;
}

const ROLLOUT_RECHECK_MS = 60_000;
/** Past a window's edge, so the state read then is the new one. */
const EDGE_SLACK_MS = 1_000;

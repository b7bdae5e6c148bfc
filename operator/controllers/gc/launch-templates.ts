/**
 * Launch-template garbage collection: each pass reads every EC2NodeClass and what it resolves to now
 * (through the launch path's cached resolver, so both see the same AMIs and security groups), then asks
 * the cloud to delete the templates no launch can use any more (core/launch-template/garbage-collection.ts).
 * Level-based and idempotent: a pass keeps nothing but last-use times in memory, so a pass killed anywhere
 * is completed by the next one, and after a restart every template waits out the grace again.
 * Each deletion is logged and counted; deletions and failures show as Events on the EC2NodeClass.
 */
import type { Logger } from "pino";
import {
  nodeClassInputsHash,
  securityGroupsKey,
  type NodeClassNow,
  type TemplateDeletion,
} from "../../core/launch-template/garbage-collection.ts";
import type { EC2NodeClassLike } from "../../core/launch-template/node-class.ts";
import {
  launchTemplateDeletionFailed,
  launchTemplatesDeleted,
  type EventRecorder,
} from "../../observability/events.ts";
import type { Metrics } from "../../observability/metrics.ts";
import type { LaunchTemplateCollection, NodeClassCloud } from "../../ports/node-class-cloud.ts";
import type { NodeClassFacts, NodeClassResolver } from "../../ports/node-class-resolver.ts";

/** How often a pass runs when nothing is due sooner (one DescribeLaunchTemplates call per page of 200). */
export const LAUNCH_TEMPLATE_GC_PERIOD_MS = 60_000;

/** The shortest wait between passes a due template asks for: at most 12 listings a minute. */
export const LAUNCH_TEMPLATE_GC_MIN_WAIT_MS = 5_000;

/** What a pass needs. */
export interface LaunchTemplateGcDeps {
  /** Every EC2NodeClass in the cluster (deleting ones too), from the informer cache. */
  readonly nodeClasses: () => readonly EC2NodeClassLike[];
  readonly resolver: NodeClassResolver;
  readonly cloud: Pick<NodeClassCloud, "collectLaunchTemplates">;
  readonly logger: Pick<Logger, "info" | "warn">;
  readonly events: EventRecorder;
  readonly metrics?: Pick<Metrics, "launchTemplatesDeleted" | "launchTemplates"> | undefined;
}

/** What the node class would put in a template now; undefined when its AMIs or security groups do not resolve. */
export function nodeClassNow(nodeClass: EC2NodeClassLike, facts: NodeClassFacts): NodeClassNow {
  const resolved = facts.amis.length > 0 && facts.securityGroups.length > 0;
  if (!resolved || facts.errors.amis !== undefined || facts.errors.securityGroups !== undefined) return {};
  return {
    current: {
      imageIds: new Set(facts.amis.map((a) => a.id)),
      securityGroups: securityGroupsKey(facts.securityGroups.map((g) => g.id)),
      nodeClassInputs: nodeClassInputsHash(nodeClass.spec),
    },
  };
}

/** Every node class by name with what it resolves to now (a resolver that throws counts as unresolved). */
async function nodeClassesNow(
  resolver: NodeClassResolver,
  nodeClasses: readonly EC2NodeClassLike[],
): Promise<Map<string, NodeClassNow>> {
  const entries = await Promise.all(
    nodeClasses.map(async (nc) => {
      try {
        return [nc.metadata.name, nodeClassNow(nc, await resolver.resolve(nc))] as const;
      } catch {
        return [nc.metadata.name, {}] as const;
      }
    }),
  );
  return new Map(entries);
}

function reasonsOf(deleted: readonly TemplateDeletion[]): string {
  const counts = new Map<string, number>();
  for (const d of deleted) counts.set(d.reason, (counts.get(d.reason) ?? 0) + 1);
  return [...counts].map(([reason, n]) => `${reason}: ${n}`).join(", ");
}

function report(
  deps: LaunchTemplateGcDeps,
  result: LaunchTemplateCollection,
  byName: ReadonlyMap<string, EC2NodeClassLike>,
): void {
  for (const d of result.deleted) {
    const fields = { launchTemplate: d.name, id: d.id, ec2nodeclass: d.nodeClass, reason: d.reason };
    deps.logger.info({ ...fields, idleSeconds: Math.round(d.idleMs / 1000) }, "deleted launch template");
    deps.metrics?.launchTemplatesDeleted.inc({ reason: d.reason });
  }
  for (const [name, nodeClass] of byName) {
    const mine = result.deleted.filter((d) => d.nodeClass === name);
    if (mine.length === 0) continue;
    deps.events.publish(
      launchTemplatesDeleted(
        nodeClass,
        mine.map((d) => d.name),
        reasonsOf(mine),
      ),
    );
  }
  for (const e of result.errors) {
    const fields = { launchTemplate: e.name, ec2nodeclass: e.nodeClass, error: e.message };
    deps.logger.warn(fields, "deleting launch template failed");
    const nodeClass = e.nodeClass === undefined ? undefined : byName.get(e.nodeClass);
    if (nodeClass !== undefined) deps.events.publish(launchTemplateDeletionFailed(nodeClass, e.message));
  }
  // Templates whose deletion failed are still there: they count as retiring.
  deps.metrics?.launchTemplates.set({ state: "current" }, result.kept.length);
  deps.metrics?.launchTemplates.set({ state: "retiring" }, result.retiring.length + result.errors.length);
}

/**
 * One pass. Returns what it did and when to run again: when the next kept template becomes deletable
 * (at least 5 s, at most the period). Throws "listing launch templates: cause" (the runtime backs off).
 */
export async function collectLaunchTemplates(
  deps: LaunchTemplateGcDeps,
): Promise<{ result: LaunchTemplateCollection; requeueAfter: number }> {
  const nodeClasses = deps.nodeClasses();
  const byName = new Map(nodeClasses.map((nc) => [nc.metadata.name, nc]));
  const result = await deps.cloud.collectLaunchTemplates(await nodeClassesNow(deps.resolver, nodeClasses));
  report(deps, result, byName);
  const due = result.nextDueMs === undefined ? LAUNCH_TEMPLATE_GC_PERIOD_MS : Math.ceil(result.nextDueMs) + 1000;
  const requeueAfter = Math.max(LAUNCH_TEMPLATE_GC_MIN_WAIT_MS, Math.min(LAUNCH_TEMPLATE_GC_PERIOD_MS, due));
  return { result, requeueAfter };
}

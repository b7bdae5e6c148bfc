/**
 * Every controller with its triggers: the one place to read which controllers run and what wakes them.
 * A controller is a keyed reconcile plus, per watched kind, a map from a changed object to keys. Adding
 * one (e.g. the provisioner) is one entry in `controllers()`. The contract is in controller-spec.ts; the
 * manager (manager.ts) runs them only while leading.
 */
import type { EC2NodeClassLike } from "../core/launch-template/node-class.ts";
import { justConsolidatable } from "../core/disruption/consolidatable.ts";
import type { NodeClaim, Pod } from "../core/lifecycle/objects.ts";
import type { NodeClassCloud } from "../ports/node-class-cloud.ts";
import type { NodeClassResolver } from "../ports/node-class-resolver.ts";
import { DEFAULT_DISRUPTION_SETTINGS, DisruptionController } from "./disruption/controller.ts";
import { Nominations } from "./disruption/nominations.ts";
import { PodEventTracker } from "./disruption/pod-events.ts";
import { reconcileDisruptionStatus, type DisruptionStatusDeps } from "./disruption/status.ts";
import { ignoredFieldsControllers } from "./ignored/ignored-fields.ts";
import { collectGarbage } from "./gc/controller.ts";
import { collectLaunchTemplates, type LaunchTemplateGcDeps } from "./gc/launch-templates.ts";
import { gcNode } from "./gc/plan.ts";
import { interruptionController } from "./interruption/controller.ts";
import { nodeMetricsController } from "./metrics/nodes.ts";
import { podMetricsController } from "./metrics/pods.ts";
import { nodeClassNamesOf, publishOfferingMetrics } from "./providers/catalog.ts";
import { reconcileNodeClassLifecycle, type NodeClassLifecycleDeps } from "./nodeclass/controller.ts";
import { reconcileNodeDeletion } from "./node/finalizer.ts";
import { reconcileNodeRepair } from "./node/repair.ts";
import { gateOffNotice, reconcileNodeOverlays } from "./nodeoverlay/controller.ts";
import { reconcileNodeClaim } from "./nodeclaim/controller.ts";
import { reconcileExpiration } from "./nodeclaim/expiration.ts";
import { taggingController } from "./nodeclaim/tagging.ts";
import { reconcileNodePoolHash } from "./nodepool/hash.ts";
import { reconcileStaticCapacity } from "./nodepool/static.ts";
import { reconcileNodePool } from "./nodepool/status.ts";
import { provisioningController } from "./provisioning/controller.ts";
import { versionController } from "./providers/version.ts";
import type { ControllerDeps } from "./controller-deps.ts";
import type { ControllerSpec, Watched, WatchVerb } from "./controller-spec.ts";

export type { ControllerDeps };

const own = (obj: Watched): readonly string[] => (obj.metadata?.name === undefined ? [] : [obj.metadata.name]);

function nodeClaimOfNode(deps: ControllerDeps, node: Watched): readonly string[] {
  const byOwner = (node.metadata?.ownerReferences ?? []).filter((o) => o.kind === "NodeClaim").map((o) => o.name);
  const providerID = node.spec?.providerID ?? "";
  const byProvider = providerID === "" ? undefined : deps.cluster.nodeClaimByProviderID(providerID)?.metadata?.name;
  return [...new Set([...byOwner, ...(byProvider === undefined ? [] : [byProvider])])];
}

function nodeClaimOfPod(deps: ControllerDeps, pod: Watched): readonly string[] {
  const nodeName = pod.spec?.nodeName ?? "";
  const node = nodeName === "" ? undefined : deps.cluster.node(nodeName);
  return node === undefined ? [] : nodeClaimOfNode(deps, node);
}

const poolOf = (obj: Watched): readonly string[] => {
  const pool = obj.metadata?.labels?.["karpenter.sh/nodepool"];
  return pool === undefined ? [] : [pool];
};

/** Every controller the operator runs. */
export function controllers(deps: ControllerDeps): ControllerSpec[] {
  const nominations = new Nominations((deps.batch ?? { maxMs: 10_000 }).maxMs, deps.clock);
  return [
    ...disruptionControllers(deps, nominations),
    {
      name: "nodeclaim.lifecycle",
      concurrency: 10,
      reconcile: (key) => reconcileNodeClaim(deps, key),
      // A VolumeAttachment names its Node in spec.nodeName, as a pod does:
      // its deletion wakes a termination waiting on it.
      watches: {
        nodeclaims: own,
        nodes: (n) => nodeClaimOfNode(deps, n),
        pods: (p) => nodeClaimOfPod(deps, p),
        volumeattachments: (va) => nodeClaimOfPod(deps, va),
      },
    },
    { name: "node.termination", reconcile: (key) => reconcileNodeDeletion(deps.cluster, key), watches: { nodes: own } },
    ...(deps.nodeRepair === true
      ? [{ name: "node.health", reconcile: (key: string) => reconcileNodeRepair(deps, key), watches: { nodes: own } }]
      : []),
    { name: "nodeclaim.expiration", reconcile: (key) => reconcileExpiration(deps, key), watches: { nodeclaims: own } },
    {
      name: "nodepool.status",
      reconcile: (key) => reconcileNodePool(deps, key),
      watches: { nodepools: own, nodeclaims: poolOf, ec2nodeclasses: () => allPools(deps) },
    },
    { name: "nodepool.hash", reconcile: (key) => reconcileNodePoolHash(deps, key), watches: { nodepools: own } },
    staticCapacityController(deps),
    ...ignoredFieldsControllers(deps),
    gcController(deps),
    podMetricsController(deps),
    nodeMetricsController(deps),
    provisioningController(deps, nominations),
    ...nodeClassControllers(deps),
    ...(deps.interruption === undefined ? [] : [interruptionController({ ...deps, ...deps.interruption })]),
    ...(deps.tagging === undefined ? [] : [taggingController({ ...deps, ...deps.tagging })]),
    ...(deps.kubernetesVersion === undefined ? [] : [versionController(deps.kubernetesVersion)]),
    ...catalogControllers(deps),
    ...nodeOverlayControllers(deps),
  ];
}

/** NodeOverlay evaluation (gate on) or the notice that overlays are not applied (gate off). */
function nodeOverlayControllers(deps: ControllerDeps): ControllerSpec[] {
  const overlays = deps.nodeOverlays;
  if (overlays === undefined) return [];
  const store = overlays.store;
  if (store === undefined) {
    const notice = gateOffNotice({ overlays: overlays.port, events: deps.events, logger: deps.logger });
    return [{ name: "nodeoverlay.gate", singleton: "nodeoverlays", watches: {}, reconcile: () => notice() }];
  }
  const key = (): readonly string[] => ["nodeoverlays"];
  return [
    {
      // One key: every reconcile weighs every overlay against every other (Karpenter's controller does the same).
      name: "nodeoverlay",
      singleton: "nodeoverlays",
      watches: { nodeoverlays: key, nodepools: key, ec2nodeclasses: key },
      reconcile: () =>
        reconcileNodeOverlays({
          overlays: overlays.port,
          store,
          cluster: deps.cluster,
          cloud: deps.cloud,
          clock: deps.clock,
          logger: deps.logger,
        }),
    },
  ];
}

/**
 * Static NodePools (Karpenter's static.provisioning and static.deprovisioning): a NodePool change, or a
 * NodeClaim of the pool created, changed or deleted, looks again.
 */
function staticCapacityController(deps: ControllerDeps): ControllerSpec {
  const told = new Set<string>();
  return {
    name: "nodepool.static",
    concurrency: 10,
    watches: { nodepools: own, nodeclaims: poolOf },
    reconcile: (key) => reconcileStaticCapacity({ ...deps, enabled: deps.staticCapacity === true, told }, key),
  };
}

/** The EC2NodeClasses NodePools use. */
function nodeClassNamesInUse(deps: ControllerDeps): string[] {
  return nodeClassNamesOf(deps.cluster.nodePools());
}

/** The catalog refresh (when the catalog comes from AWS) and Karpenter's offering gauges. */
function catalogControllers(deps: ControllerDeps): ControllerSpec[] {
  const metrics: ControllerSpec = {
    name: "cloudprovider.metrics",
    singleton: "metrics",
    watches: {},
    reconcile: () =>
      publishOfferingMetrics({
        metrics: deps.metrics,
        logger: deps.logger,
        nodeClassNames: () => nodeClassNamesInUse(deps),
        instanceTypes: (name) => deps.cloud.getInstanceTypes(name),
        periodMs: deps.catalogRefresher?.metricsPeriodMs,
      }),
  };
  const refresher = deps.catalogRefresher;
  if (refresher === undefined) return [metrics];
  const generations = new Map<string, number | undefined>();
  return [
    metrics,
    {
      name: "providers.catalog",
      singleton: "catalog",
      reconcile: () => refresher.reconcile(),
      // A spec change (a new generation, a new or deleted class) may change the zones in use: look again now.
      watches: {
        ec2nodeclasses: (nc, verb) => {
          const name = nc.metadata?.name ?? "";
          const known = generations.has(name);
          const before = generations.get(name);
          if (verb === "delete") generations.delete(name);
          else generations.set(name, nc.metadata?.generation);
          if (verb === "delete" || (known && before === nc.metadata?.generation)) return [];
          refresher.nodeClassChanged();
          return ["catalog"];
        },
      },
    },
  ];
}

function claimsOfPool(deps: ControllerDeps, pool: Watched): readonly string[] {
  const name = pool.metadata?.name ?? "";
  return deps.cluster
    .nodeClaims()
    .filter((c) => c.metadata?.labels?.["karpenter.sh/nodepool"] === name)
    .map((c) => c.metadata?.name ?? "");
}

/** The per-NodeClaim disruption status (pod events, hash stamp, Drifted, Consolidatable) and the disruption pass. */
function disruptionControllers(deps: ControllerDeps, nominations: Nominations): ControllerSpec[] {
  const podEvents = new PodEventTracker();
  const status: DisruptionStatusDeps = { ...deps, podEvents, networkCache: new Map() };
  const settings = deps.disruption ?? DEFAULT_DISRUPTION_SETTINGS;
  const pass = new DisruptionController({ ...deps, nominations, settings });
  return [
    {
      name: "nodeclaim.disruption",
      concurrency: 4,
      reconcile: (key) => reconcileDisruptionStatus(status, key),
      watches: {
        nodeclaims: own,
        // The tracker sees every pod event here: a bind or a departure restarts the node's consolidateAfter clock.
        pods: (pod, verb) => {
          const node = podEvents.observe(pod as Pod, verb, deps.clock.now().getTime());
          return node === undefined ? [] : nodeClaimOfPod(deps, { spec: { nodeName: node } });
        },
        nodepools: (pool) => claimsOfPool(deps, pool),
        ec2nodeclasses: (nc) => nodeClaimNamesOf(deps, nc.metadata?.name ?? ""),
      },
    },
    {
      name: "disruption",
      singleton: "disruption",
      reconcile: (_key, signal) => pass.reconcile(signal),
      // A NodeClaim gone frees budget (a disruption finished), one just Consolidatable may now go: look again now
      // rather than at the next 10 s tick.
      watches: {
        nodeclaims: (claim, verb) => {
          const now = deps.clock.now().getTime();
          return verb === "delete" || justConsolidatable(claim as NodeClaim, now) ? ["disruption"] : [];
        },
      },
    },
  ];
}

const GC_PERIOD_MS = 10_000;

function gcController(deps: ControllerDeps): ControllerSpec {
  return {
    name: "nodeclaim.garbagecollection",
    singleton: "gc",
    watches: {},
    reconcile: async () => {
      if (!deps.cluster.synced) return { requeueAfter: 1000 };
      const listNodeClaims = async () =>
        deps.cluster.nodeClaims().map((nc) => {
          const node = deps.cluster.nodeByProviderID(nc.status?.providerID ?? "");
          const ready = node?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
          return {
            name: nc.metadata?.name ?? "",
            providerID: nc.status?.providerID,
            nodeReady: ready,
            deleting: nc.metadata?.deletionTimestamp !== undefined,
          };
        });
      const result = await collectGarbage({
        cloudProvider: deps.cloud,
        listNodeClaims,
        listNodes: async () => deps.cluster.nodes().map(gcNode),
        clock: deps.clock,
        logger: deps.logger,
        deleteNodeClaim: (n) => deps.cluster.deleteNodeClaim(n),
        deleteNode: (n) => deps.cluster.deleteNode(n),
      });
      if (result.errors.length > 0) deps.logger.warn({ errors: result.errors }, "garbage collection");
      return { requeueAfter: GC_PERIOD_MS };
    },
  };
}

function nodeClaimNamesOf(deps: ControllerDeps, nodeClassName: string): string[] {
  return deps.cluster
    .nodeClaims()
    .filter((c) => c.spec?.nodeClassRef?.name === nodeClassName)
    .map((c) => c.metadata?.name ?? "");
}

/** A deleted NodeClaim wakes its node class when that one is waiting on it to finish terminating. */
function deletingNodeClassOf(deps: ControllerDeps, nodeClaim: Watched, verb: WatchVerb): readonly string[] {
  const name = (nodeClaim as { spec?: { nodeClassRef?: { name?: string } } }).spec?.nodeClassRef?.name;
  if (verb !== "delete" || name === undefined) return [];
  return (deps.cluster.nodeClass(name) as EC2NodeClassLike | undefined)?.metadata.deletionTimestamp === undefined
    ? []
    : [name];
}

function nodeClassControllers(deps: ControllerDeps): ControllerSpec[] {
  const { nodeClassResolver: resolver, nodeClassCloud: cloud, nodeClassFinalizers: finalizers } = deps;
  if (resolver === undefined || cloud === undefined || finalizers === undefined) return [];
  const lifecycle: NodeClassLifecycleDeps = {
    resolver,
    cloud,
    finalizers,
    clock: deps.clock,
    events: deps.events,
    ...(deps.catalogFreshness === undefined ? {} : { catalogFreshness: deps.catalogFreshness }),
    reservedCapacity: deps.reservedCapacity,
    writeStatus: (name, status) => deps.cluster.patchNodeClassStatus(name, status),
    nodeClaimsOf: (name) => nodeClaimNamesOf(deps, name),
  };
  return [
    {
      name: "nodeclass.status",
      watches: { ec2nodeclasses: own, nodeclaims: (c, verb) => deletingNodeClassOf(deps, c, verb) },
      reconcile: async (key) => {
        const nodeClass = deps.cluster.nodeClass(key) as EC2NodeClassLike | undefined;
        return nodeClass === undefined ? {} : reconcileNodeClassLifecycle(lifecycle, nodeClass);
      },
    },
    launchTemplateGcController(deps, resolver, cloud),
  ];
}

/** Deletes launch templates no launch can use any more; a node class change (e.g. new status.amis) looks again now. */
function launchTemplateGcController(
  deps: ControllerDeps,
  resolver: NodeClassResolver,
  cloud: NodeClassCloud,
): ControllerSpec {
  const gc: LaunchTemplateGcDeps = {
    resolver,
    cloud,
    logger: deps.logger,
    events: deps.events,
    metrics: deps.metrics,
    nodeClasses: () => (deps.cluster.snapshot().nodeClasses ?? []) as unknown as readonly EC2NodeClassLike[],
  };
  return {
    name: "launchtemplate.garbagecollection",
    singleton: "launch-templates",
    watches: { ec2nodeclasses: () => ["launch-templates"] },
    // An unsynced cache would show node classes as gone: wait for it.
    reconcile: async () => {
      if (!deps.cluster.synced) return { requeueAfter: 1000 };
      return { requeueAfter: (await collectLaunchTemplates(gc)).requeueAfter };
    },
  };
}

function allPools(deps: ControllerDeps): readonly string[] {
  return deps.cluster
    .nodePools()
    .map((p) => p.metadata?.name ?? "")
    .filter((n) => n !== "");
}

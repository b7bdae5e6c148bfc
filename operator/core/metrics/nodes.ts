/**
 * Pure rules behind Karpenter's node gauges (core pkg/controllers/metrics/node): `karpenter_nodes_allocatable`,
 * `_total_pod_requests`, `_total_pod_limits`, `_total_daemon_requests`, `_total_daemon_limits`, `_system_overhead`
 * (one series per node and resource), `karpenter_nodes_current_lifetime_seconds` (one per node) and
 * `karpenter_cluster_utilization_percent` (one per resource).
 */
import { WELL_KNOWN_LABELS } from "../../../policies/domain/labels.ts";
import { addResources, maxResources, parseResourceList, type ResourceList } from "../../../policies/domain/quantity.ts";
import type { Node, Pod } from "../lifecycle/objects.ts";
import { timeMs } from "../lifecycle/objects.ts";
import { podRequests } from "../scheduling/pod-spec.ts";

/**
 * Metric label of each well-known Node label, as Karpenter names it: the part after `/`, lower-cased, `-` → `_`
 * (`topology.kubernetes.io/zone` → `zone`, `karpenter.k8s.aws/instance-cpu` → `instance_cpu`).
 */
export const WELL_KNOWN_DIMENSIONS: ReadonlyMap<string, string> = new Map(
  [...WELL_KNOWN_LABELS].flatMap((key) => {
    const parts = key.split("/");
    return parts.length === 2 ? [[key, (parts[1] ?? "").toLowerCase().replaceAll("-", "_")] as const] : [];
  }),
);

/** Labels of the per-node series (the well-known labels, node_name, phase, managed). */
export const NODE_LABELS: readonly string[] = [
  ...new Set(WELL_KNOWN_DIMENSIONS.values()),
  "node_name",
  "phase",
  "managed",
].sort();

/** Labels of the per-node, per-resource gauges. */
export const NODE_RESOURCE_LABELS: readonly string[] = [...NODE_LABELS, "resource_type"];

/**
 * Karpenter's resource_type: the resource name lower-cased, `-` → `_`
 * (`ephemeral-storage` → `ephemeral_storage`).
 */
export function resourceType(name: string): string {
  return name.toLowerCase().replaceAll("-", "_");
}

/** The per-node labels of a Node: its well-known labels ("" when unset), name, phase and whether kerf manages it. */
export function nodeSeriesLabels(node: Node): Record<string, string> {
  const labels = node.metadata?.labels ?? {};
  const out: Record<string, string> = {};
  for (const [key, dim] of WELL_KNOWN_DIMENSIONS)
    if (out[dim] === undefined || labels[key] !== undefined) {
      out[dim] = labels[key] ?? "";
    }
  out["node_name"] = node.metadata?.name ?? "";
  // Node.status.phase is deprecated and unset by today's kubelets; Karpenter still exports it ("" then).
  out["phase"] = (node.status as { readonly phase?: string } | undefined)?.phase ?? "";
  // Karpenter: managed when a NodeClaim backs the node; its NodeClaims' Nodes carry the NodePool label.
  out["managed"] = String((labels["karpenter.sh/nodepool"] ?? "") !== "");
  return out;
}

type Obj = Readonly<Record<string, unknown>>;
const obj = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);
const limitsOf = (c: Obj): ResourceList => parseResourceList(obj(obj(c["resources"])["limits"]));

/**
 * A pod's limits as kube's resourcehelper.PodLimits (Karpenter's LimitsForPods): max(containers + sidecars, each
 * init container + the sidecars before it), plus spec.overhead, plus one pod slot.
 */
export function podLimits(spec: Obj): ResourceList {
  let sidecars: ResourceList = {};
  let initMax: ResourceList = {};
  for (const init of list(spec["initContainers"])) {
    if (init["restartPolicy"] === "Always") {
      sidecars = addResources(sidecars, limitsOf(init));
      initMax = maxResources(initMax, sidecars);
    } else initMax = maxResources(initMax, addResources(sidecars, limitsOf(init)));
  }
  const containers = addResources(...list(spec["containers"]).map(limitsOf), sidecars);
  return addResources(maxResources(containers, initMax), parseResourceList(obj(spec["overhead"])), { pods: 1 });
}

const isDaemon = (pod: Pod): boolean => (pod.metadata?.ownerReferences ?? []).some((o) => o.kind === "DaemonSet");
const terminal = (pod: Pod): boolean => pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed";

/** The six resource lists of one node's gauges, by metric. */
export interface NodeResources {
  readonly allocatable: ResourceList;
  readonly systemOverhead: ResourceList;
  readonly podRequests: ResourceList;
  readonly podLimits: ResourceList;
  readonly daemonRequests: ResourceList;
  readonly daemonLimits: ResourceList;
}

/**
 * A node's resources as Karpenter's state node holds them: allocatable, capacity − allocatable, and the requests
 * and limits of its non-terminal pods (and of those a DaemonSet owns).
 */
export function nodeResources(node: Node, pods: readonly Pod[]): NodeResources {
  const allocatable = parseResourceList(node.status?.allocatable);
  const capacity = parseResourceList(node.status?.capacity);
  const live = pods.filter((p) => !terminal(p));
  const daemons = live.filter(isDaemon);
  const spec = (p: Pod): Obj => obj(p.spec);
  return {
    allocatable,
    systemOverhead: Object.fromEntries(Object.entries(capacity).map(([k, v]) => [k, v - (allocatable[k] ?? 0)])),
    podRequests: addResources(...live.map((p) => podRequests(spec(p)))),
    podLimits: addResources(...live.map((p) => podLimits(spec(p)))),
    daemonRequests: addResources(...daemons.map((p) => podRequests(spec(p)))),
    daemonLimits: addResources(...daemons.map((p) => podLimits(spec(p)))),
  };
}

/** A resource amount as the gauges export it: cores for cpu (kerf holds millicores), base units otherwise. */
export function gaugeValue(resource: string, amount: number): number {
  return resource === "cpu" ? amount / 1000 : amount;
}

/** Seconds since the Node was created (0 when unknown), at `nowMs`. */
export function nodeLifetimeSeconds(node: Node, nowMs: number): number {
  const created = timeMs(node.metadata?.creationTimestamp);
  return created === undefined ? 0 : Math.max(0, (nowMs - created) / 1000);
}

/**
 * `karpenter_cluster_utilization_percent`: 100 × Σ pod requests / Σ allocatable per
 * resource with allocatable > 0.
 */
export function clusterUtilization(nodes: readonly NodeResources[]): Record<string, number> {
  const allocatable = addResources(...nodes.map((n) => n.allocatable));
  const used = addResources(...nodes.map((n) => n.podRequests));
  const out: Record<string, number> = {};
  for (const [name, total] of Object.entries(allocatable)) {
    if (total > 0) out[resourceType(name)] = (100 * (used[name] ?? 0)) / total;
  }
  return out;
}

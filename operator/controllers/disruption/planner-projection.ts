/**
 * What the planner thread gets of each Pod and Node: the fields the pure planner reads
 * (core/disruption/*, core/scheduling/*, core/provisioning/cluster-view.ts and the policies they call),
 * not the whole cached object. The thread keeps a copy of every cached object for the life of the
 * process, and at 10,000 Pods most of that copy was fields no decision reads (service-account token
 * volumes, container images and ports, pod IPs, node addresses and nodeInfo, heartbeat times): the
 * operator's memory with the thread went over its 300 MiB target (issue 21 item 2).
 *
 * Pods and Nodes only: they are the many objects; NodeClaims, NodePools, DaemonSets, PDBs and the
 * volume kinds travel whole. Metadata travels whole (names, labels, annotations, owner references,
 * timestamps are all read). Plans name objects and are read back from the operator's own caches
 * (planner-wire.ts rehydrate), so a projected object never leaves the thread.
 *
 * Contract: a planner change that reads a Pod or Node field not kept here must add it here; the test
 * (planner.test.ts) plans a cluster of fully populated objects both ways and compares the decisions.
 */

type Loose = Readonly<Record<string, unknown>>;

const isObject = (v: unknown): v is Loose => typeof v === "object" && v !== null && !Array.isArray(v);

/** The keys of `from` that are in `keep` (and set). */
function pick(from: unknown, keep: readonly string[]): Record<string, unknown> | undefined {
  if (!isObject(from)) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of keep) if (from[key] !== undefined) out[key] = from[key];
  return out;
}

/**
 * Pod spec fields the planner reads: placement (pod-spec.ts, topology-spec.ts, runtime-class.ts), resources
 * (requests of containers, init containers and sidecars, pod-level resources, overhead, DRA claims),
 * volumes (claims), priority and the grace period (candidates.ts, pod-blockers.ts).
 */
const POD_SPEC = [
  "nodeName",
  "nodeSelector",
  "affinity",
  "tolerations",
  "topologySpreadConstraints",
  "containers",
  "initContainers",
  "overhead",
  "resources",
  "resourceClaims",
  "runtimeClassName",
  "volumes",
  "priority",
  "priorityClassName",
  "terminationGracePeriodSeconds",
] as const;
/** Of a container: its requests and limits (resources.claims for DRA), host ports, and whether it is a sidecar. */
const CONTAINER = ["name", "resources", "restartPolicy"] as const;
/** Of a volume: its claim, by name or as an ephemeral claim's template (pod-spec.ts podClaims reads no other kind). */
const VOLUME = ["name", "persistentVolumeClaim", "ephemeral"] as const;
const isClaim = (v: unknown): boolean =>
  isObject(v) && (v["persistentVolumeClaim"] !== undefined || v["ephemeral"] !== undefined);
/** Metadata nothing in the planner reads, and unique to each object (so never shared by interning). */
const METADATA_DROPPED = new Set(["resourceVersion", "generateName", "managedFields", "selfLink"]);

function metadata(m: unknown): unknown {
  if (!isObject(m) || !Object.keys(m).some((k) => METADATA_DROPPED.has(k))) return m;
  return Object.fromEntries(Object.entries(m).filter(([k]) => !METADATA_DROPPED.has(k)));
}
/** Pod status: pending or terminal, Ready and PodScheduled conditions, do-not-disrupt duration, nomination. */
const POD_STATUS = ["phase", "conditions", "startTime", "nominatedNodeName"] as const;

function container(c: unknown): unknown {
  const out = pick(c, CONTAINER);
  if (out === undefined || !isObject(c)) return c;
  // Only host ports constrain placement (host-ports.ts); container ports alone are noise here.
  const ports = Array.isArray(c["ports"])
    ? (c["ports"] as unknown[]).filter((p) => isObject(p) && p["hostPort"] !== undefined)
    : [];
  if (ports.length > 0) out["ports"] = ports;
  return out;
}

const listOf = (v: unknown, each: (x: unknown) => unknown): unknown => (Array.isArray(v) ? v.map(each) : v);

/** The Pod as the planner reads it. */
export function projectPod(pod: unknown): unknown {
  if (!isObject(pod)) return pod;
  const spec = pick(pod["spec"], POD_SPEC);
  if (spec !== undefined) {
    if (spec["containers"] !== undefined) spec["containers"] = listOf(spec["containers"], container);
    if (spec["initContainers"] !== undefined) spec["initContainers"] = listOf(spec["initContainers"], container);
    if (Array.isArray(spec["volumes"])) {
      spec["volumes"] = (spec["volumes"] as unknown[]).filter(isClaim).map((v) => pick(v, VOLUME));
    }
  }
  const status = pick(pod["status"], POD_STATUS);
  return {
    metadata: metadata(pod["metadata"]),
    ...(spec === undefined ? {} : { spec }),
    ...(status === undefined ? {} : { status }),
  };
}

/** Node status fields the planner reads: its conditions (Ready) and its resources. */
const NODE_STATUS = ["conditions", "allocatable", "capacity"] as const;
/** Of a node condition (liveness and initialization read type, status, reason and when it last changed). */
const NODE_CONDITION = ["type", "status", "reason", "message", "lastTransitionTime"] as const;

/** The Node as the planner reads it: its spec (provider ID, taints, unschedulable) whole, its status lean. */
export function projectNode(node: unknown): unknown {
  if (!isObject(node)) return node;
  const status = pick(node["status"], NODE_STATUS);
  if (status?.["conditions"] !== undefined) {
    status["conditions"] = listOf(status["conditions"], (c) => pick(c, NODE_CONDITION) ?? c);
  }
  return { metadata: metadata(node["metadata"]), spec: node["spec"], ...(status === undefined ? {} : { status }) };
}

/** The projection of each ClusterView field that has one. */
const PROJECTIONS: Readonly<Record<string, (o: unknown) => unknown>> = { pods: projectPod, nodes: projectNode };

/** `obj` as the planner thread gets it when it is an element of the ClusterView field `field`. */
export function projectFor(field: string): ((o: unknown) => unknown) | undefined {
  return PROJECTIONS[field];
}

/** Converts a Kubernetes Pod (or pod template) object, as read from YAML or the API, into a SimPod (pure). */
import { addResources, maxResources, parseResourceList, type ResourceList } from "../../../policies/domain/quantity.ts";
import type { NodeSelectorRequirement } from "../../../policies/domain/requirements.ts";
import type { Toleration } from "../../../policies/domain/taints.ts";
import { hasDRARequirements } from "./dra.ts";
import { affinityTerms, spreadConstraints, weightedTerms } from "./topology-spec.ts";
import type { HostPort, PodClaim, PreferredNodeTerm, SimPod } from "./types.ts";

type Obj = Readonly<Record<string, unknown>>;

function obj(value: unknown): Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : {};
}

function list(value: unknown): Obj[] {
  return Array.isArray(value) ? value.map(obj) : [];
}

function strings(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj(value))) out[k] = String(v);
  return out;
}

/**
 * A container's requests as the apiserver stores them: `SetDefaults_Pod` gives every resource that
 * has a limit and no request a request equal to the limit (Karpenter relies on it for pods and does
 * it itself for DaemonSet templates, `daemonset.PodForDaemonSet`). Templates, scenario pods and API
 * pods all go through here, so defaulting again an already defaulted pod changes nothing.
 */
function requestsOf(container: Obj): ResourceList {
  const resources = obj(container["resources"]);
  return parseResourceList({ ...obj(resources["limits"]), ...obj(resources["requests"]) });
}

/** Resources that pod-level `spec.resources` may set (component-helpers `IsSupportedPodLevelResource`). */
function podLevelResource(name: string): boolean {
  return name === "cpu" || name === "memory" || name.startsWith("hugepages-");
}

/**
 * Pod-level `spec.resources` (PodLevelResources, Kubernetes 1.32+): a supported resource the pod
 * requests at pod level replaces the containers' aggregate for it, as `resourcehelper.PodRequests`
 * does. A pod-level limit without a pod-level request stands in for it only where no container
 * requests that resource: the apiserver's `defaultPodRequests` otherwise defaults it to the
 * containers' aggregate, which is what `aggregate` already holds.
 */
function withPodLevel(aggregate: ResourceList, spec: Obj): ResourceList {
  const resources = obj(spec["resources"]);
  const requests = parseResourceList(obj(resources["requests"]));
  const limits = parseResourceList(obj(resources["limits"]));
  let out: Record<string, number> | undefined;
  for (const [name, value] of Object.entries(limits)) {
    if (!podLevelResource(name) || name in requests || name in aggregate) continue;
    (out ??= { ...aggregate })[name] = value;
  }
  for (const [name, value] of Object.entries(requests)) {
    if (podLevelResource(name)) (out ??= { ...aggregate })[name] = value;
  }
  return out ?? aggregate;
}

/**
 * Pod requests as kube's `resourcehelper.PodRequests` (Karpenter's `resources.Ceiling`): max(sum
 * of containers + sidecars, each init container + the sidecars started before it), replaced by the
 * pod-level requests where set, plus `spec.overhead`, plus one pod slot. Computed once per pod.
 */
export function podRequests(spec: Obj): ResourceList {
  let sidecars: ResourceList = {};
  let initMax: ResourceList = {};
  for (const init of list(spec["initContainers"])) {
    const r = requestsOf(init);
    if (init["restartPolicy"] === "Always") {
      sidecars = addResources(sidecars, r);
      initMax = maxResources(initMax, sidecars);
    } else {
      initMax = maxResources(initMax, addResources(sidecars, r));
    }
  }
  const containers = addResources(...list(spec["containers"]).map(requestsOf), sidecars);
  const aggregate = withPodLevel(maxResources(containers, initMax), spec);
  return addResources(aggregate, parseResourceList(obj(spec["overhead"])), { pods: 1 });
}

function selectorRequirements(term: Obj): NodeSelectorRequirement[] {
  return list(term["matchExpressions"]).map((e) => ({
    key: String(e["key"]),
    operator: String(e["operator"]),
    values: Array.isArray(e["values"]) ? e["values"].map(String) : [],
  }));
}

function hostPorts(spec: Obj): HostPort[] {
  const containers = [
    ...list(spec["containers"]),
    ...list(spec["initContainers"]).filter((c) => c["restartPolicy"] === "Always"),
  ];
  return containers
    .flatMap((c) => list(c["ports"]))
    .filter((p) => typeof p["hostPort"] === "number" && p["hostPort"] > 0)
    .map((p) => ({
      hostIP: String(p["hostIP"] ?? "0.0.0.0"),
      port: Number(p["hostPort"]),
      protocol: String(p["protocol"] ?? "TCP"),
    }));
}

function nodeAffinity(affinity: Obj): { required: NodeSelectorRequirement[][]; preferred: PreferredNodeTerm[] } {
  const node = obj(affinity["nodeAffinity"]);
  const required = list(obj(node["requiredDuringSchedulingIgnoredDuringExecution"])["nodeSelectorTerms"]).map(
    selectorRequirements,
  );
  const preferred = list(node["preferredDuringSchedulingIgnoredDuringExecution"]).map((p) => ({
    weight: Number(p["weight"] ?? 0),
    requirements: selectorRequirements(obj(p["preference"])),
  }));
  return { required, preferred };
}

/**
 * The claims of the pod's volumes: `persistentVolumeClaim.claimName`, and for an ephemeral volume the
 * claim its controller creates, `<pod>-<volume>` (Karpenter's `GetPersistentVolumeClaim`).
 */
function podClaims(spec: Obj, podName: string): PodClaim[] {
  return list(spec["volumes"]).flatMap((v): PodClaim[] => {
    const pvc = obj(v["persistentVolumeClaim"]);
    if (typeof pvc["claimName"] === "string") return [{ name: pvc["claimName"] }];
    if (v["ephemeral"] === undefined) return [];
    const template = obj(obj(obj(v["ephemeral"])["volumeClaimTemplate"])["spec"]);
    const cls = template["storageClassName"];
    return [{ name: `${podName}-${String(v["name"] ?? "")}`, ephemeralClass: typeof cls === "string" ? cls : "" }];
  });
}

/** Identity of a pod built from a template (Deployment replica, DaemonSet pod). */
export interface PodIdentity {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly creationOrder?: number;
}

/** Builds a SimPod from a pod `metadata` + `spec` pair; throws QuantityError on a bad request quantity. */
export function simPodFromSpec(metadata: unknown, podSpec: unknown, identity: PodIdentity): SimPod {
  const spec = obj(podSpec);
  const affinity = obj(spec["affinity"]);
  const ns = identity.namespace;
  const { required, preferred } = nodeAffinity(affinity);
  const podAffinity = obj(affinity["podAffinity"]);
  const podAnti = obj(affinity["podAntiAffinity"]);
  const labels = strings(obj(metadata)["labels"]);
  const claims = podClaims(spec, identity.name);
  return {
    uid: identity.uid,
    name: identity.name,
    namespace: ns,
    labels,
    requests: podRequests(spec),
    nodeSelector: strings(spec["nodeSelector"]),
    requiredTerms: required,
    preferredTerms: preferred,
    tolerations: list(spec["tolerations"]) as Toleration[],
    spread: spreadConstraints(spec["topologySpreadConstraints"], labels),
    affinity: affinityTerms(podAffinity["requiredDuringSchedulingIgnoredDuringExecution"], ns),
    antiAffinity: affinityTerms(podAnti["requiredDuringSchedulingIgnoredDuringExecution"], ns),
    preferredAffinity: weightedTerms(podAffinity["preferredDuringSchedulingIgnoredDuringExecution"], ns),
    preferredAntiAffinity: weightedTerms(podAnti["preferredDuringSchedulingIgnoredDuringExecution"], ns),
    hostPorts: hostPorts(spec),
    ...(hasDRARequirements(spec) ? { dynamicResources: true } : {}),
    ...(identity.creationOrder === undefined ? {} : { creationOrder: identity.creationOrder }),
    ...(claims.length === 0 ? {} : { claims }),
  };
}

/**
 * SimPods of whole Pod objects, by object. Contract: a Pod object is not changed once read (the operator's caches
 * replace an updated object, never edit it; kerf simulate's documents are read once), so its SimPod is too. The
 * provisioner and the disruption planner build the bound pods of every node each time they plan: at 10,000 pods
 * that conversion was a third of a provisioning plan.
 */
const simPodsByObject = new WeakMap<object, SimPod>();

/** Builds a SimPod from a whole Pod object (the same SimPod for the same object, see simPodsByObject). */
export function simPodFromPod(pod: unknown, creationOrder?: number): SimPod {
  if (creationOrder !== undefined || typeof pod !== "object" || pod === null) return buildSimPod(pod, creationOrder);
  let sim = simPodsByObject.get(pod);
  if (sim === undefined) {
    sim = buildSimPod(pod, undefined);
    simPodsByObject.set(pod, sim);
  }
  return sim;
}

function buildSimPod(pod: unknown, creationOrder: number | undefined): SimPod {
  const metadata = obj(obj(pod)["metadata"]);
  const name = String(metadata["name"] ?? "pod");
  const namespace = String(metadata["namespace"] ?? "default");
  const uid = String(metadata["uid"] ?? `${namespace}/${name}`);
  return simPodFromSpec(metadata, obj(pod)["spec"], {
    name,
    namespace,
    uid,
    ...(creationOrder === undefined ? {} : { creationOrder }),
  });
}

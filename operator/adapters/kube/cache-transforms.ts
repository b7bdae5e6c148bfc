/**
 * What the informer caches keep of each object. Every kind loses metadata.managedFields and the
 * kubectl last-applied-configuration annotation (often most of an object's bytes; GitOps-applied
 * objects carry a full copy of themselves there). Pods also lose the container fields no scheduling,
 * drain or metric decision reads (env, command, probes, mounts, security context, …) and their
 * container statuses; Nodes lose status.images. Resources, ports (host ports), restartPolicy
 * (sidecars), names and images stay, as does everything outside containers. Contract: nothing in
 * the operator reads a dropped field — add it to a keep-list here before reading it.
 */
import type { KubernetesObject } from "@kubernetes/client-node";
import { withoutKeys } from "./object-shape.ts";
import { stripManagedFields } from "./paged-list.ts";

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

const CONTAINER_FIELDS_DROPPED = [
  "env",
  "envFrom",
  "command",
  "args",
  "workingDir",
  "livenessProbe",
  "readinessProbe",
  "startupProbe",
  "lifecycle",
  "volumeMounts",
  "volumeDevices",
  "securityContext",
  "terminationMessagePath",
  "terminationMessagePolicy",
  "imagePullPolicy",
  "stdin",
  "stdinOnce",
  "tty",
] as const;

const POD_STATUS_FIELDS_DROPPED = ["containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"] as const;

type Loose = Record<string, unknown>;

function dropLastApplied(obj: KubernetesObject): void {
  const annotations = obj.metadata?.annotations;
  if (obj.metadata !== undefined && annotations !== undefined)
    obj.metadata.annotations = withoutKeys(annotations, [LAST_APPLIED]);
}

function slimContainers(list: unknown): unknown {
  return Array.isArray(list) ? (list as Loose[]).map((c) => withoutKeys(c, CONTAINER_FIELDS_DROPPED)) : list;
}

/** Slims a Pod in place (it keeps its identity; the parts trimmed are rebuilt, see object-shape.ts). */
export function slimPod<T extends KubernetesObject>(pod: T): T {
  stripManagedFields(pod);
  dropLastApplied(pod);
  const p = pod as Loose & { spec?: Loose; status?: Loose };
  const spec = p.spec;
  if (spec !== undefined) {
    for (const key of ["containers", "initContainers", "ephemeralContainers"]) {
      if (spec[key] !== undefined) spec[key] = slimContainers(spec[key]);
    }
  }
  if (p.status !== undefined) p.status = withoutKeys(p.status, POD_STATUS_FIELDS_DROPPED);
  return pod;
}

/** Slims a Node in place. */
export function slimNode<T extends KubernetesObject>(node: T): T {
  stripManagedFields(node);
  dropLastApplied(node);
  const n = node as Loose & { status?: Loose };
  if (n.status !== undefined) n.status = withoutKeys(n.status, ["images"]);
  return node;
}

/** Slims any other kind in place. */
export function slimObject<T extends KubernetesObject>(obj: T): T {
  stripManagedFields(obj);
  dropLastApplied(obj);
  return obj;
}

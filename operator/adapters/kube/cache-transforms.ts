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
import { stripManagedFields } from "./paged-list.ts";

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

const CONTAINER_FIELDS_DROPPED = [
  "env", "envFrom", "command", "args", "workingDir", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle",
  "volumeMounts", "volumeDevices", "securityContext", "terminationMessagePath", "terminationMessagePolicy",
  "imagePullPolicy", "stdin", "stdinOnce", "tty",
] as const;

const POD_STATUS_FIELDS_DROPPED = ["containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"] as const;

type Loose = Record<string, unknown>;

function dropLastApplied(obj: KubernetesObject): void {
  const annotations = obj.metadata?.annotations;
  if (annotations !== undefined && LAST_APPLIED in annotations) delete annotations[LAST_APPLIED];
}

function slimContainers(list: unknown): void {
  if (!Array.isArray(list)) return;
  for (const container of list as Loose[]) for (const field of CONTAINER_FIELDS_DROPPED) delete container[field];
}

/** Slims a Pod in place. */
export function slimPod<T extends KubernetesObject>(pod: T): T {
  stripManagedFields(pod);
  dropLastApplied(pod);
  const { spec, status } = pod as Loose & { spec?: Loose; status?: Loose };
  if (spec !== undefined) for (const key of ["containers", "initContainers", "ephemeralContainers"]) slimContainers(spec[key]);
  if (status !== undefined) for (const field of POD_STATUS_FIELDS_DROPPED) delete status[field];
  return pod;
}

/** Slims a Node in place. */
export function slimNode<T extends KubernetesObject>(node: T): T {
  stripManagedFields(node);
  dropLastApplied(node);
  const status = (node as Loose & { status?: Loose }).status;
  if (status !== undefined) delete status["images"];
  return node;
}

/** Slims any other kind in place. */
export function slimObject<T extends KubernetesObject>(obj: T): T {
  stripManagedFields(obj);
  dropLastApplied(obj);
  return obj;
}

/**
 * Dynamic Resource Allocation as Karpenter v1.15 handles it by default (`--ignore-dra-requests=true`):
 * a pod that references a ResourceClaim (pod-level `spec.resourceClaims`, or a container's or init
 * container's `resources.claims`) is not simulated at all: it gets a permanent scheduling error (never
 * relaxed), no NodeClaim is sized for it, and a DaemonSet whose pods do is left out of a node's
 * overhead. kerf does not model devices (ResourceSlices, DeviceClasses), so it never sizes a node
 * without them; Karpenter's DRA simulation (the flag set false) is refused at configuration.
 */

type Obj = Readonly<Record<string, unknown>>;
const obj = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const nonEmpty = (v: unknown): boolean => Array.isArray(v) && v.length > 0;

/** Karpenter's message for such a pod (scheduler.go, NewDRAError), so searches for it carry over. */
export const DRA_REASON = "pod has Dynamic Resource Allocation requirements that are not yet supported by Karpenter";

/** Whether a pod spec references a ResourceClaim (Karpenter's pod.HasDRARequirements). */
export function hasDRARequirements(podSpec: unknown): boolean {
  const spec = obj(podSpec);
  if (nonEmpty(spec["resourceClaims"])) return true;
  const containers = [spec["initContainers"], spec["containers"]].flatMap((c) => (Array.isArray(c) ? c : []));
  return containers.some((c) => nonEmpty(obj(obj(c)["resources"])["claims"]));
}

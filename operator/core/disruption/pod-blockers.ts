/**
 * Pod-level disruption blockers (behaviour §4.2), over every pod bound to the node as Karpenter's
 * ValidatePodsDisruptable reads them: a `karpenter.sh/do-not-disrupt` in force on any active pod
 * (DaemonSet and mirror pods included: users annotate node agents to hold a node), then a
 * PodDisruptionBudget that would refuse the eviction of a pod the eviction API would be called for
 * (active, not a mirror pod, not tolerating the disrupted taint, not protected by do-not-disrupt):
 * none left to disrupt, or more than one PDB selecting the pod (the Eviction API refuses that). A PDB
 * with `unhealthyPodEvictionPolicy: AlwaysAllow` never holds a pod whose Ready condition is False.
 */
import { NEVER, tryParseDuration } from "../../../policies/domain/duration.ts";
import { untoleratedTaint } from "../../../policies/domain/taints.ts";
import type { PdbLike, Pod } from "../lifecycle/objects.ts";
import { Keys } from "../lifecycle/registration.ts";
import { timeMs } from "../lifecycle/objects.ts";
import { selectorMatches } from "../scheduling/selector.ts";
import type { LabelSelector } from "../scheduling/types.ts";
import type { Blocker } from "./types.ts";

export const DO_NOT_DISRUPT = Keys.doNotDisrupt;

export type { PdbLike } from "../lifecycle/objects.ts";

const podName = (pod: Pod): string => `${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}`;

/** Neither terminal nor terminating (Karpenter's IsActive). */
export const isActivePod = (pod: Pod): boolean =>
  pod.status?.phase !== "Succeeded" && pod.status?.phase !== "Failed" && pod.metadata?.deletionTimestamp === undefined;

/** Owned by its Node (a static pod's mirror), by owner reference as Karpenter's IsOwnedByNode reads it. */
const ownedByNode = (pod: Pod): boolean =>
  (pod.metadata?.ownerReferences ?? []).some((o) => o.apiVersion === "v1" && o.kind === "Node");

const DISRUPTED_NO_SCHEDULE = [{ key: Keys.disruptedTaint, effect: "NoSchedule" }] as const;

/**
 * The do-not-disrupt value as Karpenter parses it: "true", or a positive Go duration; anything else
 * ("True", "yes", "Never", "0s") is invalid and protects nothing. Undefined without the annotation.
 */
export type DoNotDisrupt =
  { readonly kind: "always" } | { readonly kind: "for"; readonly ms: number } | { readonly kind: "invalid" };

export function parseDoNotDisrupt(value: string | undefined): DoNotDisrupt | undefined {
  if (value === undefined) return undefined;
  if (value === "true") return { kind: "always" };
  const ms = value === NEVER ? undefined : tryParseDuration(value);
  return typeof ms === "number" && ms > 0 ? { kind: "for", ms } : { kind: "invalid" };
}

/**
 * Why the pod's do-not-disrupt value is invalid (Karpenter's message, for its InvalidDoNotDisruptAnnotation
 * Event), or undefined when it is absent or valid.
 */
export function invalidDoNotDisrupt(pod: Pod): string | undefined {
  const value = pod.metadata?.annotations?.[DO_NOT_DISRUPT];
  if (parseDoNotDisrupt(value)?.kind !== "invalid") return undefined;
  const ms = value === NEVER ? undefined : tryParseDuration(value);
  const shown = value ?? "";
  return typeof ms === "number" ? `duration "${shown}" must be positive` : `failed to parse "${shown}" as a duration`;
}

/**
 * Whether the pod's do-not-disrupt annotation is in force at `now` (Karpenter's IsDoNotDisruptActive):
 * a duration counts from `status.startTime`; a pod not started yet is protected.
 */
export function doNotDisruptActive(pod: Pod, now: number): boolean {
  const parsed = parseDoNotDisrupt(pod.metadata?.annotations?.[DO_NOT_DISRUPT]);
  if (parsed === undefined || parsed.kind === "invalid") return false;
  if (parsed.kind === "always") return true;
  const started = timeMs(pod.status?.startTime);
  return started === undefined || now < started + parsed.ms;
}

/** Whether one of the pod's owners is a StatefulSet (Karpenter's IsOwnedByStatefulSet: any owner reference). */
const ownedByStatefulSet = (pod: Pod): boolean =>
  (pod.metadata?.ownerReferences ?? []).some((o) => o.kind === "StatefulSet" && o.apiVersion === "apps/v1");

/** A static pod's mirror: the mirror annotation or a Node owner. */
const isMirrorPod = (pod: Pod): boolean =>
  pod.metadata?.annotations?.["kubernetes.io/config.mirror"] !== undefined || ownedByNode(pod);

/**
 * Whether a pod would have to move if its node went away (Karpenter's IsReschedulable). A terminating
 * StatefulSet pod does: the StatefulSet recreates it under the same name once it is gone, so it needs a
 * place, and a node holding only such a pod is not empty.
 */
export function isReschedulable(pod: Pod): boolean {
  const phase = pod.status?.phase;
  if (phase === "Succeeded" || phase === "Failed" || isMirrorPod(pod)) return false;
  if (pod.metadata?.deletionTimestamp !== undefined && !ownedByStatefulSet(pod)) return false;
  return !(pod.metadata?.ownerReferences ?? []).some((o) => o.kind === "DaemonSet" && o.controller === true);
}

/** Whether disruption would call the eviction API for the pod (Karpenter's IsEvictable): only those PDBs can hold. */
export function isEvictable(pod: Pod, now: number): boolean {
  const tolerates = untoleratedTaint(DISRUPTED_NO_SCHEDULE, pod.spec?.tolerations ?? []) === undefined;
  return isActivePod(pod) && !tolerates && !ownedByNode(pod) && !doNotDisruptActive(pod, now);
}

/** PDBs by namespace, for repeated lookups within one pass. */
export class PdbIndex {
  /**
   * Per namespace, PDBs under the first matchLabels pair of their selector (`key=value`; a pod can
   * only match one whose pair it carries) or under "" (no matchLabels: checked for every pod), each
   * with its position in the input. A pod is matched against its own labels' buckets only, not every
   * PDB of the namespace (10,000 pods and 2,000 PDBs in one namespace were 20M selector matches).
   */
  private readonly byNamespace = new Map<string, Map<string, { pdb: PdbLike; at: number }[]>>();

  constructor(pdbs: readonly PdbLike[]) {
    for (const [at, pdb] of pdbs.entries()) {
      const selector = pdb.spec?.selector as LabelSelector | null | undefined;
      if (selector === undefined || selector === null) continue;
      const ns = pdb.metadata?.namespace ?? "";
      let buckets = this.byNamespace.get(ns);
      if (buckets === undefined) {
        buckets = new Map();
        this.byNamespace.set(ns, buckets);
      }
      const first = Object.entries(selector.matchLabels ?? {})[0];
      const key = first === undefined ? "" : `${first[0]}=${first[1]}`;
      const bucket = buckets.get(key);
      if (bucket === undefined) buckets.set(key, [{ pdb, at }]);
      else bucket.push({ pdb, at });
    }
  }

  /**
   * The PDBs selecting `pod`, in input order (a null selector selects nothing, an empty
   * one everything in the namespace).
   */
  selecting(pod: Pod): PdbLike[] {
    const buckets = this.byNamespace.get(pod.metadata?.namespace ?? "");
    if (buckets === undefined) return [];
    const labels = pod.metadata?.labels ?? {};
    const found = [...(buckets.get("") ?? [])];
    for (const [k, v] of Object.entries(labels)) found.push(...(buckets.get(`${k}=${v}`) ?? []));
    return found
      .filter((e) => selectorMatches(e.pdb.spec?.selector as LabelSelector, labels))
      .sort((a, b) => a.at - b.at)
      .map((e) => e.pdb);
  }
}

/** A PDB with `unhealthyPodEvictionPolicy: AlwaysAllow` lets a pod whose Ready condition is False go. */
function evictableWhenUnhealthy(pod: Pod, pdb: PdbLike): boolean {
  return (
    pdb.spec?.unhealthyPodEvictionPolicy === "AlwaysAllow" &&
    (pod.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "False")
  );
}

function pdbBlocker(pod: Pod, pdbs: PdbIndex, now: number): Blocker | undefined {
  if (!isEvictable(pod, now)) return undefined;
  const selecting = pdbs.selecting(pod);
  if (selecting.length > 1) {
    const names = selecting.map((p) => p.metadata?.name ?? "").join(", ");
    return {
      kind: "pdb",
      message: `pod ${podName(pod)} is selected by more than one PodDisruptionBudget (${names}); eviction would fail`,
    };
  }
  const pdb = selecting[0];
  const allows = pdb === undefined || (pdb.status?.disruptionsAllowed ?? 0) > 0 || evictableWhenUnhealthy(pod, pdb);
  if (allows) return undefined;
  return {
    kind: "pdb",
    message:
      `PodDisruptionBudget ${pdb.metadata?.namespace ?? ""}/${pdb.metadata?.name ?? ""} ` +
      `allows no disruption of pod ${podName(pod)}`,
  };
}

/**
 * A PDB whose spec forbids every eviction: maxUnavailable 0 or "0%", or minAvailable "100%"
 * (Karpenter's isFullyBlocking).
 */
function fullyBlocking(pdb: PdbLike): boolean {
  const spec = pdb.spec as { maxUnavailable?: unknown; minAvailable?: unknown } | undefined;
  return spec?.maxUnavailable === 0 || spec?.maxUnavailable === "0%" || spec?.minAvailable === "100%";
}

/**
 * Whether a pod of a node going away needs a new place now (Karpenter's IsCurrentlyReschedulable): it
 * is reschedulable, no do-not-disrupt in force holds it, and its eviction is not fully blocked (more
 * than one PDB selects it, or its PDB forbids every eviction by spec). A blocked pod stays where it is
 * until the block lifts; capacity launched for it would sit idle for as long.
 */
export function currentlyReschedulable(pod: Pod, pdbs: PdbIndex, now: number): boolean {
  if (!isReschedulable(pod)) return false;
  if (isActivePod(pod) && doNotDisruptActive(pod, now)) return false;
  if (!isEvictable(pod, now)) return true;
  const selecting = pdbs.selecting(pod);
  if (selecting.length > 1) return false;
  const pdb = selecting[0];
  return pdb === undefined || evictableWhenUnhealthy(pod, pdb) || !fullyBlocking(pdb);
}

/**
 * The first pod-level blocker among `pods` (every pod bound to the node, whatever it is), if any:
 * do-not-disrupt on any pod first, then PDBs, in Karpenter's order.
 */
export function podBlocker(pods: readonly Pod[], pdbs: PdbIndex, now: number): Blocker | undefined {
  for (const pod of pods) {
    if (isActivePod(pod) && doNotDisruptActive(pod, now)) {
      return {
        kind: "do-not-disrupt",
        message: `pod ${podName(pod)} has "${DO_NOT_DISRUPT}": "${pod.metadata?.annotations?.[DO_NOT_DISRUPT] ?? ""}"`,
      };
    }
  }
  for (const pod of pods) {
    const blocker = pdbBlocker(pod, pdbs, now);
    if (blocker !== undefined) return blocker;
  }
  return undefined;
}

/**
 * Pure decisions for the volume-detach wait of node termination (karpenter-behaviour.md §3.2 step 3;
 * Karpenter's awaitVolumeDetachment): after the drain and before the instance is terminated, wait
 * until no storage.k8s.io/v1 VolumeAttachment for the Node is left — so a drained pod's volume can
 * attach elsewhere without waiting out the cloud's force-detach — except attachments that cannot
 * go away by draining. The wait is bypassed once the terminationGracePeriod deadline has passed.
 */
import type { Pod } from "../lifecycle/objects.ts";
import { timeMs } from "../lifecycle/objects.ts";
import { isMirror, toleratesDisruption } from "./drain-plan.ts";

/** A VolumeAttachment as much as the decision reads. */
export interface VolumeAttachmentLike {
  readonly metadata?: { readonly name?: string | undefined } | undefined;
  readonly spec?:
    | {
        readonly nodeName?: string | undefined;
        readonly source?: { readonly persistentVolumeName?: string | undefined } | undefined;
      }
    | undefined;
}

/** A pod volume's claim, as the pod names it (only the fields read here). */
interface PodVolume {
  readonly name?: string | undefined;
  readonly persistentVolumeClaim?: { readonly claimName?: string | undefined } | undefined;
  readonly ephemeral?: unknown;
}

/** A pod with its volumes (client-node's V1Pod fits). */
export type PodWithVolumes = Pod & {
  readonly spec?: { readonly volumes?: readonly PodVolume[] | undefined } | undefined;
};

/** A PersistentVolumeClaim by namespace and name. */
export interface ClaimRef {
  readonly namespace: string;
  readonly name: string;
}

/** How long a deleted pod may take before Karpenter calls it stuck terminating (and no longer drainable). */
export const STUCK_TERMINATING_MS = 60_000;

/**
 * Karpenter's !pod.IsDrainable: a pod the drain leaves on the Node — a mirror pod, one tolerating
 * karpenter.sh/disrupted:NoSchedule, or one stuck terminating for over a minute.
 */
export function isUndrainable(pod: Pod, nowMs: number): boolean {
  if (isMirror(pod) || toleratesDisruption(pod)) return true;
  const deleted = timeMs(pod.metadata?.deletionTimestamp);
  return deleted !== undefined && nowMs - deleted > STUCK_TERMINATING_MS;
}

/**
 * The claims of one pod: persistentVolumeClaim volumes, and generic ephemeral volumes
 * (their claim is "<pod>-<volume>").
 */
function claimsOf(pod: PodWithVolumes): ClaimRef[] {
  const namespace = pod.metadata?.namespace ?? "";
  return (pod.spec?.volumes ?? []).flatMap((v) => {
    const claim = v.persistentVolumeClaim?.claimName;
    if (claim !== undefined && claim !== "") return [{ namespace, name: claim }];
    return v.ephemeral === undefined ? [] : [{ namespace, name: `${pod.metadata?.name ?? ""}-${v.name ?? ""}` }];
  });
}

/**
 * The PersistentVolumeClaims held by the Node's undrainable pods: their volumes'
 * attachments do not block termination.
 */
export function claimsOfUndrainablePods(pods: readonly PodWithVolumes[], nowMs: number): ClaimRef[] {
  return pods.filter((p) => isUndrainable(p, nowMs)).flatMap(claimsOf);
}

/**
 * The attachments termination waits for: those of the Node that name a PersistentVolume, minus the
 * volumes of undrainable pods (`exemptVolumes`: PersistentVolume names). An attachment without a
 * PersistentVolume (an inline CSI volume) never blocks, as in Karpenter.
 */
export function blockingAttachments<T extends VolumeAttachmentLike>(
  attachments: readonly T[],
  nodeName: string,
  exemptVolumes: ReadonlySet<string>,
): T[] {
  return attachments.filter((va) => {
    const volume = va.spec?.source?.persistentVolumeName ?? "";
    return va.spec?.nodeName === nodeName && volume !== "" && !exemptVolumes.has(volume);
  });
}

/** Whether the terminationGracePeriod deadline (if any) has passed: from then on nothing waits. */
export function deadlinePassed(nowMs: number, deadlineMs: number | undefined): boolean {
  return deadlineMs !== undefined && nowMs >= deadlineMs;
}

/** The VolumesDetached condition termination writes on the NodeClaim (Karpenter's statuses and reasons). */
export interface VolumesDetachedCondition {
  readonly type: "VolumesDetached";
  readonly status: "True" | "False" | "Unknown";
  readonly reason: string;
  readonly message?: string;
}

/** The decision of one pass. */
export interface VolumeDetachDecision {
  /** True when termination may go on to terminate the instance. */
  readonly proceed: boolean;
  readonly condition: VolumesDetachedCondition;
  /** When to look again while waiting (ms): the poll interval, or sooner if the deadline comes first. */
  readonly retryInMs?: number;
}

/** Poll interval while waiting (Karpenter requeues every second); deletions of attachments also wake the NodeClaim. */
export const VOLUME_POLL_MS = 1000;

/**
 * One pass over the Node's blocking attachments: none → VolumesDetached=True, proceed; some and the
 * deadline not passed → VolumesDetached=Unknown (AwaitingVolumeDetachment), wait; some and the
 * deadline passed → VolumesDetached=False (TerminationGracePeriodElapsed), proceed.
 */
export function volumeDetachDecision(
  blocking: readonly VolumeAttachmentLike[],
  nowMs: number,
  deadlineMs: number | undefined,
): VolumeDetachDecision {
  if (blocking.length === 0)
    return { proceed: true, condition: { type: "VolumesDetached", status: "True", reason: "VolumesDetached" } };
  if (deadlinePassed(nowMs, deadlineMs)) {
    return {
      proceed: true,
      condition: {
        type: "VolumesDetached",
        status: "False",
        reason: "TerminationGracePeriodElapsed",
        message: "TerminationGracePeriodElapsed",
      },
    };
  }
  const names = blocking.map((va) => va.metadata?.name ?? "").join(", ");
  const retryInMs =
    deadlineMs === undefined ? VOLUME_POLL_MS : Math.max(1, Math.min(VOLUME_POLL_MS, deadlineMs - nowMs));
  return {
    proceed: false,
    condition: {
      type: "VolumesDetached",
      status: "Unknown",
      reason: "AwaitingVolumeDetachment",
      message: `Awaiting deletion of VolumeAttachments: ${names}`,
    },
    retryInMs,
  };
}

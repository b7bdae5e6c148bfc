/**
 * Karpenter's own intake checks on a pod kube-scheduler has failed (karpenter-behaviour.md §1.1):
 * a pod whose node requirements resolve `karpenter.sh/nodepool` to DoesNotExist asks not to run on
 * a Karpenter node (e.g. a Karpenter or kerf replica) and is ignored — no simulation, no
 * FailedScheduling event (Karpenter's validateKarpenterManagedLabelCanExist).
 */
import { Label } from "../../../policies/domain/labels.ts";
import type { Pod } from "../lifecycle/objects.ts";
import {
  Requirement,
  RequirementError,
  Requirements,
  type NodeSelectorRequirement,
} from "../../../policies/domain/requirements.ts";

/** A node selector term as the API sends it. */
interface SelectorTerm {
  readonly matchExpressions?: readonly NodeSelectorRequirement[] | undefined;
}

/** The pod fields the intake checks read (client-node's V1Pod and raw pod JSON fit). */
export interface SchedulingPod {
  readonly spec?:
    | {
        readonly nodeSelector?: Readonly<Record<string, string>> | undefined;
        readonly affinity?:
          | {
              readonly nodeAffinity?:
                | {
                    readonly requiredDuringSchedulingIgnoredDuringExecution?:
                      { readonly nodeSelectorTerms?: readonly SelectorTerm[] | undefined } | undefined;
                    readonly preferredDuringSchedulingIgnoredDuringExecution?:
                      | readonly {
                          readonly weight?: number | undefined;
                          readonly preference?: SelectorTerm | undefined;
                        }[]
                      | undefined;
                  }
                | undefined;
            }
          | undefined;
      }
    | undefined;
}

/** The heaviest preferred term (the first one on a tie). */
function heaviestPreference(pod: SchedulingPod): SelectorTerm | undefined {
  let best: { readonly weight?: number | undefined; readonly preference?: SelectorTerm | undefined } | undefined;
  for (const p of pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []) {
    if (best === undefined || (p.weight ?? 0) > (best.weight ?? 0)) best = p;
  }
  return best?.preference;
}

/**
 * The pod's node requirements as Karpenter reads them at intake (scheduling.NewPodRequirements):
 * nodeSelector ∩ the heaviest preferred term (a preference counts as required until relaxed) ∩ the
 * first required term (later terms are alternatives relaxation may fall back to). Throws
 * RequirementError on a malformed requirement.
 */
export function intakeRequirements(pod: SchedulingPod): Requirements {
  const firstRequired =
    pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.[0];
  const expressions = [
    ...(heaviestPreference(pod)?.matchExpressions ?? []),
    ...(firstRequired?.matchExpressions ?? []),
  ];
  return Requirements.fromLabels(pod.spec?.nodeSelector).intersect(
    new Requirements(expressions.map((e) => Requirement.fromSelector(e))),
  );
}

/**
 * Whether the pod asks not to run on a Karpenter node: its intake requirements resolve
 * `karpenter.sh/nodepool` to DoesNotExist. A malformed requirement answers false here (it is
 * another check's finding, reported with an event).
 */
export function optsOutOfKarpenter(pod: SchedulingPod): boolean {
  try {
    return intakeRequirements(pod).get(Label.nodePool)?.operator() === "DoesNotExist";
  } catch (error) {
    if (error instanceof RequirementError) return false;
    throw error;
  }
}

/**
 * Whether a DaemonSet or a Node (a static pod's mirror) controls the pod: Karpenter's IsProvisionable never finds
 * capacity for such a pod, the DaemonSet controller or the kubelet places it where its node is.
 */
export const ownedByDaemonSetOrNode = (pod: Pod): boolean =>
  (pod.metadata?.ownerReferences ?? []).some(
    (o) => o.controller === true && (o.kind === "DaemonSet" || o.kind === "Node"),
  );

/**
 * Kubernetes Events users must see: one constructor per reason
 * (karpenter-behaviour.md §9); the kube adapter writes them.
 */

/** The object an Event is about. */
export interface InvolvedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly uid?: string;
}

/** An Event to publish; `dedupeKey` suppresses repeats within the recorder's window. */
export interface OperatorEvent {
  readonly involved: InvolvedObject;
  readonly type: "Normal" | "Warning";
  readonly reason: string;
  readonly message: string;
  readonly dedupeKey?: string;
}

interface Meta {
  readonly metadata?:
    | { readonly name?: string | undefined; readonly namespace?: string | undefined; readonly uid?: string | undefined }
    | undefined;
}

function ref(apiVersion: string, kind: string, obj: Meta): InvolvedObject {
  const m = obj.metadata ?? {};
  return {
    apiVersion,
    kind,
    name: m.name ?? "",
    ...(m.namespace === undefined ? {} : { namespace: m.namespace }),
    ...(m.uid === undefined ? {} : { uid: m.uid }),
  };
}

const nodeClaimRef = (nc: Meta): InvolvedObject => ref("karpenter.sh/v1", "NodeClaim", nc);
const nodeRef = (node: Meta): InvolvedObject => ref("v1", "Node", node);
const podRef = (pod: Meta): InvolvedObject => ref("v1", "Pod", pod);
const nodePoolRef = (np: Meta): InvolvedObject => ref("karpenter.sh/v1", "NodePool", np);

/** The pod will run on a NodeClaim or Node the provisioner chose. */
export function nominated(pod: Meta, target: string): OperatorEvent {
  return { involved: podRef(pod), type: "Normal", reason: "Nominated", message: `Pod should schedule on: ${target}` };
}

/** The provisioner could not place the pod. */
export function failedScheduling(pod: Meta, error: string): OperatorEvent {
  return {
    involved: podRef(pod),
    type: "Warning",
    reason: "FailedScheduling",
    message: `Failed to schedule pod, ${error}`,
    dedupeKey: error,
  };
}

/**
 * kerf extension (kerf.dev/off-schedule): a pool that would launch a node for the pod is off until `until`. Its own
 * reason, so it cannot be mistaken for one of Karpenter's; deduplicated per pool and end of window.
 */
export function nodePoolOff(pod: Meta, nodePool: string, until: Date | undefined): OperatorEvent {
  const when = until === undefined ? "with no end in sight" : `until ${until.toISOString()}`;
  const message =
    `NodePool ${nodePool} is off (kerf.dev/off-schedule) ${when}: ` + "it launches no node for this pod before then";
  const dedupeKey = `${nodePool}/${until?.toISOString() ?? ""}`;
  return { involved: podRef(pod), type: "Normal", reason: "NodePoolOff", message, dedupeKey };
}

/** No instance type satisfies a NodePool's requirements. */
export function noCompatibleInstanceTypes(nodePool: Meta): OperatorEvent {
  return {
    involved: nodePoolRef(nodePool),
    type: "Warning",
    reason: "NoCompatibleInstanceTypes",
    message: "NodePool requirements filtered out all compatible available instance types",
  };
}

/**
 * A static NodePool (spec.replicas) while the StaticCapacity feature gate is off: kerf, as Karpenter,
 * keeps no nodes for it; kerf says so (Karpenter is silent).
 */
export function staticCapacityDisabled(nodePool: Meta): OperatorEvent {
  return {
    involved: nodePoolRef(nodePool),
    type: "Warning",
    reason: "StaticCapacityDisabled",
    message:
      "NodePool sets spec.replicas but the StaticCapacity feature gate is off: no nodes are kept for it " +
      "(start the operator with --feature-gates StaticCapacity=true)",
  };
}

/** A static NodePool cannot reach its replicas: limits.nodes leaves no room. */
export function staticNodeLimitReached(nodePool: Meta, current: number, desired: number, limit: number): OperatorEvent {
  return {
    involved: nodePoolRef(nodePool),
    type: "Warning",
    reason: "NodeLimitReached",
    message: `NodePool has ${current} of ${desired} replicas and limits.nodes ${limit} leaves no room for more`,
    dedupeKey: `${current}/${desired}/${limit}`,
  };
}

/** The launch hit insufficient capacity; the NodeClaim is deleted and the pods retried. */
export function insufficientCapacity(nc: Meta, error: string): OperatorEvent {
  return {
    involved: nodeClaimRef(nc),
    type: "Warning",
    reason: "InsufficientCapacityError",
    message: `NodeClaim ${nc.metadata?.name ?? ""} event: ${error}`,
  };
}

/** The EC2NodeClass is not ready, so the NodeClaim cannot launch. */
export function nodeClassNotReady(nc: Meta, error: string): OperatorEvent {
  return {
    involved: nodeClaimRef(nc),
    type: "Warning",
    reason: "NodeClassNotReady",
    message: `NodeClaim ${nc.metadata?.name ?? ""} event: ${error}`,
  };
}

/** A Node registered without the karpenter.sh/unregistered taint. */
export function unregisteredTaintMissing(nc: Meta): OperatorEvent {
  return {
    involved: nodeClaimRef(nc),
    type: "Warning",
    reason: "UnregisteredTaintMissing",
    message: "Node registered without the karpenter.sh/unregistered:NoExecute taint",
  };
}

/** The NodeClaim is being disrupted for `reason` (launch_timeout, registration_timeout, …). */
export function disrupted(nc: Meta, reason: string): OperatorEvent {
  return {
    involved: nodeClaimRef(nc),
    type: "Normal",
    reason: "Disrupted",
    message: `Disrupting NodeClaim: ${reason}`,
  };
}

/**
 * Node repair is blocked: too many of the NodePool's (or the cluster's) Nodes are unhealthy. On the Node,
 * with Karpenter's reason; deduplicated per Node.
 */
export function nodeRepairBlocked(node: Meta, message: string): OperatorEvent {
  return { involved: nodeRef(node), type: "Warning", reason: "NodeRepairBlocked", message, dedupeKey: message };
}

/** A pod's karpenter.sh/do-not-disrupt value does not parse: disruption ignores it (Karpenter's Event). */
export function invalidDoNotDisruptAnnotation(pod: Meta, message: string): OperatorEvent {
  return {
    involved: podRef(pod),
    type: "Warning",
    reason: "InvalidDoNotDisruptAnnotation",
    message: `Invalid karpenter.sh/do-not-disrupt annotation: ${message}, ignoring annotation`,
    dedupeKey: message,
  };
}

/** A pod was evicted while draining a node. */
export function evicted(pod: Meta): OperatorEvent {
  return { involved: podRef(pod), type: "Normal", reason: "Evicted", message: "Evicted pod: Draining node" };
}

/** Draining is blocked (PDB, do-not-disrupt). */
export function failedDraining(node: Meta, why: string): OperatorEvent {
  return {
    involved: nodeRef(node),
    type: "Warning",
    reason: "FailedDraining",
    message: `Failed to drain node, ${why}`,
    dedupeKey: why,
  };
}

/**
 * Pods will be deleted when the terminationGracePeriod expires: on the NodeClaim when its deadline is set, on the Node
 * on each drain pass (deduplicated).
 */
export function terminationGracePeriodExpiring(on: "Node" | "NodeClaim", obj: Meta, deadline: string): OperatorEvent {
  return {
    involved: on === "Node" ? nodeRef(obj) : nodeClaimRef(obj),
    type: "Warning",
    reason: "TerminationGracePeriodExpiring",
    message: `All pods will be deleted by ${deadline}`,
    dedupeKey: deadline,
  };
}

/** Go's time.Time String() of a UTC instant, as Karpenter's messages print times: 2030-01-01 00:05:00 +0000 UTC. */
function goTime(ms: number): string {
  return `${new Date(ms)
    .toISOString()
    .replace("T", " ")
    .replace(/\.000Z$|Z$/, "")
    .replace(/(\.\d*?)0+$/, "$1")} +0000 UTC`;
}

/** A pod deleted at the terminationGracePeriod deadline, past its PDB and do-not-disrupt (Karpenter's Disrupted). */
export function podDeletedAtDeadline(
  pod: Meta & { readonly spec?: { readonly terminationGracePeriodSeconds?: number | undefined } | undefined },
  graceSeconds: number,
  deadlineMs: number,
): OperatorEvent {
  const own = pod.spec?.terminationGracePeriodSeconds ?? 30;
  return {
    involved: podRef(pod),
    type: "Normal",
    reason: "Disrupted",
    message:
      `Deleting the pod to accommodate the terminationTime ${goTime(deadlineMs)} of the node. The pod was granted ` +
      `${graceSeconds} seconds of grace-period of its ${own} terminationGracePeriodSeconds. This bypasses the PDB of ` +
      "the pod and the do-not-disrupt annotation.",
  };
}

/** The drained Node waits for its VolumeAttachments to go before the instance is terminated. */
export function awaitingVolumeDetachment(node: Meta, attachments: readonly string[]): OperatorEvent {
  const shown =
    attachments.length > 5
      ? `${attachments.slice(0, 5).join(", ")} and ${attachments.length - 5} other(s)`
      : attachments.join(", ");
  return {
    involved: nodeRef(node),
    type: "Normal",
    reason: "AwaitingVolumeDetachment",
    message: `Awaiting deletion of bound volumeattachments (${shown})`,
    dedupeKey: "awaiting",
  };
}

/** The instance could not be terminated. */
export function failedTermination(nc: Meta, error: string): OperatorEvent {
  return {
    involved: nodeClaimRef(nc),
    type: "Warning",
    reason: "FailedTermination",
    message: `Failed to terminate NodeClaim, ${error}`,
    dedupeKey: error,
  };
}

/**
 * A refresh of the instance-type catalog from AWS failed (kerf's reason; Karpenter only logs it): the
 * EC2NodeClass keeps launching from the last good answer, or the bundled data before any.
 */
export function catalogRefreshFailed(nodeClass: Meta, error: string, fallback: string): OperatorEvent {
  return {
    involved: ref("karpenter.k8s.aws/v1", "EC2NodeClass", nodeClass),
    type: "Warning",
    reason: "InstanceTypeRefreshFailed",
    message: `${error}; using ${fallback}`,
    dedupeKey: error,
  };
}

/** A deleted EC2NodeClass keeps its finalizer until the NodeClaims that use it are gone. */
export function waitingOnNodeClaimTermination(nodeClass: Meta, nodeClaims: readonly string[]): OperatorEvent {
  const shown =
    nodeClaims.length > 5
      ? `${nodeClaims.slice(0, 5).join(", ")} and ${nodeClaims.length - 5} other(s)`
      : nodeClaims.join(", ");
  return {
    involved: ref("karpenter.k8s.aws/v1", "EC2NodeClass", nodeClass),
    type: "Normal",
    reason: "WaitingOnNodeClaimTermination",
    message: `Waiting on NodeClaim termination for ${shown}`,
    dedupeKey: shown,
  };
}

/** Launch-template GC deleted templates of the EC2NodeClass that no launch can use any more (kerf's own). */
export function launchTemplatesDeleted(nodeClass: Meta, names: readonly string[], why: string): OperatorEvent {
  const shown =
    names.length > 3 ? `${names.slice(0, 3).join(", ")} and ${names.length - 3} other(s)` : names.join(", ");
  const involved = ref("karpenter.k8s.aws/v1", "EC2NodeClass", nodeClass);
  const message = `Deleted launch templates ${shown} (${why})`;
  return { involved, type: "Normal", reason: "LaunchTemplatesDeleted", message };
}

/** Launch-template GC could not delete a template of the EC2NodeClass (kerf's own; e.g. a missing IAM right). */
export function launchTemplateDeletionFailed(nodeClass: Meta, error: string): OperatorEvent {
  const involved = ref("karpenter.k8s.aws/v1", "EC2NodeClass", nodeClass);
  const message = `${error}; retried next pass`;
  return { involved, type: "Warning", reason: "LaunchTemplateDeletionFailed", message, dedupeKey: error };
}

/**
 * An interruption notice (SpotInterrupted, InstanceStopping, …,
 * TerminatingOnInterruption) on a NodeClaim or its Node.
 */
export function interruptionNotice(
  on: "NodeClaim" | "Node",
  obj: Meta,
  notice: { readonly reason: string; readonly message: string; readonly type: "Normal" | "Warning" },
): OperatorEvent {
  // A message naming the NodeClaim ("…termination for the NodeClaim") names the Node on the Node's Event.
  return {
    involved: on === "NodeClaim" ? nodeClaimRef(obj) : nodeRef(obj),
    type: notice.type,
    reason: notice.reason,
    message: notice.message.replace(/NodeClaim$/, on),
  };
}

/**
 * A NodeClaim/Node (or a whole NodePool) cannot be disrupted now, and why (budget,
 * PDB, do-not-disrupt, nomination).
 */
export function disruptionBlocked(on: "NodeClaim" | "Node" | "NodePool", obj: Meta, why: string): OperatorEvent {
  const involved = on === "NodeClaim" ? nodeClaimRef(obj) : on === "Node" ? nodeRef(obj) : nodePoolRef(obj);
  // Karpenter's message is the blocker itself, its first letter capitalized (pretty.Sentence).
  const message = why === "" ? why : `${why.charAt(0).toUpperCase()}${why.slice(1)}`;
  return { involved, type: "Normal", reason: "DisruptionBlocked", message, dedupeKey: why };
}

/** A NodePool whose budget allows no disruption for a reason now (Karpenter's NodePoolBlockedForDisruptionReason). */
export function nodePoolDisruptionBlocked(pool: Meta, reason: string): OperatorEvent {
  return {
    involved: nodePoolRef(pool),
    type: "Normal",
    reason: "DisruptionBlocked",
    message: `No allowed disruptions for disruption reason ${reason} due to blocking budget`,
    dedupeKey: reason,
  };
}

/** Consolidation looked at the node and found nothing cheaper or no place for its pods. */
export function unconsolidatable(on: "NodeClaim" | "Node", obj: Meta, why: string): OperatorEvent {
  return {
    involved: on === "NodeClaim" ? nodeClaimRef(obj) : nodeRef(obj),
    type: "Normal",
    reason: "Unconsolidatable",
    message: why,
    dedupeKey: why,
  };
}

/** A replacement is being launched for a disruption. */
export function disruptionLaunching(nc: Meta, reason: string): OperatorEvent {
  return {
    involved: nodeClaimRef(nc),
    type: "Normal",
    reason: "DisruptionLaunching",
    message: `Launching NodeClaim: ${reason}`,
  };
}

/** The disruption waits for its replacements to initialize. */
export function disruptionWaitingReadiness(nc: Meta): OperatorEvent {
  return {
    involved: nodeClaimRef(nc),
    type: "Normal",
    reason: "DisruptionWaitingReadiness",
    message: "Waiting on readiness to continue disruption",
    dedupeKey: "waiting",
  };
}

/** The candidate is being deleted for a disruption. */
export function disruptionTerminating(on: "NodeClaim" | "Node", obj: Meta, reason: string): OperatorEvent {
  return {
    involved: on === "NodeClaim" ? nodeClaimRef(obj) : nodeRef(obj),
    type: "Normal",
    reason: "DisruptionTerminating",
    message: `Disrupting ${on}: ${reason}`,
  };
}

/** Writes Events; implemented by the kube adapter (adapters/kube/event-recorder.ts). */
export interface EventRecorder {
  publish(event: OperatorEvent): void;
}

/**
 * kerf's reason (Karpenter silently skips overlays with its gate off): a NodeOverlay exists while the
 * operator runs without --feature-gates NodeOverlay=true, so nothing it says is applied.
 */
export function nodeOverlayIgnored(overlay: Meta): OperatorEvent {
  return {
    involved: ref("karpenter.sh/v1alpha1", "NodeOverlay", overlay),
    type: "Warning",
    reason: "NodeOverlayNotApplied",
    message:
      "NodeOverlay is not applied: the operator runs with feature gate NodeOverlay=false " +
      "(set --feature-gates NodeOverlay=true)",
  };
}

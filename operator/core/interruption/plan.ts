/**
 * What one interruption message does to the cluster (behaviour §5), decided as data: the NodeClaims
 * to delete (their termination finalizer cordons and drains, provisioning replaces the capacity),
 * the spot offerings to mark unavailable so the replacement avoids the pool being reclaimed, and
 * the notices to publish on each NodeClaim and its Node. Instances no NodeClaim owns are ignored.
 */
import { actionFor, type InterruptionAction, type InterruptionMessage, type MessageKind } from "./messages.ts";

/** A NodeClaim as the plan reads it, found by the instance id of its providerID. */
export interface InterruptedClaim {
  readonly name: string;
  readonly nodeName: string | undefined;
  readonly nodePool: string;
  readonly capacityType: string;
  readonly instanceType: string;
  readonly zone: string;
  readonly deleting: boolean;
}

export interface Offering {
  readonly capacityType: string;
  readonly instanceType: string;
  readonly zone: string;
}

/** An Event for the NodeClaim and, when it has one, its Node. */
export interface InterruptionNotice {
  readonly claim: InterruptedClaim;
  readonly reason: string;
  readonly message: string;
  readonly type: "Normal" | "Warning";
}

export interface InterruptionPlan {
  readonly action: InterruptionAction;
  /** NodeClaims to delete (none already being deleted). */
  readonly deletes: readonly InterruptedClaim[];
  readonly unavailable: readonly Offering[];
  readonly notices: readonly InterruptionNotice[];
}

/** Karpenter's AWS event reason and message per kind. */
const NOTICE: Readonly<
  Record<Exclude<MessageKind, "no_op">, { reason: string; message: string; type: "Normal" | "Warning" }>
> = {
  spot_interrupted: { reason: "SpotInterrupted", message: "Spot interruption warning was triggered", type: "Warning" },
  rebalance_recommendation: {
    reason: "SpotRebalanceRecommendation",
    message: "Spot rebalance recommendation was triggered",
    type: "Normal",
  },
  scheduled_change: {
    reason: "InstanceUnhealthy",
    message: "An unhealthy warning was triggered for the instance",
    type: "Warning",
  },
  instance_stopped: { reason: "InstanceStopping", message: "Instance is stopping", type: "Warning" },
  instance_terminated: { reason: "InstanceTerminating", message: "Instance is terminating", type: "Warning" },
  capacity_reservation_interrupted: {
    reason: "CapacityReservationInstanceInterrupted",
    message: "Capacity reservation interruption warning was triggered",
    type: "Warning",
  },
};

/** The plan for `message` given the NodeClaims by instance id. */
export function planInterruption(
  message: InterruptionMessage,
  claimsByInstance: ReadonlyMap<string, InterruptedClaim>,
): InterruptionPlan {
  const action = actionFor(message.kind);
  const claims = [...new Set(message.instanceIds)]
    .map((id) => claimsByInstance.get(id))
    .filter((c): c is InterruptedClaim => c !== undefined);
  if (message.kind === "no_op" || claims.length === 0) return { action, deletes: [], unavailable: [], notices: [] };
  const notice = NOTICE[message.kind];
  const notices: InterruptionNotice[] = claims.map((claim) => ({ claim, ...notice }));
  if (action === "NoAction") return { action, deletes: [], unavailable: [], notices };
  const deletes = claims.filter((c) => !c.deleting);
  for (const claim of deletes)
    notices.push({
      claim,
      reason: "TerminatingOnInterruption",
      message: "Interruption triggered termination for the NodeClaim",
      type: "Warning",
    });
  // The pool being reclaimed would be the cheapest choice for the replacement too: avoid it for the ICE TTL.
  const unavailable =
    message.kind === "spot_interrupted"
      ? claims
          .filter((c) => c.capacityType === "spot" && c.instanceType !== "" && c.zone !== "")
          .map((c) => ({ capacityType: "spot", instanceType: c.instanceType, zone: c.zone }))
      : [];
  return { action, deletes, unavailable, notices };
}

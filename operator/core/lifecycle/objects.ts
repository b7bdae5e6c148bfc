/**
 * Minimal structural shapes of the Kubernetes objects the pure core reads. client-node's V1Pod/V1Node
 * and the raw NodeClaim JSON are assignable to them. Timestamps arrive as Date (typed list) or string
 * (watch events, custom objects), so both are accepted and read through `timeMs`.
 */

export type Timestamp = Date | string;

export interface Meta {
  readonly name?: string | undefined;
  readonly namespace?: string | undefined;
  readonly uid?: string | undefined;
  readonly resourceVersion?: string | undefined;
  readonly generation?: number | undefined;
  readonly labels?: Readonly<Record<string, string>> | undefined;
  readonly annotations?: Readonly<Record<string, string>> | undefined;
  readonly finalizers?: readonly string[] | undefined;
  readonly creationTimestamp?: Timestamp | undefined;
  readonly deletionTimestamp?: Timestamp | undefined;
  readonly ownerReferences?: readonly OwnerReference[] | undefined;
}

export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean | undefined;
  readonly blockOwnerDeletion?: boolean | undefined;
}

export interface Taint {
  readonly key: string;
  readonly value?: string | undefined;
  readonly effect: string;
  readonly timeAdded?: Timestamp | undefined;
}
export interface Toleration {
  readonly key?: string | undefined;
  readonly operator?: string | undefined;
  readonly value?: string | undefined;
  readonly effect?: string | undefined;
}

export interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string | undefined;
  readonly message?: string | undefined;
  readonly lastTransitionTime?: Timestamp | undefined;
  readonly observedGeneration?: number | undefined;
}

export type Quantities = Readonly<Record<string, string | number>>;

export interface Pod {
  readonly metadata?: Meta | undefined;
  readonly spec?:
    | {
        readonly nodeName?: string | undefined;
        readonly priorityClassName?: string | undefined;
        readonly priority?: number | undefined;
        readonly tolerations?: readonly Toleration[] | undefined;
        readonly terminationGracePeriodSeconds?: number | undefined;
      }
    | undefined;
  readonly status?:
    | {
        readonly phase?: string | undefined;
        readonly nominatedNodeName?: string | undefined;
        readonly conditions?: readonly Condition[] | undefined;
        /** When the kubelet started the pod (a do-not-disrupt duration counts from here). */
        readonly startTime?: Timestamp | undefined;
      }
    | undefined;
}

export interface Node {
  readonly metadata?: Meta | undefined;
  readonly spec?:
    | {
        readonly providerID?: string | undefined;
        readonly taints?: readonly Taint[] | undefined;
        readonly unschedulable?: boolean | undefined;
      }
    | undefined;
  readonly status?:
    | {
        readonly conditions?: readonly Condition[] | undefined;
        readonly allocatable?: Quantities | undefined;
        readonly capacity?: Quantities | undefined;
      }
    | undefined;
}

export interface NodeClaim {
  readonly apiVersion?: string | undefined;
  readonly kind?: string | undefined;
  readonly metadata?: Meta | undefined;
  readonly spec?:
    | {
        readonly taints?: readonly Taint[] | undefined;
        readonly startupTaints?: readonly Taint[] | undefined;
        readonly resources?: { readonly requests?: Quantities | undefined } | undefined;
        readonly terminationGracePeriod?: string | undefined;
        readonly expireAfter?: string | undefined;
        readonly nodeClassRef?: { readonly group: string; readonly kind: string; readonly name: string } | undefined;
        readonly requirements?: readonly unknown[] | undefined;
      }
    | undefined;
  readonly status?:
    | {
        readonly providerID?: string | undefined;
        readonly nodeName?: string | undefined;
        readonly imageID?: string | undefined;
        /** When a pod last bound to or left the node (deduplicated at 10 s); consolidateAfter counts from it. */
        readonly lastPodEventTime?: Timestamp | undefined;
        readonly capacity?: Quantities | undefined;
        readonly allocatable?: Quantities | undefined;
        readonly conditions?: readonly Condition[] | undefined;
      }
    | undefined;
}

/** A policy/v1 PodDisruptionBudget, as much as disruption eligibility reads. */
export interface PdbLike {
  readonly metadata?: { readonly name?: string | undefined; readonly namespace?: string | undefined } | undefined;
  readonly spec?:
    | {
        readonly selector?:
          | {
              readonly matchLabels?: Readonly<Record<string, string>> | undefined;
              readonly matchExpressions?:
                | readonly {
                    readonly key: string;
                    readonly operator: string;
                    readonly values?: readonly string[] | undefined;
                  }[]
                | undefined;
            }
          | null
          | undefined;
        /** AlwaysAllow: pods that are not Ready may be evicted whatever the budget says. */
        readonly unhealthyPodEvictionPolicy?: string | undefined;
      }
    | undefined;
  readonly status?: { readonly disruptionsAllowed?: number | undefined } | undefined;
}

/** Milliseconds since the epoch of a Kubernetes timestamp, or undefined. */
export function timeMs(t: Timestamp | undefined): number | undefined {
  if (t === undefined) return undefined;
  const ms = t instanceof Date ? t.getTime() : Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The condition of `type`, if present. */
export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Whether the condition of `type` has status "True". */
export function isTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === "True";
}

/** A copy of `conditions` with `next` set; lastTransitionTime only moves when the status changes. */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  next: Omit<Condition, "lastTransitionTime">,
  now: Date,
): Condition[] {
  const list = [...(conditions ?? [])];
  const index = list.findIndex((c) => c.type === next.type);
  const old = index >= 0 ? list[index] : undefined;
  const keepTime = old !== undefined && old.status === next.status && old.lastTransitionTime !== undefined;
  const lastTransitionTime = keepTime ? toIso(old.lastTransitionTime) : toIso(now);
  const merged: Condition = { reason: "", message: "", ...next, lastTransitionTime };
  if (index >= 0) list[index] = merged;
  else list.push(merged);
  return list;
}

/** A condition list with Date timestamps written as RFC 3339 strings (for patches). */
export function toIso(t: Timestamp | undefined): string | undefined {
  if (t === undefined) return undefined;
  if (t instanceof Date) return t.toISOString().replace(/\.\d{3}Z$/, "Z");
  return t;
}

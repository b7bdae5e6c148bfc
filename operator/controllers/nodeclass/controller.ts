/**
 * Reconciles one EC2NodeClass. A live one gets the termination finalizer, its instance profile
 * (created for spec.role, checked for spec.instanceProfile) and its status (selectors resolved,
 * written when it changed). A deleted one is finalized (termination.ts).
 */
import type { EC2NodeClassLike, EC2NodeClassStatus } from "../../core/launch-template/node-class.ts";
import type { CatalogFreshness } from "../../ports/catalog-source.ts";
import type { NodeClassCloud } from "../../ports/node-class-cloud.ts";
import type { NodeClassResolver } from "../../ports/node-class-resolver.ts";
import type { Result } from "../runtime.ts";
import { computeNodeClassStatus } from "./status.ts";
import { reservationRequeueMs } from "../../core/capacity-reservations/reservations.ts";
import { NODE_CLASS_FINALIZER, finalizeNodeClass, type NodeClassTerminationDeps } from "./termination.ts";

/** Karpenter's SUBNET_REFRESH_INTERVAL / AMI_REFRESH_INTERVAL: re-resolve every minute. */
export const NODE_CLASS_REFRESH_MS = 60_000;

/** What the status reconcile needs; the status write (PATCH .../status) is the runtime's. */
export interface NodeClassControllerDeps {
  readonly resolver: NodeClassResolver;
  readonly cloud: Pick<NodeClassCloud, "reconcileInstanceProfile">;
  readonly writeStatus: (name: string, status: EC2NodeClassStatus) => Promise<void>;
  readonly clock: { now(): Date };
  /** Where the offerings and prices come from (kerf's CatalogFresh condition); absent with a fixed catalog. */
  readonly catalogFreshness?: (() => CatalogFreshness) | undefined;
  /** The ReservedCapacity gate: status.capacityReservations and CapacityReservationsReady are reported. */
  readonly reservedCapacity?: boolean | undefined;
}

/** Everything the whole reconcile (status, finalizer, termination) needs. */
export type NodeClassLifecycleDeps = NodeClassControllerDeps & NodeClassTerminationDeps;

function sameStatus(a: EC2NodeClassStatus | undefined, b: EC2NodeClassStatus): boolean {
  return JSON.stringify(a ?? {}) === JSON.stringify(b);
}

/** One status reconcile; the status write is skipped when nothing changed. Returns when to look again. */
export async function reconcileNodeClass(
  deps: NodeClassControllerDeps,
  nodeClass: EC2NodeClassLike,
): Promise<{ requeueAfter: number; status: EC2NodeClassStatus }> {
  // Fresh: the status shows what the selectors select now, and this refreshes the launch path's cache.
  const [facts, profile] = await Promise.all([
    deps.resolver.resolve(nodeClass, { fresh: true }),
    deps.cloud.reconcileInstanceProfile(nodeClass),
  ]);
  const status = computeNodeClassStatus(nodeClass, facts, profile, {
    now: deps.clock.now(),
    catalog: deps.catalogFreshness?.(),
    reservedCapacity: deps.reservedCapacity,
  });
  // The write is a merge patch: a field no longer reported must be sent as null to go away.
  const cleared = nodeClass.status?.capacityReservations != null && status.capacityReservations === undefined;
  if (!sameStatus(nodeClass.status, status))
    await deps.writeStatus(nodeClass.metadata.name, cleared ? { ...status, capacityReservations: null } : status);
  // A reservation that ends sooner than the next refresh is looked at when it ends (Karpenter's requeueAfter).
  const ends = reservationRequeueMs(status.capacityReservations ?? [], deps.clock.now());
  return { requeueAfter: Math.max(1000, Math.min(NODE_CLASS_REFRESH_MS, ends)), status };
}

/** The full reconcile of an EC2NodeClass as the cache holds it. */
export async function reconcileNodeClassLifecycle(
  deps: NodeClassLifecycleDeps,
  nodeClass: EC2NodeClassLike,
): Promise<Result> {
  if (nodeClass.metadata.deletionTimestamp !== undefined) return finalizeNodeClass(deps, nodeClass);
  // The finalizer goes on before anything is created, so nothing kerf creates outlives the node class.
  await deps.finalizers.addNodeClassFinalizer(nodeClass, NODE_CLASS_FINALIZER);
  const { requeueAfter } = await reconcileNodeClass(deps, nodeClass);
  return { requeueAfter };
}

/**
 * The provisioning plan (pure): pending pods + the cluster + instance types per NodePool → the
 * NodeClaims to create, the pods nominated to places that exist or are in flight, and the pods
 * that fit nowhere with the simulation's reason. NodePools take part when Ready, not being deleted
 * and dynamic (no `replicas`); their limits are what their NodeClaims leave (limits.ts). The
 * simulation's input comes from scheduling-input.ts, the path disruption and `kerf simulate` share.
 * The provisioner (controllers/provisioning) builds the input from its caches and applies the result.
 * A pool off under its kerf.dev/off-schedule launches nothing; the pods it would have launched for are
 * named in `heldByOffPools`, so they can be told why and until when.
 */
import { cheapestOffering, labelsMismatch, type InstanceType } from "../../../policies/domain/instance-types.ts";
import { WELL_KNOWN_LABELS } from "../../../policies/domain/labels.ts";
import type { OffState } from "../../../policies/domain/off-schedule.ts";
import { Requirements } from "../../../policies/domain/requirements.ts";
import type { Pod } from "../lifecycle/objects.ts";
import { simulate } from "../scheduling/simulate.ts";
import type { LaunchChoice, NodePoolView, SimPod, SimulateOptions } from "../scheduling/types.ts";
import type { ClusterView, NodePoolObject } from "./cluster-view.ts";
import { nodeClaimManifest, type NodeClaimManifest } from "./nodeclaim-template.ts";
import { schedulingInput, type SchedulingInput } from "./scheduling-input.ts";

export type { ClusterView, DaemonSetObject, NodePoolObject } from "./cluster-view.ts";
export type { NodeClaimManifest } from "./nodeclaim-template.ts";
// Kept here for their callers: the one scheduling-input path lives in scheduling-input.ts.
export { simPods, takesPart, takingPartPools, typesByName, uniqueByUid } from "./scheduling-input.ts";

export interface PlanInput {
  readonly cluster: ClusterView;
  /** Provisionable pods (behaviour §1.1). */
  readonly pending: readonly Pod[];
  /**
   * Instance types per NodePool name (its EC2NodeClass's, ICE-cached offerings unavailable); a
   * pool missing here takes no part.
   */
  readonly instanceTypes: ReadonlyMap<string, readonly InstanceType[]>;
  readonly options?: SimulateOptions;
  /** Now (ms), for do-not-disrupt durations on the pods of deleting nodes (absent: all in force). */
  readonly now?: number | undefined;
}

/** One NodeClaim to create and the pods it is for. */
export interface PlannedClaim {
  readonly manifest: NodeClaimManifest;
  readonly nodePool: string;
  readonly pods: readonly Pod[];
  readonly launch: LaunchChoice;
}

export interface ProvisioningPlan {
  readonly claims: readonly PlannedClaim[];
  /** Pods that fit a Node or an in-flight NodeClaim; target is "node/<name>" or "nodeclaim/<name>". */
  readonly nominations: readonly { readonly pod: Pod; readonly target: string }[];
  readonly podErrors: readonly { readonly pod: Pod; readonly reason: string }[];
  /** Taking-part NodePools whose requirements leave no instance type with an available offering. */
  readonly incompatiblePools: readonly NodePoolObject[];
  /** Pods that fit nowhere and that a pool off now (kerf.dev/off-schedule) would have launched a node for. */
  readonly heldByOffPools: readonly OffHold[];
}

/** A pod an off pool would have launched for, the pool, and its off state (until when). */
export interface OffHold {
  readonly pod: Pod;
  readonly nodePool: string;
  readonly state: OffState;
}

/** Which of the unplaced pods the pools off now would have launched for: the same simulation, off pools only. */
export function offHolds(built: SchedulingInput, unplaced: readonly SimPod[], options: SimulateOptions): OffHold[] {
  if (built.off.length === 0 || unplaced.length === 0) return [];
  const result = simulate({ ...built.snapshot, nodePools: built.off.map((o) => o.view) }, unplaced, options);
  const byName = new Map(built.off.map((o) => [o.view.name, o]));
  return result.newClaims.flatMap((c) => {
    const off = byName.get(c.nodePool);
    if (off === undefined) return [];
    return c.pods.map((p) => ({ pod: built.pods.get(p) as Pod, nodePool: c.nodePool, state: off.state }));
  });
}

/** Whether any of the pool's types meets its requirements with an available offering. */
function hasCompatibleType(view: NodePoolView): boolean {
  const carried = new Set(view.instanceTypes.flatMap((t) => Object.keys(t.labels)));
  const all = Requirements.fromSelectors(view.requirements);
  const filter = new Requirements([...all].filter((r) => carried.has(r.key) || WELL_KNOWN_LABELS.has(r.key)));
  return view.instanceTypes.some(
    (t) => labelsMismatch(t, filter) === undefined && cheapestOffering(t, all) !== undefined,
  );
}

/** Computes what to create, whom to nominate and who cannot be placed. */
export function planProvisioning(input: PlanInput): ProvisioningPlan {
  const built = schedulingInput({
    ...input,
    schedulerConfig: input.options?.schedulerConfig,
    expendablePodsPriorityCutoff: input.options?.expendablePodsPriorityCutoff,
  });
  const { pools, targets, errors } = built;
  const sims = built.pods;
  const result = simulate(built.snapshot, [...sims.keys()], input.options ?? {});
  const refs = new Map(targets.map((t) => [t.node.name, t.ref]));
  const poolByName = new Map(pools.map((p) => [p.metadata?.name ?? "", p]));
  const pendingUids = new Set(input.pending.map((p) => p.metadata?.uid));
  const podOf = (s: SimPod): Pod => sims.get(s) as Pod;
  const views = built.snapshot.nodePools;
  return {
    claims: result.newClaims.map((c) => ({
      manifest: nodeClaimManifest(poolByName.get(c.nodePool) ?? {}, c),
      nodePool: c.nodePool,
      pods: c.pods.map(podOf),
      launch: c.launch,
    })),
    nominations: result.existingPlacements
      .filter((p) => pendingUids.has(podOf(p.pod).metadata?.uid))
      .map((p) => ({ pod: podOf(p.pod), target: refs.get(p.node) ?? `node/${p.node}` })),
    podErrors: [...errors, ...result.podErrors.map((e) => ({ pod: podOf(e.pod), reason: e.reason }))],
    incompatiblePools: pools.filter((_, i) => !hasCompatibleType(views[i]!)),
    heldByOffPools: offHolds(
      built,
      result.podErrors.map((e) => e.pod),
      input.options ?? {},
    ),
  };
}

/**
 * simulate(snapshot, pods, options): the pure scheduling simulation behind provisioning and
 * consolidation. Returns the NodeClaims to launch (NodePool, requirements, ordered instance-type
 * options, pods, cheapest launch choice), the pods placed on existing nodes and the pods that
 * cannot be scheduled, each with a reason. Design notes: solver.ts (loop), improve.ts (the pass that
 * rebalances the planned NodeClaims after it), targets.ts (places), topology.ts (spread and
 * affinity), preferences.ts (relaxation), pool-types.ts (type index).
 */
import { Label } from "../../../policies/domain/labels.ts";
import type { ResourceList } from "../../../policies/domain/quantity.ts";
import { Requirement } from "../../../policies/domain/requirements.ts";
import { MAX_INSTANCE_TYPES, rankOptions } from "../selection/select-offerings.ts";
import { forEachBit } from "./bitset.ts";
import { DRA_REASON } from "./dra.ts";
import { Solver } from "./solver.ts";
import { NodeTarget, type ClaimTarget } from "./targets.ts";
import type { PlannedNodeClaim, PodError, SimPod, SimulateOptions, SimulationResult, Snapshot } from "./types.ts";

export type * from "./types.ts";

function planned(claim: ClaimTarget, solver: Solver, max: number): PlannedNodeClaim | PodError[] {
  const types = [] as (typeof claim.pool.types)[number][];
  forEachBit(claim.bits, (i) => types.push(claim.pool.types[i]!));
  const ranked = rankOptions(types, claim.requirements, max);
  if (ranked === undefined || ranked.minValuesProblem !== undefined) {
    const reason =
      ranked?.minValuesProblem ?? `NodePool ${claim.pool.pool.name}: no instance type has an available offering`;
    return claim.pods.map((pod) => ({ pod, reason }));
  }
  const requirements = claim.requirements
    .with(
      Requirement.in(
        Label.instanceType,
        ranked.types.map((t) => t.name),
      ),
    )
    .toSelectors();
  return {
    nodePool: claim.pool.pool.name,
    requirements,
    instanceTypes: ranked.types,
    pods: [...claim.pods],
    requests: claimRequests(claim, solver, ranked.launch.instanceType),
    launch: ranked.launch,
  };
}

/**
 * What the NodeClaim requests: its pods' requests plus the DaemonSet pods that will run beside them on the
 * type it launches (Karpenter's NodeClaim requests add the daemon overhead; DaemonSets with DRA claims
 * reserve nothing and are not in the pool's view). The pool keeps each type's allocatable net of that
 * overhead, so the overhead is the difference.
 */
function claimRequests(claim: ClaimTarget, solver: Solver, launchType: string): ResourceList {
  const used = Float64Array.from(claim.used);
  const i = claim.pool.types.findIndex((t) => t.name === launchType);
  if (i >= 0) {
    const gross = solver.space.vector(claim.pool.types[i]!.allocatable);
    const net = claim.pool.alloc.subarray(i * claim.pool.width, (i + 1) * claim.pool.width);
    for (let r = 0; r < Math.min(used.length, net.length); r++) used[r]! += gross[r]! - net[r]!;
  }
  return solver.space.toList(used);
}

/** Runs the simulation; pure: everything comes from the arguments. */
export function simulate(
  snapshot: Snapshot,
  given: readonly SimPod[],
  options: SimulateOptions = {},
): SimulationResult {
  // A pod with DRA requirements is refused before the solve, never relaxed (dra.ts); one flag read per pod.
  const pods = given.some((p) => p.dynamicResources === true)
    ? given.filter((p) => p.dynamicResources !== true)
    : given;
  const solver = new Solver(snapshot, options, pods);
  solver.solve(pods);
  if (options.improve !== false) solver.improve();
  solver.finish();
  const newClaims: PlannedNodeClaim[] = [];
  const refused =
    pods === given ? [] : given.filter((p) => p.dynamicResources === true).map((pod) => ({ pod, reason: DRA_REASON }));
  const podErrors: PodError[] = [...refused, ...[...solver.errors].map(([pod, reason]) => ({ pod, reason }))];
  for (const claim of solver.claims.filter((c) => c.pods.length > 0)) {
    const result = planned(claim, solver, options.maxInstanceTypes ?? MAX_INSTANCE_TYPES);
    if (Array.isArray(result)) podErrors.push(...result);
    else newClaims.push(result);
  }
  const existingPlacements = [...solver.placements]
    .filter(([, place]) => place instanceof NodeTarget)
    .map(([pod, place]) => ({ pod, node: (place as NodeTarget).name }));
  return { newClaims, existingPlacements, podErrors };
}

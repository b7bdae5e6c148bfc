/**
 * The consolidation questions the disruption controller asks, as pure functions over a snapshot:
 * can these nodes' pods all fit on the other nodes (delete)? on the other nodes plus one cheaper
 * replacement (replace)? Works for one node or a set (multi-node consolidation).
 */
import { Requirements } from "../../../policies/domain/requirements.ts";
import { cheaperThan, rankOptions } from "../selection/select-offerings.ts";
import { simulate } from "../scheduling/simulate.ts";
import type { PlannedNodeClaim, SimPod, SimulateOptions, SimulationResult, Snapshot } from "../scheduling/types.ts";

/**
 * `stays`: UIDs of pods that go away with their node instead of moving (DaemonSet and mirror pods);
 * every other pod of a candidate must find a place.
 */
export interface QuestionOptions {
  readonly stays?: ReadonlySet<string>;
  /**
   * The operator's scheduling options (preference policy, price guard), so a replacement is chosen
   * as provisioning would launch it.
   */
  readonly scheduling?: SimulateOptions;
}

export type ConsolidationDecision =
  | { readonly decision: "delete"; readonly savingsPerHour: number }
  | { readonly decision: "replace"; readonly replacement: PlannedNodeClaim; readonly savingsPerHour: number }
  | { readonly decision: "none"; readonly reason: string };

function without(snapshot: Snapshot, names: ReadonlySet<string>): Snapshot {
  return { ...snapshot, nodes: snapshot.nodes.filter((n) => !names.has(n.name)) };
}

/** Whether every pod of `candidates` fits on the remaining nodes (no launch). */
export function canDelete(snapshot: Snapshot, candidates: readonly string[], options: QuestionOptions = {}): boolean {
  const names = new Set(candidates);
  const pods = snapshot.nodes
    .filter((n) => names.has(n.name))
    .flatMap((n) => n.pods)
    .filter((p) => options.stays?.has(p.uid) !== true);
  return simulate(without(snapshot, names), pods, { ...options.scheduling, maxNewClaims: 0 }).podErrors.length === 0;
}

/**
 * Whether the pods could fit on the other nodes even though a run allowed one new node needed it:
 * that run opens the claim for a pod before relaxing its preferences, and without a claim the solver
 * would relax the pod, or retry it after placing the others (which only helps spread and affinity
 * terms: everything else only fills up). Without any of that, the first pod that needed the claim
 * fails for good on the other nodes, and the delete question need not be simulated.
 */
function mayFitOnlyOnRetry(snapshot: Snapshot, pods: readonly SimPod[]): boolean {
  if (snapshot.nodePools.some((p) => p.taints.some((t) => t.effect === "PreferNoSchedule"))) return true;
  return pods.some(
    (p) =>
      p.requiredTerms.length > 1 ||
      p.preferredTerms.length > 0 ||
      p.preferredAffinity.length > 0 ||
      p.preferredAntiAffinity.length > 0 ||
      p.spread.length > 0 ||
      p.affinity.length > 0 ||
      // Volume topology alternatives are tried one after another, like required terms (preferences.ts).
      (p.claims !== undefined && snapshot.volumes !== undefined),
  );
}

/**
 * Why a simulation's placements cannot be counted on: a moving pod placed on a node that is not
 * initialized yet (Karpenter's UninitializedNodeError). Disruption places pods as the scheduler would,
 * booting nodes included (initialized ones come first in the snapshot), and then waits rather than
 * deciding on a node that may never become ready; it does not plan a replacement instead.
 */
export function uninitializedPlacement(snapshot: Snapshot, result: SimulationResult): string | undefined {
  const booting = new Set(snapshot.nodes.filter((n) => n.initialized === false).map((n) => n.name));
  if (booting.size === 0) return undefined;
  const placed = result.existingPlacements.find((p) => booting.has(p.node));
  return placed === undefined ? undefined : `would schedule against uninitialized node ${placed.node}`;
}

/** Whether the pods fit on the other nodes, given the run that allowed one new node; a string: why not counted on. */
function fitWithoutClaim(
  rest: Snapshot,
  pods: readonly SimPod[],
  withOne: SimulationResult,
  scheduling: SimulateOptions,
): boolean | string {
  // A run that needed no new node is the delete question's run: the solver never opened a claim.
  if (withOne.newClaims.length === 0 && withOne.podErrors.length === 0) return true;
  if (!mayFitOnlyOnRetry(rest, pods)) return false;
  const without = simulate(rest, pods, { ...scheduling, maxNewClaims: 0 });
  return without.podErrors.length === 0 && (uninitializedPlacement(rest, without) ?? true);
}

/**
 * Delete when the pods fit elsewhere; else replace when they fit with one new NodeClaim whose
 * options, filtered to types cheaper than the candidates' summed price, are not empty.
 */
export function consolidate(
  snapshot: Snapshot,
  candidates: readonly string[],
  options: QuestionOptions = {},
): ConsolidationDecision {
  const names = new Set(candidates);
  const nodes = snapshot.nodes.filter((n) => names.has(n.name));
  if (nodes.length !== names.size) return { decision: "none", reason: "a candidate is not in the snapshot" };
  const price = nodes.reduce((s, n) => s + (n.pricePerHour ?? 0), 0);
  const pods = nodes.flatMap((n) => n.pods).filter((p) => options.stays?.has(p.uid) !== true);
  const rest = without(snapshot, names);
  const withOne = simulate(rest, pods, { ...options.scheduling, maxNewClaims: 1 });
  const booting = uninitializedPlacement(rest, withOne);
  if (booting !== undefined) return { decision: "none", reason: booting };
  const fit = fitWithoutClaim(rest, pods, withOne, options.scheduling ?? {});
  if (typeof fit === "string") return { decision: "none", reason: fit };
  if (fit) return { decision: "delete", savingsPerHour: price };
  const claim = withOne.newClaims[0];
  if (withOne.podErrors.length > 0 || claim === undefined)
    return { decision: "none", reason: withOne.podErrors[0]?.reason ?? "the pods need more than one new node" };
  return cheaperReplacement(claim, price);
}

/** The claim narrowed to options cheaper than `price`, or why there is none. */
function cheaperReplacement(claim: PlannedNodeClaim, price: number): ConsolidationDecision {
  const reqs = Requirements.fromSelectors(claim.requirements);
  const cheaper = rankOptions(cheaperThan(claim.instanceTypes, reqs, price), reqs);
  if (cheaper === undefined || cheaper.minValuesProblem !== undefined)
    return { decision: "none", reason: cheaper?.minValuesProblem ?? "no replacement is cheaper than the candidates" };
  const replacement = { ...claim, instanceTypes: cheaper.types, launch: cheaper.launch };
  return { decision: "replace", replacement, savingsPerHour: price - cheaper.launch.pricePerHour };
}

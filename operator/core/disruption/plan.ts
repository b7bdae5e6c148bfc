/**
 * One disruption pass as a pure function (behaviour §4.1): candidates, budgets, then kerf's scheduled-off
 * (kerf.dev/off-schedule) and the methods in
 * v1.14 order — Emptiness → StaticDrift → Drift → MultiNodeConsolidation → SingleNodeConsolidation —
 * and the first command found wins. StaticDrift alone acts on static NodePools (`replicas`,
 * static-drift.ts); the other methods leave their nodes alone. Single-node consolidation evaluates at most
 * `maxSingleNodeEvaluations` candidates per pass and reports where it stopped, so the next pass
 * resumes there instead of starting over (Karpenter's 3-minute timeout restarts from the top).
 */
import { emptyAfterOf } from "../../../policies/domain/empty-after.ts";
import { poolOffState } from "../../../policies/domain/off-schedule.ts";
import { Label } from "../../../policies/domain/labels.ts";
import { spotToSpotOf } from "../../../policies/domain/spot-to-spot.ts";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import type { ClusterView } from "../provisioning/cluster-view.ts";
import { typesByName } from "../provisioning/plan.ts";
import { schedulingInput } from "../provisioning/scheduling-input.ts";
import type { Pod } from "../lifecycle/objects.ts";
import { simPodFromPod } from "../scheduling/pod-spec.ts";
import { simulate } from "../scheduling/simulate.ts";
import { PoolTypes } from "../scheduling/pool-types.ts";
import { ResourceSpace } from "../scheduling/resource-space.ts";
import type { ExistingNode, NodePoolView, SimPod, SimulateOptions, Snapshot } from "../scheduling/types.ts";
import { evictionCost, findCandidates, isEmptyCandidate, isReschedulable, runningPrice } from "./candidates.ts";
import { consolidateAfterOf, underConsolidateAfter } from "./consolidatable.ts";
import { CompactSnapshot } from "./compact-snapshot.ts";
import type { PoolTotals } from "./consolidation.ts";
import {
  boundedDrift,
  consolidationCandidates,
  emptiness,
  multiNode,
  scheduledOff,
  singleNode,
  type MethodContext,
} from "./methods.ts";
import { BudgetLedger, poolBudgets } from "./pool-budgets.ts";
import { staticDrift } from "./static-drift.ts";
import { isStatic } from "../nodepool/static.ts";
import { invalidDoNotDisrupt, isActivePod } from "./pod-blockers.ts";
import type { Candidate, Command, DisruptionPlan, InvalidDoNotDisrupt, Method, PoolBudget, Skipped } from "./types.ts";

export interface DisruptionInput {
  readonly now: Date;
  /** The caches at one instant, with pdbs. */
  readonly cluster: ClusterView;
  /** Instance types per NodePool (as provisioning reads them). */
  readonly instanceTypes: ReadonlyMap<string, readonly InstanceType[]>;
  /** Node names nominated for pending pods within the window. */
  readonly nominated: ReadonlySet<string>;
  /**
   * Provisionable pending pods (the provisioner's intake). The room they will take on existing and
   * in-flight nodes is not offered to a candidate's pods (Karpenter simulates them together).
   */
  readonly pending?: readonly Pod[];
  /** NodeClaims in commands being executed. */
  readonly inFlight: ReadonlySet<string>;
  readonly spotToSpot: boolean;
  /** The operator's scheduling options: drift's replacements are planned as provisioning plans them. */
  readonly scheduling?: SimulateOptions;
  /** The evaluation bound of single-node consolidation and of drift, each with its resume point. */
  readonly maxSingleNodeEvaluations?: number;
  readonly resumeAfter?: string | undefined;
  readonly driftResumeAfter?: string | undefined;
}

export const DEFAULT_MAX_SINGLE_NODE_EVALUATIONS = 500;

const DEFAULT_POLICY = "WhenEmptyOrUnderutilized";

/**
 * Per pool, what `read` finds in its annotations; pools where it finds nothing (absent, or unusable:
 * the webhook denies those, the operator falls back to Karpenter's behaviour) are left out.
 */
function perPool<T>(
  cluster: ClusterView,
  read: (annotations: Readonly<Record<string, string>> | undefined) => T | undefined,
): Map<string, T> {
  const out = new Map<string, T>();
  for (const p of cluster.nodePools) {
    const value = read(p.metadata?.annotations);
    if (value !== undefined) out.set(p.metadata?.name ?? "", value);
  }
  return out;
}

/** kerf.dev/spot-to-spot-consolidation per pool. */
const spotToSpotPools = (cluster: ClusterView): Map<string, boolean> =>
  perPool(cluster, (a) => {
    const setting = spotToSpotOf(a);
    return setting.kind === "set" ? setting.enabled : undefined;
  });

/** kerf.dev/consolidate-empty-after per pool, in ms. */
const emptyDelays = (cluster: ClusterView): Map<string, number> =>
  perPool(cluster, (a) => {
    const delay = emptyAfterOf(a);
    return delay.kind === "set" ? delay.ms : undefined;
  });

function policies(cluster: ClusterView): Map<string, string> {
  return new Map(
    cluster.nodePools.map((p) => {
      const disruption = (p.spec?.["disruption"] ?? {}) as { consolidationPolicy?: unknown };
      return [
        p.metadata?.name ?? "",
        typeof disruption.consolidationPolicy === "string" ? disruption.consolidationPolicy : DEFAULT_POLICY,
      ];
    }),
  );
}

/**
 * The pool as every simulation of the pass sees it: only the instance types the solver would keep
 * (those its requirements allow, with an offering), found once here rather than in each of the
 * pass's hundreds of simulations; the solver filters the same way, so its answers do not change.
 */
function withUsableTypes(view: NodePoolView): NodePoolView {
  return { ...view, instanceTypes: new PoolTypes(view, new ResourceSpace(), []).types };
}

/**
 * The places with the room that pods waiting for one will take: provisionable pending pods and the
 * pods of nodes being deleted go where the provisioner would put them, before any candidate's pod
 * moves. Without this, a node that just launched for four pending pods looks empty, and the pass
 * plans to move another node's pods into the room those four are about to take.
 */
function withWaitingPods(snapshot: Snapshot, waiting: readonly SimPod[], options: SimulateOptions): ExistingNode[] {
  if (waiting.length === 0) return [...snapshot.nodes];
  const placed = new Map<string, SimPod[]>();
  for (const p of simulate(snapshot, waiting, { ...options, maxNewClaims: 0, improve: false }).existingPlacements) {
    const on = placed.get(p.node);
    if (on === undefined) placed.set(p.node, [p.pod]);
    else on.push(p.pod);
  }
  return snapshot.nodes.map((n) =>
    placed.has(n.name) ? { ...n, pods: [...n.pods, ...(placed.get(n.name) ?? [])] } : n,
  );
}

/**
 * Nodes (and unregistered NodeClaims) of commands being executed: they are going, so they are no
 * destination, and their pods need room like those of a deleting node. Two passes in a row would
 * otherwise each move one node's pods onto the other and delete both.
 */
function leavingNodes(input: DisruptionInput): Set<string> {
  const out = new Set<string>();
  if (input.inFlight.size === 0) return out;
  const nodeByProvider = new Map(input.cluster.nodes.map((n) => [n.spec?.providerID ?? "", n.metadata?.name ?? ""]));
  for (const claim of input.cluster.nodeClaims) {
    const name = claim.metadata?.name ?? "";
    if (!input.inFlight.has(name)) continue;
    out.add(name);
    const node = nodeByProvider.get(claim.status?.providerID ?? "");
    if (node !== undefined && node !== "") out.add(node);
  }
  return out;
}

/**
 * The existing nodes as Karpenter's scheduler sees them: initialized ones first (a booting node takes a
 * pod only when no initialized node can, scheduler.go; a candidate's pod placed there makes the move wait,
 * questions.ts uninitializedPlacement), and each candidate with its terminating StatefulSet pods, which come
 * back under the same name and need a place (IsReschedulable) though the cluster view leaves them out.
 */
function existingNodes(nodes: readonly ExistingNode[], candidates: readonly Candidate[]): ExistingNode[] {
  const returning = new Map<string, SimPod[]>();
  for (const c of candidates) {
    const pods = c.pods.filter((p) => p.metadata?.deletionTimestamp !== undefined).map((p) => simPodFromPod(p));
    if (pods.length > 0) returning.set(c.nodeName, pods);
  }
  const all = nodes.map((n) => {
    const back = returning.get(n.name);
    return back === undefined ? n : { ...n, pods: [...n.pods, ...back] };
  });
  return [...all.filter((n) => n.initialized !== false), ...all.filter((n) => n.initialized === false)];
}

/**
 * Nodes whose NodeClaim is under its NodePool's consolidateAfter (Karpenter's isUnderConsolidateAfter on
 * each existing node of a consolidation simulation): they take no candidate's pod.
 */
function busyNodes(input: DisruptionInput): Set<string> {
  const now = input.now.getTime();
  const after = new Map(input.cluster.nodePools.map((p) => [p.metadata?.name ?? "", consolidateAfterOf(p)]));
  const busy = new Set<string>();
  for (const claim of input.cluster.nodeClaims) {
    const provider = claim.status?.providerID ?? "";
    const consolidateAfter = after.get(claim.metadata?.labels?.[Label.nodePool] ?? "");
    if (provider !== "" && underConsolidateAfter(claim, consolidateAfter, now)) busy.add(provider);
  }
  if (busy.size === 0) return new Set();
  const nodes = input.cluster.nodes.filter((n) => busy.has(n.spec?.providerID ?? ""));
  return new Set(nodes.map((n) => n.metadata?.name ?? ""));
}

/**
 * The scheduling snapshot with each candidate's price, and the pods that go away with their node.
 * Cordoned nodes are in it, closed by the unschedulable taint (Karpenter reads no cordon: a cordoned
 * candidate's pods are moved like any other's, and drift pre-launches its replacement).
 */
function schedulingView(
  input: DisruptionInput,
  candidates: readonly Candidate[],
): { snapshot: Snapshot; stays: Set<string> } {
  const price = new Map(candidates.map((c) => [c.nodeName, c.pricePerHour]));
  const leaving = leavingNodes(input);
  const evicted = input.cluster.pods.filter((p) => leaving.has(p.spec?.nodeName ?? "") && isReschedulable(p));
  // The operator's one scheduling input (as provisioning and kerf simulate build it); a pod whose requests
  // cannot be read is the provisioner's to report: it reserves nothing here.
  const built = schedulingInput({
    cluster: input.cluster,
    pending: [...(input.pending ?? []), ...evicted],
    instanceTypes: input.instanceTypes,
    schedulerConfig: input.scheduling?.schedulerConfig,
    places: { keepCordoned: true },
    now: input.now.getTime(),
  });
  const places = { targets: built.targets };
  const busy = busyNodes(input);
  const priced = places.targets
    .filter((t) => !leaving.has(t.node.name))
    .map((t) => (price.has(t.node.name) ? { ...t.node, pricePerHour: price.get(t.node.name) } : t.node))
    .map((n) => (busy.has(n.name) ? { ...n, underConsolidateAfter: true } : n));
  const base: Snapshot = {
    ...built.snapshot,
    nodes: existingNodes(priced, candidates),
    nodePools: built.snapshot.nodePools.map(withUsableTypes),
  };
  const waiting = [...built.pods.keys()];
  const nodes = withWaitingPods(base, waiting, input.scheduling ?? {});
  const stays = new Set<string>();
  for (const pod of input.cluster.pods) {
    if (price.has(pod.spec?.nodeName ?? "") && !isReschedulable(pod)) stays.add(simPodFromPod(pod).uid);
  }
  return { snapshot: { ...base, nodes }, stays };
}

const add = (m: Map<string, number>, key: string, n: number): void => {
  m.set(key, (m.get(key) ?? 0) + n);
};

/** Per pool, the hourly price of all its NodeClaims (Karpenter's ClusterCost). */
function poolPrices(cluster: ClusterView, byName: ReadonlyMap<string, InstanceType>): Map<string, number> {
  const out = new Map<string, number>();
  for (const claim of cluster.nodeClaims) {
    const labels = claim.metadata?.labels ?? {};
    const pool = labels[Label.nodePool];
    if (pool !== undefined) add(out, pool, runningPrice(labels, byName));
  }
  return out;
}

/** Per node, its pods' positive eviction costs (Karpenter's StateNode podDisruptionCosts: DaemonSet pods aside). */
function podCostsByNode(cluster: ClusterView): Map<string, number> {
  const out = new Map<string, number>();
  for (const pod of cluster.pods) {
    const node = pod.spec?.nodeName ?? "";
    const terminal = pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed";
    if (node === "" || terminal || (pod.metadata?.ownerReferences ?? []).some((o) => o.kind === "DaemonSet")) continue;
    add(out, node, Math.max(0, evictionCost(pod)));
  }
  return out;
}

/**
 * Per pool with candidates, Karpenter's NodePoolTotals (balanced.go computeNodePoolTotals): the hourly price
 * of all its NodeClaims (the candidates' prices when none is known) and the disruption cost of all its
 * nodes, candidates or not: a candidate's RescheduleDisruptionCost, else 1 plus its pods' eviction costs.
 */
function poolTotals(
  cluster: ClusterView,
  candidates: readonly Candidate[],
  byName: ReadonlyMap<string, InstanceType>,
): Map<string, PoolTotals> {
  const price = poolPrices(cluster, byName);
  const byNode = new Map(candidates.map((c) => [c.nodeName, c]));
  const podCosts = podCostsByNode(cluster);
  const cost = new Map<string, number>();
  for (const node of cluster.nodes) {
    const name = node.metadata?.name ?? "";
    const pool = node.metadata?.labels?.[Label.nodePool];
    if (pool !== undefined) add(cost, pool, byNode.get(name)?.rescheduleCost ?? 1 + (podCosts.get(name) ?? 0));
  }
  const own = new Map<string, number>();
  for (const c of candidates) add(own, c.nodePool, c.pricePerHour);
  return new Map(
    [...own].map(([pool, fallback]) => {
      const all = price.get(pool) ?? 0;
      return [pool, { price: all > 0 ? all : fallback, cost: cost.get(pool) ?? 0 }];
    }),
  );
}

/**
 * The NodePools whose nodes the methods may disrupt, split: static ones (`spec.replicas`) are StaticDrift's
 * alone (Karpenter leaves them out of emptiness, drift and consolidation); the rest are everyone else's.
 */
function poolsByMode(cluster: ClusterView): { dynamic: Set<string>; static: Set<string> } {
  const name = (p: { metadata?: { name?: string | undefined } | undefined }): string => p.metadata?.name ?? "";
  return {
    dynamic: new Set(cluster.nodePools.filter((p) => !isStatic(p)).map(name)),
    static: new Set(cluster.nodePools.filter(isStatic).map(name)),
  };
}

/** The pools off at `now` under their kerf.dev/off-schedule (an unusable annotation leaves a pool on). */
export function offPools(cluster: ClusterView, now: Date): Set<string> {
  return new Set(
    cluster.nodePools
      .filter((p) => poolOffState(p.metadata?.annotations, now)?.off === true)
      .map((p) => p.metadata?.name ?? ""),
  );
}

/** Everything one pass (or one re-validation) reads, computed once. */
export interface Pass {
  readonly candidates: readonly Candidate[];
  /** Pools off now (kerf.dev/off-schedule): their candidates go under KerfScheduledOff. */
  readonly offPools: ReadonlySet<string>;
  /** Candidates of static NodePools (StaticDrift's). */
  readonly staticCandidates: readonly Candidate[];
  readonly blocked: readonly Skipped[];
  readonly budgets: readonly PoolBudget[];
  readonly ctx: MethodContext;
  /** Candidates consolidation may move, in evaluation order. */
  readonly consolidating: readonly Candidate[];
}

/** Candidates, budgets and the scheduling view for `input`. */
export function preparePass(input: DisruptionInput): Pass {
  const now = input.now.getTime();
  const { nodeClaims, nodes, pods } = input.cluster;
  const byName = typesByName(input.instanceTypes);
  const modes = poolsByMode(input.cluster);
  const all = findCandidates({
    now,
    nodeClaims,
    nodes,
    pods,
    pdbs: input.cluster.pdbs ?? [],
    types: byName,
    nodePools: new Set([...modes.dynamic, ...modes.static]),
    nominated: input.nominated,
    inFlight: input.inFlight,
    emptyAfter: emptyDelays(input.cluster),
  });
  const found = {
    candidates: all.candidates.filter((c) => modes.dynamic.has(c.nodePool)),
    blocked: all.blocked.filter((b) => modes.dynamic.has(b.node?.metadata?.labels?.[Label.nodePool] ?? "")),
  };
  const staticCandidates = all.candidates.filter((c) => modes.static.has(c.nodePool));
  const budgets = poolBudgets({
    now: input.now,
    nodePools: input.cluster.nodePools,
    nodeClaims,
    nodes,
    pods,
    inFlight: input.inFlight,
  });
  const { snapshot, stays } = schedulingView(input, found.candidates);
  const ctx: MethodContext = {
    snapshot,
    compact: new CompactSnapshot(snapshot),
    stays,
    spotToSpot: input.spotToSpot,
    spotToSpotPools: spotToSpotPools(input.cluster),
    poolTotals: poolTotals(input.cluster, found.candidates, byName),
    policies: policies(input.cluster),
    poolTypes: new Map([...input.instanceTypes].map(([pool, types]) => [pool, new Set(types.map((t) => t.name))])),
    // A candidate's pod the simulation places on an uninitialized node makes the move wait (uninitializedPlacement).
    ledger: new BudgetLedger(budgets),
    skipped: [],
    budgetBlocked: [],
    scheduling: { ...input.scheduling },
  };
  return {
    candidates: found.candidates,
    staticCandidates,
    offPools: offPools(input.cluster, input.now),
    blocked: found.blocked,
    budgets,
    ctx,
    consolidating: consolidationCandidates(ctx, found.candidates),
  };
}

/** Active pods on the pass's managed nodes whose do-not-disrupt value Karpenter would ignore with an Event. */
function invalidAnnotations(input: DisruptionInput, pass: Pass): InvalidDoNotDisrupt[] {
  const blocked = pass.blocked.map((b) => b.node?.metadata?.name ?? "");
  const managed = new Set([...pass.candidates.map((c) => c.nodeName), ...blocked]);
  const out: InvalidDoNotDisrupt[] = [];
  for (const pod of input.cluster.pods) {
    if (!managed.has(pod.spec?.nodeName ?? "") || !isActivePod(pod)) continue;
    const message = invalidDoNotDisrupt(pod);
    const m = pod.metadata;
    if (message === undefined) continue;
    out.push({ pod: { namespace: m?.namespace ?? "", name: m?.name ?? "", uid: m?.uid }, message });
  }
  return out;
}

/** Computes the pass: what to do now (at most one command), and why the rest is left alone. */
export function planDisruption(input: DisruptionInput): DisruptionPlan {
  const pass = preparePass(input);
  const { ctx, candidates, consolidating } = pass;
  const eligible = {
    Empty: candidates.filter(isEmptyCandidate).length,
    Drifted: [...candidates, ...pass.staticCandidates].filter((c) => c.driftReason !== undefined).length,
    Underutilized: consolidating.length,
    KerfScheduledOff: candidates.filter((c) => pass.offPools.has(c.nodePool)).length,
  };
  let resumeAfter: string | undefined;
  let driftResumeAfter: string | undefined;
  const bound = input.maxSingleNodeEvaluations ?? DEFAULT_MAX_SINGLE_NODE_EVALUATIONS;
  const methods: readonly [Method, () => Command | undefined][] = [
    ["scheduled-off", () => scheduledOff(ctx, candidates, pass.offPools)],
    ["emptiness", () => emptiness(ctx, candidates)],
    [
      "static-drift",
      () => staticDrift(ctx, { ...input.cluster, instanceTypes: input.instanceTypes }, pass.staticCandidates),
    ],
    [
      "drift",
      () => {
        const r = boundedDrift(ctx, candidates, { maxEvaluations: bound, resumeAfter: input.driftResumeAfter });
        driftResumeAfter = r.stoppedAt;
        return r.command;
      },
    ],
    ["multi-node-consolidation", () => multiNode(ctx, consolidating)],
    [
      "single-node-consolidation",
      () => {
        const r = singleNode(ctx, consolidating, { maxEvaluations: bound, resumeAfter: input.resumeAfter });
        resumeAfter = r.stoppedAt;
        return r.command;
      },
    ],
  ];
  let command: Command | undefined;
  let method: Method | undefined;
  for (const [name, run] of methods) {
    method = name;
    command = run();
    if (command !== undefined) break;
  }
  return {
    command,
    method,
    budgets: pass.budgets,
    eligible,
    blocked: [...pass.blocked, ...ctx.budgetBlocked],
    unconsolidatable: ctx.skipped,
    resumeAfter,
    driftResumeAfter,
    invalidDoNotDisrupt: invalidAnnotations(input, pass),
  };
}

/**
 * The disruption what-if of `kerf simulate`: the plan the operator's disruption pass would execute
 * now on the scenario's existing Nodes, pass after pass. Pure: the scenario's objects and the time in,
 * the steps out (the CLI prints them).
 *
 * The scenario's Nodes that carry `karpenter.sh/nodepool` naming one of its NodePools are managed. Each
 * gets the NodeClaim the scenario gives for it (matched by `status.nodeName`, `status.providerID` or
 * name) or one made up for it; either way conditions it does not state are `Initialized=True` and
 * `Consolidatable=True` (False when the pool's `consolidateAfter` is `Never`), so a NodeClaim in the
 * scenario is how to say "drifted" (`Drifted=True` with a reason), "not consolidatable yet" or "not
 * initialized". Nodes without conditions are Ready; a PodDisruptionBudget without a status allows what
 * its minAvailable/maxUnavailable leave of the scenario's pods it selects. Nodes the scheduling
 * simulation puts pending pods on count as nominated (they are not disrupted).
 *
 * One pass executes one command. To show the whole picture the command is applied — candidates
 * removed, replacements added as initialized nodes, the moved pods bound where a simulation of the
 * resulting cluster puts them — and the next pass planned, until a pass finds nothing or the pass limit.
 */
import { ALL_DISRUPTION_REASONS, MAX_INT32 } from "../../policies/domain/budgets.ts";
import type { InstanceType } from "../../policies/domain/instance-types.ts";
import { Label } from "../../policies/domain/labels.ts";
import { formatResource } from "../../policies/domain/quantity.ts";
import { planDisruption } from "../../operator/core/disruption/plan.ts";
import type { Command, DisruptionPlan, DisruptionReason, Skipped } from "../../operator/core/disruption/types.ts";
import type { Node, NodeClaim, Pod } from "../../operator/core/lifecycle/objects.ts";
import { existingPlaces, type ClusterView } from "../../operator/core/provisioning/cluster-view.ts";
import { namespaceLabelMap, viewVolumes } from "../../operator/core/provisioning/cluster-view.ts";
import { typesByName } from "../../operator/core/provisioning/plan.ts";
import { claimConditions, isManagedNode, scenarioCluster } from "../../operator/core/scheduling/scenario/cluster.ts";
import type { Obj, ScenarioObjects } from "../../operator/core/scheduling/scenario/objects.ts";
import { simPodFromPod } from "../../operator/core/scheduling/pod-spec.ts";
import { simulate } from "../../operator/core/scheduling/simulate.ts";
import type { PlannedNodeClaim, SimulateOptions } from "../../operator/core/scheduling/types.ts";

export const DEFAULT_MAX_PASSES = 50;

export interface WhatIfOptions {
  readonly now: Date;
  readonly maxPasses: number;
  readonly spotToSpot: boolean;
  /** Nodes pending pods go to (the scheduling simulation's placements on existing nodes). */
  readonly nominated: ReadonlySet<string>;
  /** The scheduling options of the plan (`--max-price-ratio`), used by drift's replacements too. */
  readonly scheduling?: SimulateOptions;
}

export interface WhatIfNode {
  readonly nodeClaim: string;
  readonly node: string;
  readonly nodePool: string;
  readonly instanceType: string;
  readonly capacityType: string;
  readonly zone: string;
  readonly pricePerHour: number;
  readonly pods: number;
}

export interface WhatIfLaunch {
  readonly node: string;
  readonly nodePool: string;
  readonly instanceType: string;
  readonly capacityType: string;
  readonly zone: string;
  readonly pricePerHour: number;
  readonly pods: readonly string[];
}

export interface WhatIfStep {
  readonly pass: number;
  readonly method: string;
  readonly reason: DisruptionReason;
  readonly decision: "delete" | "replace";
  readonly candidates: readonly WhatIfNode[];
  readonly replacements: readonly WhatIfLaunch[];
  readonly savingsPerHour: number;
  readonly totalSavingsPerHour: number;
}

export interface WhatIfBudget {
  readonly nodePool: string;
  readonly reason: DisruptionReason;
  readonly nodes: number;
  readonly disrupting: number;
  /** null: no active budget limits this reason. */
  readonly allowed: number | null;
  readonly explanation: string;
}

export interface WhatIfBlocker {
  readonly nodeClaim: string;
  readonly node: string;
  readonly kind: string;
  readonly message: string;
}

export interface WhatIf {
  readonly at: string;
  /** Managed nodes in the scenario. */
  readonly nodes: number;
  readonly steps: readonly WhatIfStep[];
  /** What each pool's budgets allow now (the first pass). */
  readonly budgets: readonly WhatIfBudget[];
  readonly eligible: Readonly<Record<DisruptionReason, number>>;
  /**
   * What keeps the remaining nodes: the blockers of the last pass (the one that found nothing, or the last planned).
   */
  readonly blocked: readonly WhatIfBlocker[];
  readonly unconsolidatable: readonly WhatIfBlocker[];
  readonly stopped: string;
  readonly nodesRemoved: number;
  readonly nodesLaunched: number;
  readonly totalSavingsPerHour: number;
}

const round = (x: number): number => Math.round(x * 1e6) / 1e6;

/** The cluster the disruption pass reads, or undefined when no Node belongs to a NodePool of the scenario. */
export function whatIfCluster(objects: ScenarioObjects, now: Date): ClusterView | undefined {
  if (!objects.nodes.some((n) => isManagedNode(objects, n))) return undefined;
  return scenarioCluster(objects, now);
}

interface Managed {
  readonly node: Node;
  readonly claim: NodeClaim;
}

/** A replacement as a registered, initialized Node with its NodeClaim. */
function launched(
  r: PlannedNodeClaim,
  name: string,
  types: ReadonlyMap<string, InstanceType>,
  view: ClusterView,
): Managed {
  const type = types.get(r.launch.instanceType);
  const single = Object.fromEntries(
    r.requirements
      .filter((q) => q.operator === "In" && q.values?.length === 1)
      .map((q) => [q.key, q.values?.[0] ?? ""]),
  );
  const labels = {
    ...type?.labels,
    ...single,
    [Label.nodePool]: r.nodePool,
    [Label.instanceType]: r.launch.instanceType,
    [Label.zone]: r.launch.zone,
    [Label.capacityType]: r.launch.capacityType,
    [Label.hostname]: name,
  };
  const allocatable = Object.fromEntries(
    Object.entries(type?.allocatable ?? {}).map(([k, v]) => [k, formatResource(k, v)]),
  );
  const providerID = `kerf-simulate:///${name}`;
  const pool = view.nodePools.find((p) => p.metadata?.name === r.nodePool) as Obj | undefined;
  const node = {
    metadata: { name, labels },
    spec: { providerID },
    status: { conditions: [{ type: "Ready", status: "True" }], allocatable },
  };
  const claim = {
    metadata: { name, labels },
    spec: {},
    status: { providerID, nodeName: name, allocatable, conditions: claimConditions(undefined, pool) },
  };
  return { node: node as Node, claim: claim as NodeClaim };
}

const podUid = (p: Pod): string => p.metadata?.uid ?? "";
const nodeOf = (p: Pod): string => p.spec?.nodeName ?? "";

function rebound(pod: Pod, node: string): Pod {
  return { ...pod, spec: { ...pod.spec, nodeName: node } };
}

/** Where the moved pods go in the cluster after the command, or the first pod that fits nowhere. */
function placements(
  view: ClusterView,
  moved: readonly Pod[],
  types: ReadonlyMap<string, InstanceType>,
): Map<string, string> | string {
  const nodes = existingPlaces(view, types).targets.map((t) => t.node);
  const snapshot = {
    nodes,
    nodePools: [],
    daemonSets: [],
    namespaces: namespaceLabelMap(view.namespaces),
    volumes: viewVolumes(view),
  };
  const result = simulate(
    snapshot,
    moved.map((p) => simPodFromPod(p)),
    { maxNewClaims: 0 },
  );
  const failed = result.podErrors[0];
  if (failed !== undefined)
    return `pod ${failed.pod.namespace}/${failed.pod.name} fits on no node left: ${failed.reason}`;
  return new Map(result.existingPlacements.map((p) => [p.pod.uid, p.node]));
}

/** The cluster once `command` has run: candidates gone, replacements up, moved pods bound. */
export function applyCommand(
  view: ClusterView,
  command: Command,
  pass: number,
  types: ReadonlyMap<string, InstanceType>,
): { view: ClusterView; launched: string[] } | string {
  const gone = new Set(command.candidates.map((c) => c.nodeName));
  const goneClaims = new Set(command.candidates.map((c) => c.name));
  const fresh = command.replacements.map((r, i) => ({ r, m: launched(r, `whatif-${pass}-${i + 1}`, types, view) }));
  const onNew = new Map(fresh.flatMap(({ r, m }) => r.pods.map((p) => [p.uid, m.node.metadata?.name ?? ""] as const)));
  const movers = new Set(command.candidates.flatMap((c) => c.pods.map(podUid)));
  const kept = view.pods.filter((p) => !gone.has(nodeOf(p)));
  const next: ClusterView = {
    ...view,
    nodes: [...view.nodes.filter((n) => !gone.has(n.metadata?.name ?? "")), ...fresh.map((f) => f.m.node)],
    nodeClaims: [
      ...view.nodeClaims.filter((c) => !goneClaims.has(c.metadata?.name ?? "")),
      ...fresh.map((f) => f.m.claim),
    ],
    pods: [
      ...kept,
      ...view.pods.filter((p) => onNew.has(podUid(p))).map((p) => rebound(p, onNew.get(podUid(p)) ?? "")),
    ],
  };
  const moved = view.pods.filter((p) => movers.has(podUid(p)) && !onNew.has(podUid(p)));
  const placed = placements(next, moved, types);
  if (typeof placed === "string") return placed;
  return {
    view: { ...next, pods: [...next.pods, ...moved.map((p) => rebound(p, placed.get(simPodFromPod(p).uid) ?? ""))] },
    launched: fresh.map((f) => f.m.node.metadata?.name ?? ""),
  };
}

function stepOf(command: Command, pass: number, launchedNames: readonly string[], total: number): WhatIfStep {
  return {
    pass,
    method: command.method,
    reason: command.reason,
    decision: command.decision,
    candidates: command.candidates.map((c) => ({
      nodeClaim: c.name,
      node: c.nodeName,
      nodePool: c.nodePool,
      instanceType: c.instanceType,
      capacityType: c.capacityType,
      zone: c.zone,
      pricePerHour: round(c.pricePerHour),
      pods: c.pods.length,
    })),
    replacements: command.replacements.map((r, i) => ({
      node: launchedNames[i] ?? "",
      nodePool: r.nodePool,
      ...r.launch,
      pricePerHour: round(r.launch.pricePerHour),
      pods: r.pods.map((p) => `${p.namespace}/${p.name}`),
    })),
    savingsPerHour: round(command.savingsPerHour),
    totalSavingsPerHour: round(total),
  };
}

/**
 * One entry per NodeClaim and kind of blocker (the first method's message: a node blocked by the Empty
 * budget is usually also blocked by the Underutilized one). A NodeClaim that single-node consolidation
 * evaluated and kept is not also listed as budget-blocked by multi-node consolidation, whose budget share
 * it did not get: what keeps it is the evaluation.
 */
function blockers(skipped: readonly Skipped[], evaluated: ReadonlySet<string> = new Set()): WhatIfBlocker[] {
  const seen = new Set<string>();
  return skipped.flatMap((s) => {
    const b = {
      nodeClaim: s.nodeClaim.metadata?.name ?? "",
      node: s.node?.metadata?.name ?? s.nodeClaim.status?.nodeName ?? "",
      kind: s.blocker.kind,
      message: s.blocker.message,
    };
    const key = `${b.nodeClaim}\u0000${b.kind}`;
    if (seen.has(key) || (b.kind === "budget" && evaluated.has(b.nodeClaim))) return [];
    seen.add(key);
    return [b];
  });
}

function budgetsOf(plan: DisruptionPlan): WhatIfBudget[] {
  return plan.budgets.map((b) => ({ ...b, allowed: b.allowed >= MAX_INT32 ? null : b.allowed }));
}

/** Plans pass after pass on the scenario's managed nodes; undefined when it has none. */
export function whatIf(objects: ScenarioObjects, options: WhatIfOptions): WhatIf | undefined {
  let view = whatIfCluster(objects, options.now);
  if (view === undefined) return undefined;
  const managedClaims = view.nodeClaims.length;
  const types = typesByName(objects.instanceTypes);
  const input = (cluster: ClusterView): Parameters<typeof planDisruption>[0] => ({
    now: options.now,
    cluster,
    instanceTypes: objects.instanceTypes,
    nominated: options.nominated,
    inFlight: new Set(),
    spotToSpot: options.spotToSpot,
    // The scenario's unbound pods are pending: their room is not offered to consolidation, as in the operator.
    pending: cluster.pods.filter((p) => (p.spec?.nodeName ?? "") === "" && p.metadata?.deletionTimestamp === undefined),
    ...(options.scheduling === undefined ? {} : { scheduling: options.scheduling }),
  });
  const steps: WhatIfStep[] = [];
  const first = planDisruption(input(view));
  let plan = first;
  let total = 0;
  let stopped = "nothing more to do";
  for (let pass = 1; plan.command !== undefined; pass++) {
    const applied = applyCommand(view, plan.command, pass, types);
    if (typeof applied === "string") {
      stopped = `pass ${pass} cannot be applied to the scenario: ${applied}`;
      break;
    }
    total += plan.command.savingsPerHour;
    steps.push(stepOf(plan.command, pass, applied.launched, total));
    view = applied.view;
    if (pass >= options.maxPasses) {
      stopped = `stopped after ${options.maxPasses} passes (--passes)`;
      break;
    }
    plan = planDisruption(input(view));
  }
  const launchedCount = steps.reduce((s, x) => s + x.replacements.length, 0);
  return {
    at: options.now.toISOString(),
    nodes: managedClaims,
    steps,
    budgets: budgetsOf(first),
    eligible: Object.fromEntries(ALL_DISRUPTION_REASONS.map((r) => [r, first.eligible[r]])) as Record<
      DisruptionReason,
      number
    >,
    blocked: blockers(plan.blocked, new Set(plan.unconsolidatable.map((u) => u.nodeClaim.metadata?.name ?? ""))),
    unconsolidatable: blockers(plan.unconsolidatable),
    stopped,
    nodesRemoved: steps.reduce((s, x) => s + x.candidates.length, 0),
    nodesLaunched: launchedCount,
    totalSavingsPerHour: round(total),
  };
}

const money = (x: number): string => `$${x.toFixed(4)}/h`;
const describeNode = (n: WhatIfNode): string =>
  `${n.node} (${n.nodePool}, ${n.instanceType} ${n.capacityType} in ${n.zone}, ` +
  `${money(n.pricePerHour)}, ${n.pods} pod(s))`;

function stepLines(s: WhatIfStep): string[] {
  const what = s.decision === "delete" ? "delete" : "replace";
  const launches = s.replacements.map(
    (r) =>
      `    with ${r.instanceType} ${r.capacityType} in ${r.zone} (${r.nodePool}, ${money(r.pricePerHour)}) ` +
      `as ${r.node}, for ${r.pods.length} pod(s)`,
  );
  return [
    `  Pass ${s.pass}: ${s.method} (${s.reason}): ${what} ${s.candidates.map(describeNode).join(", ")}`,
    ...launches,
    `    saves ${money(s.savingsPerHour)}; running total ${money(s.totalSavingsPerHour)}`,
  ];
}

/** The what-if for people. */
export function formatWhatIf(w: WhatIf): string {
  const lines = [`Disruption what-if at ${w.at} (${w.nodes} NodeClaim(s) managed by the scenario's NodePools):`];
  if (w.steps.length === 0) lines.push("  No disruption now.");
  lines.push(...w.steps.flatMap(stepLines), `  Then: ${w.stopped}.`);
  lines.push("Budgets now (allowed disruptions per NodePool and reason):");
  lines.push(
    ...w.budgets.map(
      (b) =>
        `  ${b.nodePool} ${b.reason}: ${b.allowed ?? "unlimited"} of ${b.nodes} node(s)` +
        `${b.disrupting > 0 ? `, ${b.disrupting} already disrupting` : ""} — ${b.explanation}`,
    ),
  );
  const held = [
    ...w.blocked.map((b) => ({ ...b, what: "blocked" })),
    ...w.unconsolidatable.map((b) => ({ ...b, what: "kept" })),
  ];
  if (held.length > 0)
    lines.push(
      "What keeps the rest:",
      ...held.map((b) => `  ${b.node || b.nodeClaim}: ${b.what} (${b.kind}): ${b.message}`),
    );
  lines.push(
    `Disruption total: ${w.nodesRemoved} node(s) removed, ${w.nodesLaunched} launched, ` +
      `saving ${money(w.totalSavingsPerHour)}`,
  );
  return `${lines.join("\n")}\n`;
}

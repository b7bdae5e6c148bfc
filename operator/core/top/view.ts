/**
 * `kerf top`'s model and frame, pure: from a snapshot of the cluster (NodePools, NodeClaims, Nodes, Pods, PDBs) and
 * kerf's catalog, what eks-node-viewer shows for Karpenter (each node's pod requests against its allocatable, its
 * $/h and the total) plus the disruption state the operator would see: the NodePools' budgets (poolBudgets) and why
 * a node is not disrupted (findCandidates' blockers), from the operator's own functions.
 */
import { formatResource, parseResourceList, type ResourceList } from "../../../policies/domain/quantity.ts";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { Label } from "../../../policies/domain/labels.ts";
import { findCandidates, isEmpty, runningPrice } from "../disruption/candidates.ts";
import { poolBudgets, type PoolObject } from "../disruption/pool-budgets.ts";
import type { Node, NodeClaim, PdbLike, Pod } from "../lifecycle/objects.ts";
import { findCondition } from "../lifecycle/objects.ts";
import { isStatic } from "../nodepool/static.ts";
import { podRequests } from "../scheduling/pod-spec.ts";

/** One snapshot of the cluster, as read from the apiserver. */
export interface TopInput {
  readonly now: number;
  readonly nodePools: readonly PoolObject[];
  readonly nodeClaims: readonly NodeClaim[];
  readonly nodes: readonly Node[];
  readonly pods: readonly Pod[];
  readonly pdbs: readonly PdbLike[];
  readonly types: ReadonlyMap<string, InstanceType>;
}

export interface Usage {
  readonly requested: number;
  readonly allocatable: number;
}

export interface NodeRow {
  readonly name: string;
  readonly nodePool: string;
  readonly instanceType: string;
  readonly capacityType: string;
  readonly zone: string;
  readonly cpu: Usage;
  readonly memory: Usage;
  readonly pods: number;
  readonly pricePerHour: number;
  /** The disruption state: what the operator would do with the node, or why it would not. */
  readonly state: string;
}

export interface PoolRow {
  readonly name: string;
  readonly nodes: number;
  readonly pricePerHour: number;
  /** "Empty 1/3": disruptions the budgets allow now per reason, of the pool's nodes. */
  readonly budgets: readonly string[];
}

export interface ClaimRow {
  readonly name: string;
  readonly nodePool: string;
  readonly instanceType: string;
  readonly state: string;
}

export interface TopView {
  readonly pools: readonly PoolRow[];
  readonly nodes: readonly NodeRow[];
  readonly claims: readonly ClaimRow[];
  readonly pricePerHour: number;
}

const nameOf = (o: { readonly metadata?: { readonly name?: string | undefined } | undefined }): string =>
  o.metadata?.name ?? "";

function active(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== "Succeeded" && phase !== "Failed";
}

function requestsOf(pod: Pod): ResourceList {
  try {
    return podRequests((pod.spec ?? {}) as Readonly<Record<string, unknown>>);
  } catch {
    return {}; // a pod whose quantity does not parse cannot be stored by the apiserver; count it as nothing
  }
}

function allocatableOf(node: Node): ResourceList {
  try {
    return parseResourceList(node.status?.allocatable as Readonly<Record<string, unknown>> | undefined);
  } catch {
    return {};
  }
}

/** A NodeClaim's lifecycle state as Karpenter's `kubectl get nodeclaims` columns read it. */
function claimState(claim: NodeClaim): string {
  if (claim.metadata?.deletionTimestamp !== undefined) return "Deleting";
  for (const type of ["Initialized", "Registered", "Launched"]) {
    if (findCondition(claim.status?.conditions, type)?.status === "True") return type;
  }
  return "Launching";
}

type Found = ReturnType<typeof findCandidates>;

/** What the operator would do with a candidate, or which budget or wait holds it. */
function candidateState(
  candidate: Found["candidates"][number],
  zeroBudget: ReadonlySet<string>,
  fixed: ReadonlySet<string>,
): string {
  if (candidate.podBlocker !== undefined) return `blocked: ${candidate.podBlocker.message}`;
  // A static NodePool's node goes only through StaticDrift (replaced one for one); nothing empties or consolidates it.
  if (fixed.has(candidate.nodePool) && candidate.driftReason === undefined) return "static: kept (spec.replicas)";
  const reason = candidate.driftReason !== undefined ? "Drifted" : isEmpty(candidate) ? "Empty" : "Underutilized";
  if (zeroBudget.has(`${candidate.nodePool}/${reason}`)) return `${reason.toLowerCase()}: budget allows 0 now`;
  if (candidate.driftReason !== undefined) return `drifted (${candidate.driftReason}): to be replaced`;
  if (!candidate.consolidatable) return "not consolidatable yet (consolidateAfter)";
  return isEmpty(candidate) ? "empty: to be removed" : "consolidation candidate";
}

function stateOf(
  claim: NodeClaim | undefined,
  found: Found,
  zeroBudget: ReadonlySet<string>,
  fixed: ReadonlySet<string>,
): string {
  if (claim === undefined) return "not managed by kerf (no NodeClaim)";
  const name = nameOf(claim);
  if (claim.metadata?.deletionTimestamp !== undefined) return "deleting";
  const blocked = found.blocked.find((s) => nameOf(s.nodeClaim) === name);
  if (blocked !== undefined) return `blocked: ${blocked.blocker.message}`;
  const candidate = found.candidates.find((c) => c.name === name);
  return candidate === undefined ? claimState(claim).toLowerCase() : candidateState(candidate, zeroBudget, fixed);
}

function requestedOn(pods: readonly Pod[]): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const pod of pods) for (const [k, v] of Object.entries(requestsOf(pod))) sum[k] = (sum[k] ?? 0) + v;
  return sum;
}

function nodeRow(
  node: Node,
  claim: NodeClaim | undefined,
  pods: readonly Pod[],
  context: { readonly types: TopInput["types"]; readonly state: string },
): NodeRow {
  const labels: Readonly<Record<string, string>> = { ...claim?.metadata?.labels, ...node.metadata?.labels };
  const requested = requestedOn(pods);
  const allocatable = allocatableOf(node);
  return {
    name: nameOf(node),
    nodePool: labels[Label.nodePool] ?? "",
    instanceType: labels[Label.instanceType] ?? "",
    capacityType: labels[Label.capacityType] ?? "",
    zone: labels[Label.zone] ?? "",
    cpu: { requested: requested["cpu"] ?? 0, allocatable: allocatable["cpu"] ?? 0 },
    memory: { requested: requested["memory"] ?? 0, allocatable: allocatable["memory"] ?? 0 },
    pods: pods.length,
    pricePerHour: runningPrice(labels, context.types),
    state: context.state,
  };
}

/** Builds the view of one snapshot. */
export function buildView(input: TopInput): TopView {
  const found = findCandidates({
    now: input.now,
    nodeClaims: input.nodeClaims,
    nodes: input.nodes,
    pods: input.pods,
    pdbs: input.pdbs,
    nodePools: new Set(input.nodePools.map(nameOf)),
    types: input.types,
    nominated: new Set(),
    inFlight: new Set(),
  });
  const budgets = poolBudgets({
    now: new Date(input.now),
    nodePools: input.nodePools,
    nodeClaims: input.nodeClaims,
    nodes: input.nodes,
    inFlight: new Set(),
  });
  const zeroBudget = new Set(budgets.filter((b) => b.allowed === 0).map((b) => `${b.nodePool}/${b.reason}`));
  const fixed = new Set(input.nodePools.filter(isStatic).map(nameOf));
  const claimByProvider = new Map(input.nodeClaims.map((c) => [c.status?.providerID ?? "", c]));
  const podsByNode = new Map<string, Pod[]>();
  for (const pod of input.pods) {
    const node = pod.spec?.nodeName;
    if (node !== undefined && active(pod)) podsByNode.set(node, [...(podsByNode.get(node) ?? []), pod]);
  }
  const nodes = input.nodes
    .map((node) => {
      const claim = claimByProvider.get(node.spec?.providerID ?? "__none__");
      return nodeRow(node, claim, podsByNode.get(nameOf(node)) ?? [], {
        types: input.types,
        state: stateOf(claim, found, zeroBudget, fixed),
      });
    })
    .sort((a, b) => a.nodePool.localeCompare(b.nodePool) || a.name.localeCompare(b.name));
  const pools = input.nodePools
    .map((pool): PoolRow => {
      const name = nameOf(pool);
      const own = nodes.filter((n) => n.nodePool === name);
      return {
        name,
        nodes: own.length,
        pricePerHour: own.reduce((s, n) => s + n.pricePerHour, 0),
        budgets: budgets.filter((b) => b.nodePool === name).map((b) => `${b.reason} ${b.allowed}/${b.nodes}`),
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
  const nodeNames = new Set(nodes.map((n) => n.name));
  const claims = input.nodeClaims
    .filter((c) => !nodeNames.has(c.status?.nodeName ?? ""))
    .map((c) => ({
      name: nameOf(c),
      nodePool: c.metadata?.labels?.[Label.nodePool] ?? "",
      instanceType: c.metadata?.labels?.[Label.instanceType] ?? "",
      state: claimState(c),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return { pools, nodes, claims, pricePerHour: nodes.reduce((s, n) => s + n.pricePerHour, 0) };
}

function bar(usage: Usage, width: number): string {
  const ratio = usage.allocatable > 0 ? Math.min(usage.requested / usage.allocatable, 1) : 0;
  const filled = Math.round(ratio * width);
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}]`;
}

function percent(usage: Usage): string {
  return usage.allocatable > 0 ? `${Math.round((usage.requested / usage.allocatable) * 100)}%` : "-";
}

const money = (n: number): string => `$${n.toFixed(4)}/h`;

function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
  return rows.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
}

/**
 * Renders one frame: a header with the totals, the NodePools with their budgets, the
 * nodes, unregistered NodeClaims.
 */
export function renderView(view: TopView, at: string): string {
  const lines = [`kerf top  ${at}  ${view.nodes.length} nodes  ${money(view.pricePerHour)}`, ""];
  lines.push(
    ...table([
      ["NODEPOOL", "NODES", "$/H", "BUDGETS (allowed/nodes)"],
      ...view.pools.map((p) => [p.name, String(p.nodes), money(p.pricePerHour), p.budgets.join(", ")]),
    ]),
    "",
  );
  lines.push(
    ...table([
      ["NODE", "NODEPOOL", "TYPE", "CAPACITY", "ZONE", "CPU", "", "MEMORY", "", "PODS", "$/H", "DISRUPTION"],
      ...view.nodes.map((n) => [
        n.name,
        n.nodePool || "-",
        n.instanceType || "-",
        n.capacityType || "-",
        n.zone || "-",
        bar(n.cpu, 10),
        `${percent(n.cpu)} ${formatResource("cpu", n.cpu.requested)}/${formatResource("cpu", n.cpu.allocatable)}`,
        bar(n.memory, 10),
        percent(n.memory),
        String(n.pods),
        money(n.pricePerHour),
        n.state,
      ]),
    ]),
  );
  if (view.claims.length > 0) {
    lines.push(
      "",
      ...table([
        ["NODECLAIM (no node yet)", "NODEPOOL", "TYPE", "STATE"],
        ...view.claims.map((c) => [c.name, c.nodePool || "-", c.instanceType || "-", c.state]),
      ]),
    );
  }
  return lines.join("\n") + "\n";
}

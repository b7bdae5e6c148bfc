/**
 * The playground's live view: what the cluster holds right now (NodeClaims, Nodes, inflate pods, hourly
 * cost), rendered as compact text lines.
 */
import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1Node, type V1Pod } from "@kubernetes/client-node";
import type { Catalog } from "../../policies/domain/catalog/catalog.ts";
import { INFLATE, NAMESPACE } from "./workload.ts";

/** One NodeClaim as shown. */
export interface ClaimRow {
  readonly name: string;
  readonly instanceType: string;
  readonly capacityType: string;
  readonly zone: string;
  /** Pending, Launched, Registered, Initialized or Terminating. */
  readonly phase: string;
  readonly node: string;
  /** Disruption state: "disrupting: <reason>", "drifted: <reason>", "consolidatable" or "". */
  readonly disruption: string;
}

/** Everything one frame shows. */
export interface ViewState {
  readonly claims: readonly ClaimRow[];
  readonly nodes: number;
  readonly readyNodes: number;
  readonly running: number;
  readonly pending: number;
  readonly terminating: number;
  readonly costPerHour: number;
}

/** A NodeClaim as listed (only what the view reads). */
export interface RawClaim {
  readonly metadata?: {
    readonly name?: string;
    readonly labels?: Record<string, string>;
    readonly deletionTimestamp?: unknown;
  };
  readonly status?: {
    readonly nodeName?: string;
    readonly conditions?: readonly { readonly type: string; readonly status: string; readonly reason?: string }[];
  };
}

/** $/h of one instance type and capacity type; undefined when unknown. */
export type PriceOf = (instanceType: string, capacityType: string) => number | undefined;

/** Prices from the built-in catalog (on-demand list price, or its spot price). */
export function catalogPrices(catalog: Catalog): PriceOf {
  const byName = new Map(catalog.instanceTypes.map((t) => [t.name, t]));
  return (type, capacity) => {
    const entry = byName.get(type);
    if (entry === undefined) return undefined;
    return capacity === "spot" ? (entry.spotPricePerHour ?? undefined) : entry.onDemandPricePerHour;
  };
}

function phase(claim: RawClaim): string {
  if (claim.metadata?.deletionTimestamp !== undefined) return "Terminating";
  const isTrue = (type: string): boolean =>
    claim.status?.conditions?.some((c) => c.type === type && c.status === "True") ?? false;
  return ["Initialized", "Registered", "Launched"].find(isTrue) ?? "Pending";
}

function disruptionState(claim: RawClaim): string {
  const find = (type: string) => claim.status?.conditions?.find((c) => c.type === type && c.status === "True");
  const disrupting = find("DisruptionReason");
  if (disrupting !== undefined) return `disrupting: ${disrupting.reason ?? ""}`;
  const drifted = find("Drifted");
  if (drifted !== undefined) return `drifted: ${drifted.reason ?? ""}`;
  return find("Consolidatable") === undefined ? "" : "consolidatable";
}

/** Builds one frame from listed objects (pure). */
export function summarize(
  claims: readonly RawClaim[],
  nodes: readonly V1Node[],
  pods: readonly V1Pod[],
  price: PriceOf,
): ViewState {
  const rows = claims
    .map((c): ClaimRow => {
      const labels = c.metadata?.labels ?? {};
      return {
        name: c.metadata?.name ?? "",
        instanceType: labels["node.kubernetes.io/instance-type"] ?? "-",
        capacityType: labels["karpenter.sh/capacity-type"] ?? "-",
        zone: labels["topology.kubernetes.io/zone"] ?? "-",
        phase: phase(c),
        node: c.status?.nodeName ?? "",
        disruption: disruptionState(c),
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
  const live = pods.filter((p) => p.metadata?.deletionTimestamp === undefined);
  return {
    claims: rows,
    nodes: nodes.length,
    readyNodes: nodes.filter(
      (n) => n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true,
    ).length,
    running: live.filter((p) => p.status?.phase === "Running").length,
    pending: live.filter((p) => p.status?.phase !== "Running").length,
    terminating: pods.length - live.length,
    costPerHour: rows
      .filter((r) => r.phase !== "Terminating")
      .reduce((sum, r) => sum + (price(r.instanceType, r.capacityType) ?? 0), 0),
  };
}

const PHASE_COLOUR: Readonly<Record<string, number>> = {
  Pending: 90,
  Launched: 33,
  Registered: 36,
  Initialized: 32,
  Terminating: 31,
};

/** Renders a frame: a summary line, then one indented line per NodeClaim. ANSI colour only when `color`. */
export function render(state: ViewState, o: { color: boolean }): string[] {
  const paint = (code: number, text: string): string => (o.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const pods = [
    `${state.running} running`,
    ...(state.pending > 0 ? [paint(33, `${state.pending} pending`)] : []),
    ...(state.terminating > 0 ? [`${state.terminating} terminating`] : []),
  ];
  const head =
    `pods ${pods.join(", ")} | nodes ${state.nodes} (${state.readyNodes} ready) | ` +
    `nodeclaims ${state.claims.length} | $${state.costPerHour.toFixed(4)}/h`;
  const width = (pick: (r: ClaimRow) => string): number => Math.max(0, ...state.claims.map((r) => pick(r).length));
  const w = {
    name: width((r) => r.name),
    type: width((r) => r.instanceType),
    cap: width((r) => r.capacityType),
    zone: width((r) => r.zone),
  };
  const rows = state.claims.map((r) =>
    (
      `  ${r.name.padEnd(w.name)}  ${r.instanceType.padEnd(w.type)}  ${r.capacityType.padEnd(w.cap)}  ` +
      `${r.zone.padEnd(w.zone)}  ${paint(PHASE_COLOUR[r.phase] ?? 0, r.phase.padEnd(11))}` +
      `${r.node === "" ? "" : `  node ${r.node}`}${r.disruption === "" ? "" : `  ${r.disruption}`}`
    ).trimEnd(),
  );
  return [head, ...rows];
}

/** Reads the cluster for one frame. */
export async function observe(kc: KubeConfig, price: PriceOf): Promise<ViewState> {
  const core = kc.makeApiClient(CoreV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const [claims, nodes, pods] = await Promise.all([
    custom.listClusterCustomObject({ group: "karpenter.sh", version: "v1", plural: "nodeclaims" }) as Promise<{
      items: RawClaim[];
    }>,
    core.listNode(),
    core.listNamespacedPod({ namespace: NAMESPACE, labelSelector: `app=${INFLATE}` }),
  ]);
  return summarize(claims.items, nodes.items, pods.items, price);
}

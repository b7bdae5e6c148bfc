/**
 * The cluster as the operator's caches would hold it, from a scenario's objects: what the scenario leaves
 * unsaid is filled in as a healthy cluster has it (scenario.ts's header says what); its waiting pods are
 * unbound. Used by buildScenario and by the CLI's disruption what-if (webhook/cli/simulate-disruption.ts).
 */
import { Label } from "../../../../policies/domain/labels.ts";
import type { Node, NodeClaim, PdbLike, Pod } from "../../lifecycle/objects.ts";
import type { ClusterView, DaemonSetObject, NodePoolObject } from "../../provisioning/cluster-view.ts";
import { selectorMatches } from "../selector.ts";
import type { LabelSelector } from "../types.ts";
import { volumeView } from "../volume-objects.ts";
import { docLabels, nameOf, o, type Obj, type ScenarioObjects } from "./objects.ts";

interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
}

/** A NodePool without conditions is Ready (a scenario describes a working cluster unless it says otherwise). */
function poolWithStatus(pool: Obj): NodePoolObject {
  const status = o(pool["status"]);
  return (
    Array.isArray(status["conditions"])
      ? pool
      : { ...pool, status: { ...status, conditions: [{ type: "Ready", status: "True" }] } }
  ) as NodePoolObject;
}

function consolidateNever(pool: Obj | undefined): boolean {
  return o(o(pool?.["spec"])["disruption"])["consolidateAfter"] === "Never";
}

/** The given conditions, with Initialized and Consolidatable added where not stated. */
export function claimConditions(given: Obj | undefined, pool: Obj | undefined): Condition[] {
  const stated = (
    Array.isArray(o(given?.["status"])["conditions"]) ? o(given?.["status"])["conditions"] : []
  ) as Condition[];
  const has = (type: string): boolean => stated.some((c) => c.type === type);
  return [
    ...stated,
    ...(has("Initialized") ? [] : [{ type: "Initialized", status: "True" }]),
    ...(has("Consolidatable") ? [] : [{ type: "Consolidatable", status: consolidateNever(pool) ? "False" : "True" }]),
  ];
}

function matchingClaim(node: Obj, providerID: string, claims: readonly Obj[]): Obj | undefined {
  const name = nameOf(node);
  return (
    claims.find((c) => o(c["status"])["nodeName"] === name) ??
    claims.find((c) => providerID !== "" && o(c["status"])["providerID"] === providerID) ??
    claims.find((c) => nameOf(c) === name)
  );
}

interface Managed {
  readonly node: Node;
  readonly claim: NodeClaim;
}

/** The NodeClaim a managed Node gets: the scenario's (its unstated conditions defaulted) or one made up. */
function claimFor(
  node: Obj,
  given: Obj | undefined,
  providerID: string,
  context: { pool: Obj | undefined; now: Date },
): NodeClaim {
  const { pool, now } = context;
  const status = o(node["status"]);
  const meta = o(given?.["metadata"]);
  const created = o(node["metadata"])["creationTimestamp"] ?? meta["creationTimestamp"] ?? now.toISOString();
  const claimStatus = o(given?.["status"]);
  // What the node holds counts against its pool's limits, as a launched NodeClaim's status.capacity does.
  const capacity = claimStatus["capacity"] ?? status["capacity"] ?? status["allocatable"];
  const claim = {
    ...given,
    metadata: {
      ...meta,
      name: given === undefined ? nameOf(node) : nameOf(given),
      labels: { ...docLabels(node), ...o(meta["labels"]) },
      creationTimestamp: created,
    },
    spec: o(given?.["spec"]),
    status: {
      ...claimStatus,
      providerID,
      nodeName: nameOf(node),
      conditions: claimConditions(given, pool),
      allocatable: status["allocatable"],
      ...(capacity === undefined ? {} : { capacity }),
    },
  };
  return claim as unknown as NodeClaim;
}

function managed(node: Obj, claims: readonly Obj[], pool: Obj | undefined, now: Date): Managed {
  const ownID = String(o(node["spec"])["providerID"] ?? "");
  const given = matchingClaim(node, ownID, claims);
  const providerID =
    ownID !== "" ? ownID : String(o(given?.["status"])["providerID"] ?? `kerf-simulate:///${nameOf(node)}`);
  const status = o(node["status"]);
  const withStatus = {
    ...node,
    spec: { ...o(node["spec"]), providerID },
    status: { ...status, conditions: status["conditions"] ?? [{ type: "Ready", status: "True" }] },
  };
  return { node: withStatus as Node, claim: claimFor(node, given, providerID, { pool, now }) };
}

/**
 * minAvailable / maxUnavailable as a count of `expected` pods (percentages round up, as the disruption
 * controller does).
 */
function scaled(value: unknown, expected: number): number {
  if (typeof value === "string" && value.endsWith("%")) return Math.ceil((Number(value.slice(0, -1)) / 100) * expected);
  return Number(value);
}

function pdbWithStatus(pdb: Obj, pods: readonly Obj[]): PdbLike {
  const status = o(pdb["status"]);
  if (typeof status["disruptionsAllowed"] === "number") return pdb as PdbLike;
  const spec = o(pdb["spec"]);
  const ns = String(o(pdb["metadata"])["namespace"] ?? "default");
  const selector = spec["selector"];
  const selected =
    selector === undefined || selector === null
      ? []
      : pods.filter(
          (p) =>
            String(o(p["metadata"])["namespace"] ?? "default") === ns &&
            selectorMatches(selector as LabelSelector, docLabels(p)),
        );
  const n = selected.length;
  const allowed =
    spec["maxUnavailable"] !== undefined
      ? scaled(spec["maxUnavailable"], n)
      : spec["minAvailable"] !== undefined
        ? n - scaled(spec["minAvailable"], n)
        : n;
  return { ...pdb, status: { ...status, disruptionsAllowed: Math.max(0, allowed) } } as PdbLike;
}

/** Whether a scenario Node belongs to one of its NodePools (label karpenter.sh/nodepool). */
export function isManagedNode(objects: Pick<ScenarioObjects, "nodePools">, node: Obj): boolean {
  return objects.nodePools.some((p) => nameOf(p) === (docLabels(node)[Label.nodePool] ?? ""));
}

/**
 * The cluster as the operator's caches would hold it: the scenario's objects with what they leave
 * unsaid filled in (header), its waiting pods unbound.
 */
export function scenarioCluster(objects: ScenarioObjects, now: Date): ClusterView {
  const pools = new Map(objects.nodePools.map((p) => [nameOf(p), p]));
  const done = objects.nodes.map((n) =>
    isManagedNode(objects, n)
      ? managed(n, objects.nodeClaims, pools.get(docLabels(n)[Label.nodePool] ?? ""), now)
      : { node: n as Node, claim: undefined },
  );
  const used = new Set(done.map((d) => d.claim?.metadata?.name));
  return {
    nodePools: objects.nodePools.map(poolWithStatus),
    nodes: done.map((d) => d.node),
    nodeClaims: [
      ...done.flatMap((d) => (d.claim === undefined ? [] : [d.claim])),
      ...(objects.nodeClaims.filter((c) => !used.has(nameOf(c))) as NodeClaim[]),
    ],
    pods: [...objects.pods, ...(objects.pending ?? [])] as readonly Pod[],
    daemonSets: objects.daemonSets as readonly DaemonSetObject[],
    pdbs: objects.pdbs.map((p) => pdbWithStatus(p, objects.pods)),
    namespaces: objects.namespaces,
    ...volumeView(objects.volumes ?? []),
    ...objects.selectorSources,
  };
}

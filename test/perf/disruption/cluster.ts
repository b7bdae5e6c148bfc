/**
 * A synthetic cluster for the disruption benchmark: N Nodes with their NodeClaims and pods on the
 * built-in us-east-1 catalog, spread over four NodePools with different budgets and policies, in a
 * seeded, reproducible mix of node states. Every node runs one DaemonSet pod; the other pods belong
 * to Deployments (ReplicaSet-owned, some spread over zones).
 */
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { toInstanceTypes } from "../../../policies/domain/catalog/catalog.ts";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { formatResource } from "../../../policies/domain/quantity.ts";
import type { Node, NodeClaim, PdbLike, Pod } from "../../../operator/core/lifecycle/objects.ts";
import type { DaemonSetObject, NodePoolObject } from "../../../operator/core/provisioning/cluster-view.ts";
import type { DisruptionInput } from "../../../operator/core/disruption/plan.ts";
import { prng } from "../scheduling/generator.ts";

export const NOW = new Date("2026-11-25T12:00:00Z");
const HOUR_AGO = new Date(NOW.getTime() - 3_600_000).toISOString();
const ZONES = ["us-east-1a", "us-east-1b", "us-east-1c"];
const MI = 2 ** 20;

/** Shares of nodes in each state; the rest are moderately used (60–75 % of their allocatable). */
export interface ClusterMix {
  readonly empty: number;
  readonly underutilized: number;
  readonly drifted: number;
  /** Nodes with a pod under a PDB that allows no disruption, or annotated do-not-disrupt. */
  readonly blocked: number;
  /** Fill the moderately used nodes completely (nothing fits elsewhere, nothing cheaper holds them). */
  readonly full: boolean;
  /**
   * Give each NodePool a CPU limit 10 % below the CPU its nodes have now (limits lowered under a running
   * pool): a replacement is counted against the limit with every other node, so none fits under it.
   */
  readonly limitsBelowUsage?: boolean;
}

export const REALISTIC: ClusterMix = { empty: 0.05, underutilized: 0.08, drifted: 0.04, blocked: 0.03, full: false };
/** No empty or drifted node and every node full: both consolidation methods run to the end and find nothing. */
export const NOTHING_TO_DO: ClusterMix = { empty: 0, underutilized: 0, drifted: 0, blocked: 0.03, full: true };

interface PoolSpec {
  readonly name: string;
  readonly share: number;
  readonly types: readonly string[];
  readonly capacityType: "on-demand" | "spot";
  readonly policy: string;
  readonly budgets: readonly Record<string, unknown>[];
  readonly weight: number;
}

// Families c5/m5/r5 on-demand (as in the EKS workshop): the full nodes of the worst case have no
// strictly cheaper type that holds their pods.
const POOLS: readonly PoolSpec[] = [
  {
    name: "general",
    share: 0.5,
    types: ["m5.2xlarge", "c5.2xlarge", "r5.xlarge", "m5.xlarge"],
    capacityType: "on-demand",
    policy: "WhenEmptyOrUnderutilized",
    budgets: [{ nodes: "10%" }],
    weight: 10,
  },
  {
    name: "spot",
    share: 0.25,
    types: ["m5.2xlarge", "c5.2xlarge"],
    capacityType: "spot",
    policy: "WhenEmptyOrUnderutilized",
    budgets: [{ nodes: "20%", reasons: ["Underutilized"] }, { nodes: "5" }],
    weight: 5,
  },
  {
    name: "batch",
    share: 0.15,
    types: ["c5.2xlarge", "c5.4xlarge"],
    capacityType: "on-demand",
    policy: "WhenEmpty",
    budgets: [{ nodes: "100%" }],
    weight: 1,
  },
  // Business hours (Wednesday noon UTC at NOW): the zero budget is active, the pool is frozen.
  {
    name: "critical",
    share: 0.1,
    types: ["m5.2xlarge"],
    capacityType: "on-demand",
    policy: "WhenEmptyOrUnderutilized",
    budgets: [{ nodes: "0", schedule: "0 8 * * mon-fri", duration: "10h" }, { nodes: "1" }],
    weight: 0,
  },
];

function requirementsOf(p: PoolSpec): Record<string, unknown>[] {
  return [
    { key: "karpenter.sh/capacity-type", operator: "In", values: [p.capacityType] },
    { key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["c5", "m5", "r5"] },
  ];
}

function nodePool(p: PoolSpec, cpuLimit: number | undefined): NodePoolObject {
  return {
    metadata: { name: p.name, uid: `uid-${p.name}` },
    spec: {
      weight: p.weight,
      ...(cpuLimit === undefined ? {} : { limits: { cpu: `${cpuLimit}m` } }),
      template: {
        metadata: { labels: {} },
        spec: {
          nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
          requirements: requirementsOf(p),
        },
      },
      disruption: { consolidationPolicy: p.policy, consolidateAfter: "30s", budgets: p.budgets },
    },
    status: { conditions: [{ type: "Ready", status: "True" }] },
  };
}

const DAEMON = { cpu: 100, memory: 128 * MI };

interface Sizing {
  readonly cpu: number;
  readonly memory: number;
}
type State = "empty" | "underutilized" | "drifted" | "blocked" | "moderate";

interface Built {
  nodes: Node[];
  claims: NodeClaim[];
  pods: Pod[];
  pdbs: PdbLike[];
}

class Generator {
  readonly out: Built = { nodes: [], claims: [], pods: [], pdbs: [] };
  private readonly rand: () => number;
  private readonly types: ReadonlyMap<string, InstanceType>;
  private readonly full: boolean;
  private podCount = 0;

  constructor(seed: number, types: ReadonlyMap<string, InstanceType>, full: boolean) {
    this.rand = prng(seed);
    this.types = types;
    this.full = full;
  }

  private pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rand() * xs.length)]!;
  }

  private pod(
    node: string,
    app: number,
    size: Sizing,
    extra: { annotations?: Record<string, string>; daemon?: boolean } = {},
  ): Pod {
    const i = this.podCount++;
    const name = extra.daemon === true ? `agent-${node}` : `app-${app}-${i}`;
    const owner =
      extra.daemon === true
        ? { apiVersion: "apps/v1", kind: "DaemonSet", name: "agent", uid: "ds-agent", controller: true }
        : { apiVersion: "apps/v1", kind: "ReplicaSet", name: `app-${app}-rs`, uid: `rs-${app}`, controller: true };
    const spread =
      extra.daemon !== true && app % 5 === 0
        ? {
            topologySpreadConstraints: [
              {
                maxSkew: 1,
                topologyKey: "topology.kubernetes.io/zone",
                whenUnsatisfiable: "ScheduleAnyway",
                labelSelector: { matchLabels: { app: `app-${app}` } },
              },
            ],
          }
        : {};
    return {
      metadata: {
        name,
        namespace: extra.daemon === true ? "kube-system" : "default",
        uid: `pod-${i}`,
        creationTimestamp: HOUR_AGO,
        labels: { app: extra.daemon === true ? "agent" : `app-${app}` },
        annotations: extra.annotations ?? {},
        ownerReferences: [owner],
      },
      spec: {
        nodeName: node,
        ...spread,
        containers: [{ name: "c", resources: { requests: { cpu: `${size.cpu}m`, memory: `${size.memory}` } } }],
      },
      status: { phase: "Running" },
    } as unknown as Pod;
  }

  /**
   * `count` app pods for a node of type `t`: full to the last unit, or filled to
   * 60–75 % (5 % when underutilized).
   */
  private appPods(name: string, t: InstanceType, state: State, count: number): Pod[] {
    const cpu = (t.allocatable["cpu"] ?? 0) - DAEMON.cpu;
    const memory = (t.allocatable["memory"] ?? 0) - DAEMON.memory;
    if (count === 0) return [];
    const app = Math.floor(this.rand() * 60);
    if (this.full) {
      const size = { cpu: Math.floor(cpu / count), memory: Math.floor(memory / count / MI) * MI };
      return Array.from({ length: count }, () => this.pod(name, app, size));
    }
    const fill = state === "underutilized" ? 0.05 : 0.6 + this.rand() * 0.15;
    // Pods of two or three Deployments, each ±20 % around the node's share, rounded as people write requests.
    return Array.from({ length: count }, (_, i) => {
      const jitter = 0.8 + this.rand() * 0.4;
      const size = {
        cpu: Math.max(50, Math.round((cpu * fill * jitter) / count / 50) * 50),
        memory: Math.max(64, Math.round((memory * fill * jitter) / count / MI / 64) * 64) * MI,
      };
      return this.pod(name, (app + (i % 3)) % 60, size);
    });
  }

  machine(index: number, pool: PoolSpec, state: State, podCount: number): void {
    const name = `node-${index}`;
    const t = this.types.get(this.pick(pool.types))!;
    const zone = ZONES[index % ZONES.length]!;
    const labels = {
      ...t.labels,
      "karpenter.sh/nodepool": pool.name,
      "node.kubernetes.io/instance-type": t.name,
      "topology.kubernetes.io/zone": zone,
      "karpenter.sh/capacity-type": pool.capacityType,
      "kubernetes.io/hostname": name,
    };
    const providerID = `aws:///${zone}/i-${index.toString(16).padStart(17, "0")}`;
    const allocatable = Object.fromEntries(Object.entries(t.allocatable).map(([k, v]) => [k, formatResource(k, v)]));
    const capacity = Object.fromEntries(Object.entries(t.capacity).map(([k, v]) => [k, formatResource(k, v)]));
    const conditions = [
      { type: "Initialized", status: "True", lastTransitionTime: HOUR_AGO },
      { type: "Consolidatable", status: "True" },
      ...(state === "drifted" ? [{ type: "Drifted", status: "True", reason: "NodePoolDrifted" }] : []),
    ];
    this.out.claims.push({
      metadata: {
        name,
        uid: `uid-${name}`,
        labels,
        creationTimestamp: new Date(NOW.getTime() - (1 + index) * 60_000).toISOString(),
      },
      spec: { requirements: [], nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" } },
      status: { providerID, nodeName: name, conditions, capacity, allocatable },
    });
    this.out.nodes.push({
      metadata: { name, labels },
      spec: { providerID },
      status: { conditions: [{ type: "Ready", status: "True" }], allocatable },
    });
    this.out.pods.push(this.pod(name, 0, DAEMON, { daemon: true }));
    const pods = this.appPods(name, t, state, podCount);
    if (state === "blocked" && pods[0] !== undefined) {
      // Half the blocked nodes hold a do-not-disrupt pod, the other half a pod under a PDB at 0.
      const first = pods[0];
      if (index % 2 === 0)
        pods[0] = { ...first, metadata: { ...first.metadata, annotations: { "karpenter.sh/do-not-disrupt": "true" } } };
      else {
        pods[0] = { ...first, metadata: { ...first.metadata, labels: { app: `guarded-${index}` } } };
        this.out.pdbs.push({
          metadata: { name: `guarded-${index}`, namespace: "default" },
          spec: { selector: { matchLabels: { app: `guarded-${index}` } } },
          status: { disruptionsAllowed: 0 },
        });
      }
    }
    this.out.pods.push(...pods);
  }
}

function states(nodes: number, mix: ClusterMix, rand: () => number): State[] {
  const counts: [State, number][] = [
    ["empty", mix.empty],
    ["underutilized", mix.underutilized],
    ["drifted", mix.drifted],
    ["blocked", mix.blocked],
  ];
  const out: State[] = counts.flatMap(([s, share]) => Array.from({ length: Math.round(nodes * share) }, () => s));
  while (out.length < nodes) out.push("moderate");
  // Fisher–Yates, so states are spread over the pools.
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * App pods per node: none on empty nodes, 1–2 on underutilized ones, the rest shared
 * evenly so the total is `pods`.
 */
function podCounts(order: readonly State[], pods: number, rand: () => number): number[] {
  const counts = order.map((s) => (s === "empty" ? 0 : s === "underutilized" ? 1 + Math.floor(rand() * 2) : -1));
  const busy = counts.filter((c) => c < 0).length;
  const left = Math.max(0, pods - order.length - counts.filter((c) => c > 0).reduce((a, b) => a + b, 0));
  let extra = left - Math.floor(left / Math.max(1, busy)) * busy;
  return counts.map((c) => (c >= 0 ? c : Math.floor(left / Math.max(1, busy)) + (extra-- > 0 ? 1 : 0)));
}

/** `count` provisionable pods waiting for a place (250m, 512Mi each, spread over 20 Deployments). */
function pendingPods(count: number): Pod[] {
  return Array.from(
    { length: count },
    (_, i) =>
      ({
        metadata: {
          name: `waiting-${i}`,
          namespace: "default",
          uid: `waiting-${i}`,
          creationTimestamp: NOW.toISOString(),
          labels: { app: `waiting-${i % 20}` },
          ownerReferences: [
            {
              apiVersion: "apps/v1",
              kind: "ReplicaSet",
              name: `waiting-${i % 20}-rs`,
              uid: `rs-waiting-${i % 20}`,
              controller: true,
            },
          ],
        },
        spec: { containers: [{ name: "c", resources: { requests: { cpu: "250m", memory: `${512 * MI}` } } }] },
        status: { phase: "Pending", conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable" }] },
      }) as unknown as Pod,
  );
}

/** The CPU capacity, in millicores, of a NodePool's NodeClaims (what its limits count). */
function cpuOf(claims: readonly NodeClaim[], pool: string, types: readonly InstanceType[]): number {
  const byName = new Map(types.map((t) => [t.name, t]));
  return claims
    .filter((c) => c.metadata?.labels?.["karpenter.sh/nodepool"] === pool)
    .reduce(
      (sum, c) =>
        sum + (byName.get(c.metadata?.labels?.["node.kubernetes.io/instance-type"] ?? "")?.capacity["cpu"] ?? 0),
      0,
    );
}

/**
 * The disruption input for `nodes` nodes and `pods` pods, one DaemonSet pod per node included, and
 * `pending` more pods waiting for a place (they reserve room before any candidate's pods move).
 */
export function disruptionInput(
  nodes: number,
  pods: number,
  mix: ClusterMix,
  o: { readonly seed?: number; readonly pending?: number } = {},
): DisruptionInput {
  const { seed = 42, pending = 0 } = o;
  const types = toInstanceTypes(builtinCatalog(), { zones: new Set(ZONES) });
  const gen = new Generator(seed, new Map(types.map((t) => [t.name, t])), mix.full);
  const rand = prng(seed + 1);
  const order = states(nodes, mix, rand);
  const counts = podCounts(order, pods, rand);
  let start = 0;
  let index = 0;
  for (const pool of POOLS) {
    const count = pool === POOLS[POOLS.length - 1] ? nodes - start : Math.round(nodes * pool.share);
    for (let i = 0; i < count; i++, index++) gen.machine(index, pool, order[index]!, counts[index]!);
    start += count;
  }
  const nodePools = POOLS.map((p) =>
    nodePool(p, mix.limitsBelowUsage === true ? Math.floor(0.9 * cpuOf(gen.out.claims, p.name, types)) : undefined),
  );
  const daemonSets: DaemonSetObject[] = [
    {
      metadata: { name: "agent", namespace: "kube-system" },
      spec: {
        template: {
          metadata: { labels: { app: "agent" } },
          spec: {
            tolerations: [{ operator: "Exists" }],
            containers: [{ name: "agent", resources: { requests: { cpu: "100m", memory: "128Mi" } } }],
          },
        },
      },
    },
  ];
  const waiting = pendingPods(pending);
  return {
    now: NOW,
    cluster: { ...gen.out, pods: [...gen.out.pods, ...waiting], nodeClaims: gen.out.claims, nodePools, daemonSets },
    instanceTypes: new Map(nodePools.map((p) => [p.metadata?.name ?? "", types])),
    nominated: new Set(),
    inFlight: new Set(),
    spotToSpot: false,
    ...(pending > 0 ? { pending: waiting } : {}),
  };
}

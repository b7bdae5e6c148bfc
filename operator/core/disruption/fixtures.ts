/**
 * Test fixtures for the disruption core (used by its *.test.ts files only): NodePools, NodeClaims
 * with their Nodes and pods as the informer caches hold them, on the built-in catalog.
 */
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { toInstanceTypes } from "../../../policies/domain/catalog/catalog.ts";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { formatResource } from "../../../policies/domain/quantity.ts";
import type { Condition, Node, NodeClaim, PdbLike, Pod } from "../lifecycle/objects.ts";
import { hashAnnotations } from "../nodepool/hash.ts";
import type { ClusterView, NodePoolObject } from "../provisioning/cluster-view.ts";
import type { DisruptionInput } from "./plan.ts";

export const NOW = new Date("2026-11-25T12:00:00Z");
const HOUR_AGO = new Date(NOW.getTime() - 3_600_000).toISOString();
export const TYPES: readonly InstanceType[] = toInstanceTypes(builtinCatalog(), {
  zones: new Set(["us-east-1a", "us-east-1b"]),
});
const BY_NAME = new Map(TYPES.map((t) => [t.name, t]));

export const ON_DEMAND = { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] };
export const FAMILIES = { key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["c5", "m5", "r5"] };

export interface PoolOptions {
  readonly policy?: string;
  readonly budgets?: readonly Record<string, unknown>[];
  readonly requirements?: readonly Record<string, unknown>[];
  readonly template?: Record<string, unknown>;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}

export function pool(name: string, o: PoolOptions = {}): NodePoolObject {
  return {
    metadata: { name, uid: `uid-${name}`, ...(o.annotations === undefined ? {} : { annotations: o.annotations }) },
    spec: {
      template: {
        metadata: { labels: o.labels ?? {} },
        spec: {
          nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
          requirements: o.requirements ?? [ON_DEMAND, FAMILIES],
          ...o.template,
        },
      },
      disruption: {
        consolidationPolicy: o.policy ?? "WhenEmptyOrUnderutilized",
        consolidateAfter: "0s",
        ...(o.budgets === undefined ? {} : { budgets: o.budgets }),
      },
    },
    status: { conditions: [{ type: "Ready", status: "True" }] },
  };
}

export interface MachineOptions {
  readonly type?: string;
  readonly zone?: string;
  readonly capacityType?: string;
  readonly pool?: NodePoolObject;
  /** Pods bound to the node, each requesting this much memory. */
  readonly pods?: number;
  readonly memory?: string;
  readonly podAnnotations?: Record<string, string>;
  readonly podLabels?: Record<string, string>;
  readonly consolidatable?: boolean;
  readonly initialized?: boolean;
  readonly drifted?: string;
  readonly nodeAnnotations?: Record<string, string>;
  readonly createdAt?: string;
  readonly terminationGracePeriod?: string;
}

export interface Machine {
  readonly claim: NodeClaim;
  readonly node: Node;
  readonly pods: Pod[];
}

function conditionsOf(o: MachineOptions): Condition[] {
  return [
    ...(o.initialized === false ? [] : [{ type: "Initialized", status: "True", lastTransitionTime: HOUR_AGO }]),
    ...(o.consolidatable === false ? [] : [{ type: "Consolidatable", status: "True" }]),
    ...(o.drifted === undefined ? [] : [{ type: "Drifted", status: "True", reason: o.drifted }]),
  ];
}

function podsOf(name: string, o: MachineOptions): Pod[] {
  return Array.from(
    { length: o.pods ?? 0 },
    (_, i) =>
      ({
        metadata: {
          name: `${name}-pod-${i}`,
          namespace: "default",
          uid: `${name}-pod-${i}`,
          creationTimestamp: HOUR_AGO,
          labels: { app: name, ...o.podLabels },
          annotations: o.podAnnotations ?? {},
        },
        spec: {
          nodeName: name,
          containers: [{ name: "c", resources: { requests: { memory: o.memory ?? "1Gi", cpu: "100m" } } }],
        },
        status: { phase: "Running" },
      }) as Pod,
  );
}

function labelsOf(name: string, type: InstanceType, poolName: string, o: MachineOptions): Record<string, string> {
  return {
    "karpenter.sh/nodepool": poolName,
    "node.kubernetes.io/instance-type": type.name,
    "topology.kubernetes.io/zone": o.zone ?? "us-east-1a",
    "karpenter.sh/capacity-type": o.capacityType ?? "on-demand",
    "kubernetes.io/hostname": name,
    ...type.labels,
  };
}

/** A registered, initialized NodeClaim with its Node and pods. */
export function machine(name: string, o: MachineOptions = {}): Machine {
  const type = BY_NAME.get(o.type ?? "m5.large");
  if (type === undefined) throw new Error(`no instance type ${o.type ?? ""}`);
  const p = o.pool ?? pool("default");
  const labels = labelsOf(name, type, p.metadata?.name ?? "", o);
  const providerID = `aws:///us-east-1a/i-${name}`;
  const allocatable = Object.fromEntries(Object.entries(type.allocatable).map(([k, v]) => [k, formatResource(k, v)]));
  const tgp = o.terminationGracePeriod === undefined ? {} : { terminationGracePeriod: o.terminationGracePeriod };
  const claim: NodeClaim = {
    metadata: {
      name,
      uid: `uid-${name}`,
      labels,
      annotations: hashAnnotations(p),
      creationTimestamp: o.createdAt ?? HOUR_AGO,
    },
    spec: {
      requirements: [],
      nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
      ...tgp,
    },
    status: { providerID, nodeName: name, conditions: conditionsOf(o), allocatable },
  };
  const node: Node = {
    metadata: { name, labels, ...(o.nodeAnnotations === undefined ? {} : { annotations: o.nodeAnnotations }) },
    spec: { providerID },
    status: { conditions: [{ type: "Ready", status: "True" }], allocatable },
  };
  return { claim, node, pods: podsOf(name, o) };
}

export function view(
  machines: readonly Machine[],
  pools: readonly NodePoolObject[] = [pool("default")],
  extra: { pdbs?: readonly PdbLike[]; pods?: readonly Pod[] } = {},
): ClusterView {
  return {
    pods: [...machines.flatMap((m) => m.pods), ...(extra.pods ?? [])],
    nodes: machines.map((m) => m.node),
    nodeClaims: machines.map((m) => m.claim),
    nodePools: pools,
    daemonSets: [],
    pdbs: extra.pdbs ?? [],
  };
}

export function input(cluster: ClusterView, o: Partial<DisruptionInput> = {}): DisruptionInput {
  return {
    now: NOW,
    cluster,
    instanceTypes: new Map(cluster.nodePools.map((p) => [p.metadata?.name ?? "", TYPES])),
    nominated: new Set(),
    inFlight: new Set(),
    spotToSpot: false,
    ...o,
  };
}

/** The inputs and outputs of the scheduling simulation: narrow, plain shapes (no API objects). */
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import type { ResourceList } from "../../../policies/domain/quantity.ts";
import type { NodeSelectorRequirement } from "../../../policies/domain/requirements.ts";
import type { Taint, Toleration } from "../../../policies/domain/taints.ts";
import type { SchedulerConfig } from "./default-spread.ts";
import type { VolumeIndex } from "./volumes.ts";
import type { LabelSelector, PodClaim } from "./leaf-types.ts";

export type { LabelSelector, PodClaim };

/**
 * A pod (anti-)affinity term: it selects pods the selector matches in `namespaces` (the pod's own
 * when the term names none and has no namespaceSelector) or in a namespace `namespaceSelector`
 * matches (an empty one matches all; selector.ts termNamespaceMatches).
 */
export interface PodAffinityTerm {
  readonly selector: LabelSelector;
  readonly namespaces: readonly string[];
  readonly namespaceSelector?: LabelSelector | undefined;
  readonly topologyKey: string;
}

export interface WeightedPodAffinityTerm {
  readonly weight: number;
  readonly term: PodAffinityTerm;
}

export interface SpreadConstraint {
  readonly maxSkew: number;
  readonly topologyKey: string;
  readonly whenUnsatisfiable: "DoNotSchedule" | "ScheduleAnyway";
  readonly selector: LabelSelector;
  readonly minDomains?: number | undefined;
  /** Honor: nodes and NodePools whose taints the pod does not tolerate are no domains. Default Ignore. */
  readonly nodeTaintsPolicy?: "Honor" | "Ignore" | undefined;
  /**
   * Honor (default): only nodes and NodePools matching the pod's nodeSelector and
   * required node affinity are domains.
   */
  readonly nodeAffinityPolicy?: "Honor" | "Ignore" | undefined;
}

export interface HostPort {
  readonly hostIP: string;
  readonly port: number;
  readonly protocol: string;
}

export interface PreferredNodeTerm {
  readonly weight: number;
  readonly requirements: readonly NodeSelectorRequirement[];
}

/**
 * A pod as the simulation sees it; `requests` already folds containers, init containers,
 * sidecars, overhead and `pods: 1`.
 */
export interface SimPod {
  readonly uid: string;
  readonly name: string;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly requests: ResourceList;
  readonly nodeSelector: Readonly<Record<string, string>>;
  /** Required node-affinity OR terms. */
  readonly requiredTerms: readonly (readonly NodeSelectorRequirement[])[];
  readonly preferredTerms: readonly PreferredNodeTerm[];
  readonly tolerations: readonly Toleration[];
  readonly spread: readonly SpreadConstraint[];
  readonly affinity: readonly PodAffinityTerm[];
  readonly antiAffinity: readonly PodAffinityTerm[];
  readonly preferredAffinity: readonly WeightedPodAffinityTerm[];
  readonly preferredAntiAffinity: readonly WeightedPodAffinityTerm[];
  readonly hostPorts: readonly HostPort[];
  /** It references a ResourceClaim (dra.ts): never placed, not counted as a DaemonSet's overhead. */
  readonly dynamicResources?: true | undefined;
  /**
   * Set for a pod that may not launch a node (below the operator's --expendable-pods-priority-cutoff): it is
   * placed on existing Nodes and in-flight NodeClaims only, and this is its error when none takes it.
   */
  readonly noLaunch?: string | undefined;
  /** Tie-breaker after CPU and memory in the queue (creation time order); defaults to input order. */
  readonly creationOrder?: number;
  /** The PersistentVolumeClaims its volumes use (volumes.ts); absent when it uses none. */
  readonly claims?: readonly PodClaim[];
}

/** An existing (or in-flight) node with the pods bound to it. */
export interface ExistingNode {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly Taint[];
  readonly allocatable: ResourceList;
  readonly pods: readonly SimPod[];
  readonly nodePool?: string | undefined;
  readonly pricePerHour?: number | undefined;
  readonly initialized?: boolean | undefined;
  /** A pod event within its NodePool's consolidateAfter: a consolidation simulation moves no pod here. */
  readonly underConsolidateAfter?: boolean | undefined;
}

/** The scheduling view of a NodePool with the instance types its EC2NodeClass yields. */
export interface NodePoolView {
  readonly name: string;
  readonly weight: number;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly Taint[];
  /** Ignored for scheduling (Karpenter ignores startup taints); kept for the NodeClaim. */
  readonly startupTaints: readonly Taint[];
  readonly requirements: readonly NodeSelectorRequirement[];
  readonly limits?: ResourceList | undefined;
  readonly instanceTypes: readonly InstanceType[];
}

/** A DaemonSet: its pod template decides on which nodes it runs and what it costs there. */
export interface DaemonSetView {
  readonly name: string;
  readonly pod: SimPod;
}

/** Everything the simulation reads: a frozen picture of the cluster. */
export interface Snapshot {
  readonly nodes: readonly ExistingNode[];
  readonly nodePools: readonly NodePoolView[];
  readonly daemonSets: readonly DaemonSetView[];
  /**
   * Labels of the cluster's Namespaces by name (pod-affinity namespaceSelector). A namespace not
   * listed is taken to carry only `kubernetes.io/metadata.name`, which the apiserver sets on all.
   */
  readonly namespaces?: ReadonlyMap<string, Readonly<Record<string, string>>> | undefined;
  /**
   * PVCs, PVs, StorageClasses and CSINode limits (volumes.ts). Absent: volumes are not modelled (pods'
   * claims ask nothing); present: a pending pod's claims narrow its node and count against limits.
   */
  readonly volumes?: VolumeIndex | undefined;
}

export interface SimulateOptions {
  /** PREFERENCE_POLICY: Ignore drops preferred affinities and ScheduleAnyway spreads up front. */
  readonly preferencePolicy?: "Respect" | "Ignore";
  /** Instance-type options kept per NodeClaim (Karpenter's MaxInstanceTypes, 600). */
  readonly maxInstanceTypes?: number;
  /** At most this many new NodeClaims (consolidation asks with 0 or 1). */
  readonly maxNewClaims?: number;
  /**
   * Guard against absurd nodes: a planned NodeClaim never grows to a cheapest option costing more
   * than this many times what its pods' requests are worth at the NodePool's best price per unit of
   * each resource (default 20; the first-fit plan that bought a $125/h u7i-12tb for 697 small pods
   * paid ~190 times).
   */
  readonly maxPriceRatio?: number;
  /**
   * Existing nodes marked `initialized: false` (booting Nodes, in-flight NodeClaims) take no pod
   * (consolidation never counts on a node that may never become ready, as Karpenter's simulation
   * fails one that does); provisioning leaves this off and places pods on in-flight claims.
   */
  readonly onlyInitializedNodes?: boolean;
  /**
   * Karpenter's IsConsolidationSimulation (v1.14+): existing nodes `underConsolidateAfter` take no pod.
   * Every pod such a simulation places is a candidate's (pending pods were placed before), and a
   * replacement NodeClaim is not affected.
   */
  readonly consolidationSimulation?: boolean;
  /** Whether the improvement pass (improve.ts) runs after the greedy packing (default true; false: the greedy plan). */
  readonly improve?: boolean;
  /**
   * The operator's --scheduler-config (default-spread.ts): read by the scheduling input (scheduling-input.ts),
   * which gives pods without topology spread constraints the defaults; the solver itself does not read it.
   */
  readonly schedulerConfig?: SchedulerConfig | undefined;
  /**
   * The operator's --expendable-pods-priority-cutoff (provisioning/expendable.ts): read by the provisioning plan's
   * scheduling input, which marks pending pods below it SimPod.noLaunch; disruption does not read it.
   */
  readonly expendablePodsPriorityCutoff?: number | undefined;
}

/** The cheapest way to launch a planned NodeClaim. */
export interface LaunchChoice {
  readonly instanceType: string;
  readonly capacityType: string;
  readonly zone: string;
  readonly pricePerHour: number;
}

export interface PlannedNodeClaim {
  readonly nodePool: string;
  readonly requirements: readonly NodeSelectorRequirement[];
  /** Options ordered by their cheapest compatible offering, truncated. */
  readonly instanceTypes: readonly InstanceType[];
  readonly pods: readonly SimPod[];
  readonly requests: ResourceList;
  readonly launch: LaunchChoice;
}

export interface PodError {
  readonly pod: SimPod;
  readonly reason: string;
}

export interface SimulationResult {
  readonly newClaims: readonly PlannedNodeClaim[];
  readonly existingPlacements: readonly { readonly pod: SimPod; readonly node: string }[];
  readonly podErrors: readonly PodError[];
}

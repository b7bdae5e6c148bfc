/**
 * A pod's working constraints during one simulation, with Karpenter's preference relaxation: the
 * heaviest preferred node-affinity term and every preferred pod (anti-)affinity term and
 * ScheduleAnyway spread count as required until relaxed, one step per failure, in this order:
 * first required OR-term (if several) → heaviest preferred pod affinity → heaviest preferred pod
 * anti-affinity → heaviest preferred node affinity → one ScheduleAnyway spread → tolerate
 * PreferNoSchedule taints. Before each step, every alternative of the pod's volume topology (volumes.ts)
 * is tried in turn (Karpenter tries them per place; here per pass over the places, which keeps the
 * pod off any node its volumes cannot reach).
 */
import { Requirements, type NodeSelectorRequirement } from "../../../policies/domain/requirements.ts";
import { nodeSelectorRequirements } from "./pool-types.ts";
import type { PodAffinityTerm, PreferredNodeTerm, SimPod, SpreadConstraint, WeightedPodAffinityTerm } from "./types.ts";

const byWeight = <T extends { weight: number }>(xs: readonly T[]): T[] => [...xs].sort((a, b) => b.weight - a.weight);

export class PodState {
  readonly pod: SimPod;
  /** Equal for pods that schedule identically (same requests, constraints, labels, relaxation). */
  readonly baseKey: string;
  private termIndex = 0;
  private preferredNode: PreferredNodeTerm[];
  private preferredAffinity: WeightedPodAffinityTerm[];
  private preferredAnti: WeightedPodAffinityTerm[];
  private anywaySpreads: SpreadConstraint[];
  private softTolerated = false;
  private level = 0;
  private cachedRequirements: Requirements | undefined;
  private cachedStrict: Requirements | undefined;
  /** The volume topology alternatives (ORed) and the one in force. */
  private readonly volumeTerms: readonly (readonly NodeSelectorRequirement[])[];
  private volumeIndex = 0;

  constructor(
    pod: SimPod,
    ignorePreferences: boolean,
    baseKey: string,
    volumeTerms: readonly (readonly NodeSelectorRequirement[])[] = [],
  ) {
    this.pod = pod;
    this.baseKey = baseKey;
    this.volumeTerms = volumeTerms;
    this.preferredNode = ignorePreferences ? [] : byWeight(pod.preferredTerms);
    this.preferredAffinity = ignorePreferences ? [] : byWeight(pod.preferredAffinity);
    this.preferredAnti = ignorePreferences ? [] : byWeight(pod.preferredAntiAffinity);
    this.anywaySpreads = ignorePreferences ? [] : pod.spread.filter((s) => s.whenUnsatisfiable === "ScheduleAnyway");
  }

  /** The class key including how far this pod has been relaxed. */
  get key(): string {
    return `${this.baseKey}#${this.level}`;
  }

  get relaxations(): number {
    return this.level;
  }

  /**
   * Node requirements: nodeSelector ∩ current required term ∩ heaviest remaining preferred term ∩
   * the volume alternative in force. Throws RequirementError.
   */
  requirements(): Requirements {
    if (this.cachedRequirements === undefined) {
      const base = nodeSelectorRequirements(this.pod, this.pod.requiredTerms[this.termIndex] ?? []);
      const preferred = this.preferredNode[0];
      const volume = this.volumeTerms[this.volumeIndex];
      const withPreferred =
        preferred === undefined ? base : base.intersect(Requirements.fromSelectors(preferred.requirements));
      this.cachedRequirements =
        volume === undefined ? withPreferred : withPreferred.intersect(Requirements.fromSelectors(volume));
    }
    return this.cachedRequirements;
  }

  /**
   * Required node constraints only: nodeSelector ∩ current required term. Topology reads these (a
   * preferred node affinity never narrows which domains a pod's spread or affinity may use, nor do
   * its volumes: Karpenter keeps volume requirements out of the pod's spread counting).
   * Throws RequirementError.
   */
  strictRequirements(): Requirements {
    return (this.cachedStrict ??= nodeSelectorRequirements(this.pod, this.pod.requiredTerms[this.termIndex] ?? []));
  }

  /** Topology terms in force: required ones plus the preferences not yet relaxed. */
  terms(): { spread: SpreadConstraint[]; affinity: PodAffinityTerm[]; anti: PodAffinityTerm[] } {
    return {
      spread: [...this.pod.spread.filter((s) => s.whenUnsatisfiable === "DoNotSchedule"), ...this.anywaySpreads],
      affinity: [...this.pod.affinity, ...this.preferredAffinity.map((w) => w.term)],
      anti: [...this.pod.antiAffinity, ...this.preferredAnti.map((w) => w.term)],
    };
  }

  /** Whether PreferNoSchedule taints are still treated as NoSchedule. */
  get strictSoftTaints(): boolean {
    return !this.softTolerated;
  }

  /**
   * Applies one relaxation step; false when nothing is left to relax. `softTaintsExist`:
   * some pool has PreferNoSchedule.
   */
  relax(softTaintsExist: boolean): boolean {
    if (this.volumeIndex < this.volumeTerms.length - 1) {
      this.volumeIndex++;
    } else {
      const step = this.nextStep(softTaintsExist);
      if (step === undefined) return false;
      step();
      this.volumeIndex = 0;
    }
    this.level++;
    this.cachedRequirements = undefined;
    this.cachedStrict = undefined;
    return true;
  }

  private nextStep(softTaintsExist: boolean): (() => void) | undefined {
    if (this.termIndex < this.pod.requiredTerms.length - 1) return () => this.termIndex++;
    if (this.preferredAffinity.length > 0) return () => this.preferredAffinity.shift();
    if (this.preferredAnti.length > 0) return () => this.preferredAnti.shift();
    if (this.preferredNode.length > 0) return () => this.preferredNode.shift();
    if (this.anywaySpreads.length > 0) return () => this.anywaySpreads.shift();
    if (softTaintsExist && !this.softTolerated) return () => (this.softTolerated = true);
    return undefined;
  }
}

/** A key equal for pods that schedule identically (all but name and uid). */
export function podClassKey(pod: SimPod): string {
  const { uid: _uid, name: _name, creationOrder: _order, ...rest } = pod;
  return JSON.stringify(rest);
}

/**
 * Turns a planned NodeClaim's instance-type options into what is launched: options ordered by
 * their cheapest compatible available offering, truncated (MaxInstanceTypes), minValues checked
 * on what is kept, and the cheapest offering as the launch choice.
 */
import {
  cheapestOffering,
  isExotic,
  offeringMatches,
  truncate,
  type InstanceType,
} from "../../../policies/domain/instance-types.ts";
import type { Requirements } from "../../../policies/domain/requirements.ts";

/** Karpenter's per-NodeClaim option cap in the scheduler (v1.7+). */
export const MAX_INSTANCE_TYPES = 600;

export interface RankedOptions {
  readonly types: InstanceType[];
  readonly launch: {
    readonly instanceType: string;
    readonly capacityType: string;
    readonly zone: string;
    readonly pricePerHour: number;
  };
  /** Set when the kept options cannot span a minValues requirement. */
  readonly minValuesProblem?: string;
}

/** Orders and truncates options; undefined when no option has an available compatible offering. */
export function rankOptions(
  types: readonly InstanceType[],
  requirements: Requirements,
  max = MAX_INSTANCE_TYPES,
): RankedOptions | undefined {
  const result = truncate(types, requirements, max);
  // The launch drops exotic types while an ordinary one is left (fleet/filters.ts), so that is what it buys.
  const first = result.types.find((t) => !isExotic(t)) ?? result.types[0];
  const offering = first === undefined ? undefined : cheapestOffering(first, requirements);
  if (first === undefined || offering === undefined) return undefined;
  const launch = {
    instanceType: first.name,
    capacityType: offering.capacityType,
    zone: offering.zone,
    pricePerHour: offering.pricePerHour,
  };
  return result.ok ? { types: result.types, launch } : { types: result.types, launch, minValuesProblem: result.reason };
}

/**
 * The most a type could cost at launch (Karpenter's WorstLaunchPrice): the dearest compatible available
 * offering of the capacity type the launch would use, reserved before spot before on-demand (types.go
 * WorstLaunchPrice); Infinity when none is left.
 * With zonal spot prices the launch may land in any compatible zone, so a replacement is only cheaper when
 * every zone it could land in is.
 */
export function worstLaunchPrice(type: InstanceType, requirements: Requirements): number {
  const compatible = type.offerings.filter((o) => o.available && offeringMatches(o, requirements));
  for (const capacityType of ["reserved", "spot", "on-demand"]) {
    const prices = compatible.filter((o) => o.capacityType === capacityType).map((o) => o.pricePerHour);
    if (prices.length > 0) return Math.max(...prices);
  }
  return Infinity;
}

/** Options whose worst launch price is below `ceiling` (a replacement must be cheaper wherever it lands). */
export function cheaperThan(
  types: readonly InstanceType[],
  requirements: Requirements,
  ceiling: number,
): InstanceType[] {
  return types.filter((t) => worstLaunchPrice(t, requirements) < ceiling);
}

/** Picks the subnet a fleet override uses in each zone: the one with the most free IPv4 addresses. */

/** A resolved subnet as the fleet plan needs it. */
export interface SubnetChoice {
  readonly id: string;
  readonly zone: string;
  readonly zoneId?: string | undefined;
  readonly availableIpCount: number;
}

/** One subnet per zone, the one with the most free IPs; ties go to the lower id so plans are stable. */
export function subnetPerZone(subnets: readonly SubnetChoice[]): Map<string, SubnetChoice> {
  const best = new Map<string, SubnetChoice>();
  for (const s of subnets) {
    const current = best.get(s.zone);
    if (
      current === undefined ||
      s.availableIpCount > current.availableIpCount ||
      (s.availableIpCount === current.availableIpCount && s.id < current.id)
    ) {
      best.set(s.zone, s);
    }
  }
  return best;
}

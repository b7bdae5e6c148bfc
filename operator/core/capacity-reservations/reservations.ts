/**
 * Capacity reservations (Karpenter's ReservedCapacity gate, on by default): an EC2NodeClass's
 * capacityReservationSelectorTerms as DescribeCapacityReservations queries, and the reservations EC2
 * returns as `status.capacityReservations` entries with Karpenter's fields. Pure: time is an argument.
 */

/** One spec.capacityReservationSelectorTerms entry (the CRD makes `id` exclusive of the other fields). */
export interface CapacityReservationSelectorTerm {
  readonly id?: string | undefined;
  readonly ownerID?: string | undefined;
  readonly tags?: Readonly<Record<string, string>> | undefined;
  readonly instanceMatchCriteria?: "open" | "targeted" | undefined;
}

/** A DescribeCapacityReservations filter. */
export interface ReservationFilter {
  readonly name: string;
  readonly values: readonly string[];
}

/** One DescribeCapacityReservations call: by id, or by filters (always `state=active`). */
export interface ReservationQuery {
  readonly ids?: readonly string[] | undefined;
  readonly filters: readonly ReservationFilter[];
}

/**
 * The queries a node class's terms make, as Karpenter's QueriesFromSelectorTerms: an id term asks for that
 * reservation; a term with tags or instanceMatchCriteria asks by filters (ownerID narrows it; a tag value
 * `*` asks for the key alone). A term with only ownerID selects nothing, as in Karpenter.
 */
export function queriesFromTerms(terms: readonly CapacityReservationSelectorTerm[]): ReservationQuery[] {
  const out: ReservationQuery[] = [];
  for (const term of terms) {
    if (term.id !== undefined && term.id !== "") out.push({ ids: [term.id], filters: [ACTIVE] });
    const byFilters = filtersOf(term);
    if (byFilters !== undefined) out.push({ filters: byFilters });
  }
  return out;
}

const ACTIVE: ReservationFilter = { name: "state", values: ["active"] };

/** A term's filters, or undefined when it asks nothing by filters (neither tags nor instanceMatchCriteria). */
function filtersOf(term: CapacityReservationSelectorTerm): ReservationFilter[] | undefined {
  const tags = Object.entries(term.tags ?? {}).sort(([a], [b]) => a.localeCompare(b));
  if (tags.length === 0 && (term.instanceMatchCriteria ?? "") === "") return undefined;
  const filters: ReservationFilter[] = [ACTIVE];
  if (term.ownerID !== undefined && term.ownerID !== "") filters.push({ name: "owner-id", values: [term.ownerID] });
  for (const [k, v] of tags)
    filters.push(v === "*" ? { name: "tag-key", values: [k] } : { name: `tag:${k}`, values: [v] });
  if (term.instanceMatchCriteria !== undefined)
    filters.push({ name: "instance-match-criteria", values: [term.instanceMatchCriteria] });
  return filters;
}

/** A capacity reservation as EC2 describes it (the fields Karpenter reads). */
export interface Ec2Reservation {
  readonly id: string;
  readonly instanceType: string;
  readonly availabilityZone: string;
  readonly ownerId: string;
  readonly instanceMatchCriteria: string;
  /** EC2's ReservationType: absent or `default`, `capacity-block`. */
  readonly reservationType?: string | undefined;
  readonly endDate?: Date | undefined;
  readonly interruptible?: boolean | undefined;
  readonly availableInstanceCount: number;
}

/** One status.capacityReservations entry, with Karpenter's field names. */
export interface CapacityReservationStatus {
  readonly id: string;
  readonly availabilityZone: string;
  readonly instanceType: string;
  readonly ownerID: string;
  readonly instanceMatchCriteria: "open" | "targeted";
  readonly reservationType: "default" | "capacity-block";
  readonly state: "active" | "expiring";
  readonly endTime?: string | undefined;
  readonly interruptible?: boolean | undefined;
}

/** A capacity block is `expiring` from 40 minutes before its end (Karpenter's capacityReservationExpirationPeriod). */
export const CAPACITY_BLOCK_EXPIRY_MS = 40 * 60_000;

const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, "Z");

/** The status entry for one reservation, or why Karpenter would not use it (an unknown match criteria or type). */
export function reservationStatus(
  r: Ec2Reservation,
  now: Date,
): CapacityReservationStatus | { readonly error: string } {
  if (r.instanceMatchCriteria !== "open" && r.instanceMatchCriteria !== "targeted") {
    return {
      error:
        `capacity reservation ${r.id}: ` +
        `unsupported instance match criteria ${JSON.stringify(r.instanceMatchCriteria)}`,
    };
  }
  const type = r.reservationType === undefined || r.reservationType === "" ? "default" : r.reservationType;
  if (type !== "default" && type !== "capacity-block")
    return { error: `capacity reservation ${r.id}: unsupported reservation type ${JSON.stringify(type)}` };
  const expiring =
    type === "capacity-block" &&
    r.endDate !== undefined &&
    now.getTime() >= r.endDate.getTime() - CAPACITY_BLOCK_EXPIRY_MS;
  return {
    id: r.id,
    availabilityZone: r.availabilityZone,
    instanceType: r.instanceType,
    ownerID: r.ownerId,
    instanceMatchCriteria: r.instanceMatchCriteria,
    reservationType: type,
    state: expiring ? "expiring" : "active",
    ...(r.endDate === undefined ? {} : { endTime: rfc3339(r.endDate) }),
    ...(r.interruptible === true ? { interruptible: true } : {}),
  };
}

/** What a node class's reservations resolve to: the status entries sorted by id, and the ones left out. */
export interface ResolvedReservations {
  readonly reservations: readonly CapacityReservationStatus[];
  readonly errors: readonly string[];
}

/** Unique by id, ended ones dropped (Karpenter's filterReservations), sorted by id, each as its status entry. */
export function resolveReservations(found: readonly Ec2Reservation[], now: Date): ResolvedReservations {
  const byId = new Map<string, Ec2Reservation>();
  for (const r of found)
    if (!byId.has(r.id) && (r.endDate === undefined || r.endDate.getTime() > now.getTime())) byId.set(r.id, r);
  const reservations: CapacityReservationStatus[] = [];
  const errors: string[] = [];
  for (const r of [...byId.values()].sort((a, b) => a.id.localeCompare(b.id))) {
    const entry = reservationStatus(r, now);
    if ("error" in entry) errors.push(entry.error);
    else reservations.push(entry);
  }
  return { reservations, errors };
}

/** Karpenter's poll period for reservations; sooner when one ends sooner. */
export const RESERVATION_POLL_MS = 60_000;

/** When to look at the reservations again: in a minute, or when the first one ends if that is sooner. */
export function reservationRequeueMs(reservations: readonly CapacityReservationStatus[], now: Date): number {
  let next = RESERVATION_POLL_MS;
  for (const r of reservations)
    if (r.endTime !== undefined) next = Math.min(next, Math.max(0, Date.parse(r.endTime) - now.getTime()));
  return next;
}

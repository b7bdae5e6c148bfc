/**
 * How many more instances each capacity reservation can take, as kerf knows it between two answers of EC2
 * (Karpenter's availability cache, plus the holds of launches in flight). Pure bookkeeping: the AWS provider
 * (adapters/aws/providers/capacityreservation.ts) feeds it EC2's counts and kerf's own launches and terminations.
 */
export class ReservationRoom {
  /** The count EC2 last reported, less kerf's launches since, zeroed when a launch found the reservation full. */
  private readonly room = new Map<string, number>();
  /** Slots held by launches in flight (hold()), not yet known to have used them. */
  private readonly held = new Map<string, number>();
  /** Instances whose slot was given back already (a termination is seen more than once). */
  private readonly returned = new Set<string>();

  /** EC2's available count for the reservation (DescribeCapacityReservations). */
  sync(reservationId: string, available: number): void {
    this.room.set(reservationId, available);
  }

  /** Instances the reservation can still take (0 when never seen), less the slots launches in flight hold. */
  capacity(reservationId: string): number {
    return Math.max(0, (this.room.get(reservationId) ?? 0) - (this.held.get(reservationId) ?? 0));
  }

  /**
   * Holds one slot of each reservation a launch may launch into, from its plan until it is over, so that a
   * launch planned meanwhile does not count on the same last slot and lose the race at EC2
   * (ReservationCapacityExceeded, then a retry). Every reservation the fleet lists is held, as it may take any
   * of them; Karpenter's scheduler reserves each compatible reservation for a NodeClaim in the same way, once per
   * batch (ReservationManager), where kerf's hold also spans batches. Returns the release, which the caller calls
   * once, whatever the outcome, after markLaunched for the reservation it used; holds are kept apart from the
   * room, so a markFull or a sync during the launch is not undone by the release.
   */
  hold(reservationIds: Iterable<string>): () => void {
    const ids = [...new Set(reservationIds)];
    for (const id of ids) this.held.set(id, (this.held.get(id) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const id of ids) {
        const n = (this.held.get(id) ?? 0) - 1;
        if (n > 0) this.held.set(id, n);
        else this.held.delete(id);
      }
    };
  }

  /** One instance launched into the reservation. */
  markLaunched(reservationId: string): void {
    const n = this.room.get(reservationId);
    if (n !== undefined && n > 0) this.room.set(reservationId, n - 1);
  }

  /** A launch found the reservation full (ReservationCapacityExceeded): no room until EC2 says otherwise. */
  markFull(reservationId: string): void {
    this.room.set(reservationId, 0);
  }

  /** One of kerf's instances in the reservation is gone: its slot is free again (once per instance). */
  markTerminated(reservationId: string, instanceId: string): void {
    if (this.returned.has(instanceId)) return;
    this.returned.add(instanceId);
    if (this.returned.size > 10_000) this.returned.clear();
    const n = this.room.get(reservationId);
    if (n !== undefined) this.room.set(reservationId, n + 1);
  }
}

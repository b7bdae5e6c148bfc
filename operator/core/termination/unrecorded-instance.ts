/**
 * Which instance a deleted NodeClaim owns when its providerID was never written (deleted after
 * CreateFleet launched the instance, before the status write): the one this process's launch
 * remembers, else one carrying its karpenter.sh/nodeclaim tag. Pure.
 */

/** An instance tagged with the NodeClaim's name, as the cloud lists it. */
export interface TaggedInstance {
  readonly providerID: string;
  /** pending | running | shutting-down | stopping | stopped. */
  readonly state: string;
}

/**
 * The instance to record as the NodeClaim's (its termination then runs as for any other) and
 * the others to terminate at once.
 */
export interface UnrecordedInstances {
  readonly adopt?: string | undefined;
  readonly terminate: readonly string[];
}

/**
 * Prefers the remembered launch (a fresh instance may not be listed yet), then an instance still
 * running over one already shutting down. Any further instance (two launches raced) is terminated
 * now rather than left to garbage collection, as its NodeClaim is going away.
 */
export function unrecordedInstances(
  remembered: string | undefined,
  tagged: readonly TaggedInstance[],
): UnrecordedInstances {
  const ordered = [...tagged]
    .sort((a, b) => Number(a.state === "shutting-down") - Number(b.state === "shutting-down"))
    .map((i) => i.providerID);
  const ids = [...new Set([...(remembered === undefined || remembered === "" ? [] : [remembered]), ...ordered])];
  const [adopt, ...rest] = ids;
  const shuttingDown = new Set(tagged.filter((i) => i.state === "shutting-down").map((i) => i.providerID));
  return { adopt, terminate: rest.filter((id) => !shuttingDown.has(id)) };
}

/**
 * Garbage-collection decisions (pure): instances of this cluster that no NodeClaim holds and that
 * launched more than 30 s ago are terminated; NodeClaims whose instance is gone are deleted.
 */
import type { CloudInstance } from "../../ports/cloud-provider.ts";

/** Karpenter's grace for a fresh instance whose NodeClaim status is not written yet. */
export const MIN_INSTANCE_AGE_MS = 30_000;

/** The NodeClaim fields GC reads. */
export interface GcNodeClaim {
  readonly name: string;
  readonly providerID?: string | undefined;
  /** The Node behind it is Ready: never delete such a claim, the list may be stale. */
  readonly nodeReady?: boolean | undefined;
  readonly deleting?: boolean | undefined;
}

/** What to do. */
export interface GcPlan {
  readonly terminate: readonly CloudInstance[];
  readonly deleteNodeClaims: readonly string[];
}

/** Inputs: NodeClaims listed BEFORE the instances (so a claim launched in between is never judged against a stale list). */
export interface GcInput {
  readonly instances: readonly CloudInstance[];
  readonly nodeClaims: readonly GcNodeClaim[];
  readonly now: Date;
  readonly minInstanceAgeMs?: number;
}

function orphaned(instance: CloudInstance, held: ReadonlySet<string>, names: ReadonlySet<string>): boolean {
  // A claim that exists by name but has no providerID yet may be mid-launch (or relaunching after a crash): keep its instance.
  return !held.has(instance.providerID) && !held.has(instance.instanceID) && !names.has(instance.nodeClaimName);
}

/** Decides which instances to terminate and which NodeClaims to delete. */
export function planGarbageCollection(input: GcInput): GcPlan {
  const minAge = input.minInstanceAgeMs ?? MIN_INSTANCE_AGE_MS;
  const held = new Set<string>();
  for (const c of input.nodeClaims) {
    if (c.providerID === undefined || c.providerID === "") continue;
    held.add(c.providerID);
    const id = c.providerID.split("/").at(-1);
    if (id !== undefined) held.add(id);
  }
  const names = new Set(input.nodeClaims.map((c) => c.name));
  const terminate = input.instances.filter((i) => i.state !== "shutting-down" && orphaned(i, held, names) && input.now.getTime() - i.launchTime.getTime() > minAge);
  const live = new Set(input.instances.flatMap((i) => [i.providerID, i.instanceID]));
  const deleteNodeClaims = input.nodeClaims
    .filter((c) => c.providerID !== undefined && c.providerID !== "" && c.deleting !== true && c.nodeReady !== true)
    .filter((c) => !live.has(c.providerID ?? "") && !live.has(c.providerID?.split("/").at(-1) ?? ""))
    .map((c) => c.name);
  return { terminate, deleteNodeClaims };
}

/** Requeue interval: every 10 s for the first 20 runs after start, then every 2 min (Karpenter's AWS GC). */
export function gcInterval(run: number): number {
  return run < 20 ? 10_000 : 120_000;
}

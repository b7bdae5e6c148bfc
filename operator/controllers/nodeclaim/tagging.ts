/**
 * nodeclaim.tagging (Karpenter's controller of that name): once a NodeClaim's Node registered, its
 * instance gets the `Name` (the Node's name), `karpenter.sh/nodeclaim` and `eks:eks-cluster-name` tags
 * it lacks, and the NodeClaim the annotations saying so (core/lifecycle/instance-tagging.ts).
 */
import type { Logger } from "pino";
import type { Clock } from "../../core/clock.ts";
import { TAGGED_ANNOTATIONS, isTaggable, missingInstanceTags } from "../../core/lifecycle/instance-tagging.ts";
import type { NodeClaim } from "../../core/lifecycle/objects.ts";
import { parseProviderID } from "../../ports/cloud-provider.ts";
import type { Cluster } from "../../ports/cluster.ts";
import type { InstanceTags } from "../../ports/instance-tags.ts";
import type { ControllerSpec } from "../controller-spec.ts";
import type { Result } from "../runtime.ts";

/**
 * At most one CreateTags a second, as Karpenter: CreateTags draws on the same EC2 budget of mutating
 * calls as CreateFleet, and a scale-up of hundreds of nodes must not throttle the launches.
 */
export const CREATE_TAGS_INTERVAL_MS = 1000;

export interface TaggingDeps {
  readonly cluster: Pick<Cluster, "nodeClaim" | "patchNodeClaimMetadata">;
  readonly tags: InstanceTags;
  readonly clusterName: string;
  readonly clock: Clock;
  readonly logger: Pick<Logger, "debug" | "error">;
}

/** The reconcile of one NodeClaim; `lastCreate` is the controller's CreateTags pacing (its time in ms). */
export async function reconcileTagging(deps: TaggingDeps, key: string, lastCreate: { at: number }): Promise<Result> {
  const nodeClaim = deps.cluster.nodeClaim(key);
  if (nodeClaim === undefined || !isTaggable(nodeClaim)) return {};
  const wait = lastCreate.at + CREATE_TAGS_INTERVAL_MS - deps.clock.now().getTime();
  if (wait > 0) return { requeueAfter: wait };
  const parsed = parseProviderID(nodeClaim.status?.providerID ?? "");
  if (parsed === undefined) {
    // Not retried: a NodeClaim update (a providerID set) wakes this controller again.
    const providerID = nodeClaim.status?.providerID;
    deps.logger.error({ nodeClaim: key, providerID }, "tagging the instance: its providerID names no instance");
    return {};
  }
  const existing = await deps.tags.tagsOf(parsed.instanceID);
  // Gone: garbage collection and the lifecycle deal with the NodeClaim.
  if (existing === undefined) return {};
  const missing = missingInstanceTags(nodeClaim, deps.clusterName, existing);
  if (Object.keys(missing).length > 0) {
    lastCreate.at = deps.clock.now().getTime();
    if (!(await deps.tags.createTags(parsed.instanceID, missing))) return {};
    deps.logger.debug({ nodeClaim: key, instance: parsed.instanceID, tags: missing }, "tagged the instance");
  }
  await deps.cluster.patchNodeClaimMetadata(nodeClaim, { annotations: TAGGED_ANNOTATIONS });
  return {};
}

/** The controller: one NodeClaim at a time (the pacing above assumes it), woken by NodeClaims that need tagging. */
export function taggingController(deps: TaggingDeps): ControllerSpec {
  const lastCreate = { at: Number.NEGATIVE_INFINITY };
  return {
    name: "nodeclaim.tagging",
    concurrency: 1,
    reconcile: (key) => reconcileTagging(deps, key, lastCreate),
    watches: {
      nodeclaims: (obj) => {
        const name = obj.metadata?.name;
        return name !== undefined && isTaggable(obj as NodeClaim) ? [name] : [];
      },
    },
  };
}

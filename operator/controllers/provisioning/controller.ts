/**
 * The provisioner as a registry entry: a singleton loop plus the watches that feed its batch
 * window — a provisionable pod (its UID), a NodeClaim or Node going away (its pods need a place;
 * after an ICE this is what re-simulates them), a NodePool changing spec or readiness.
 */
import type { Pod } from "../../core/lifecycle/objects.ts";
import type { BatchDurations, ControllerDeps } from "../controller-deps.ts";

export type { BatchDurations };
import type { ControllerSpec, Watched, WatchVerb } from "../controller-spec.ts";
import { Batcher } from "./batcher.ts";
import { Provisioner, podTrigger } from "./provisioner.ts";

/** How long the loop waits for a trigger before it looks at pending pods anyway. */
const POLL_MS = 10_000;

const gone = (obj: Watched, verb: WatchVerb): boolean =>
  verb === "delete" || obj.metadata?.deletionTimestamp !== undefined;

function readiness(obj: Watched): string {
  const conditions =
    (obj as { status?: { conditions?: readonly { type?: string; status?: string }[] } }).status?.conditions ?? [];
  return conditions.find((c) => c.type === "Ready")?.status ?? "Unknown";
}

/** Builds the provisioner and its controller spec. */
export function provisioningController(
  deps: ControllerDeps,
  nominations?: { nominate(node: string): void },
): ControllerSpec {
  const batch = deps.batch ?? { idleMs: 1_000, maxMs: 10_000 };
  const provisioner = new Provisioner({
    cluster: deps.cluster,
    cloud: deps.cloud,
    events: deps.events,
    metrics: deps.metrics,
    logger: deps.logger,
    batcher: new Batcher({ idleMs: batch.idleMs, maxMs: batch.maxMs, pollMs: POLL_MS }),
    ...(nominations === undefined ? {} : { nominations }),
    ...(deps.scheduling === undefined ? {} : { scheduling: deps.scheduling }),
    clock: deps.clock,
    overlays: deps.overlays,
  });
  const trigger = (id: string): readonly string[] => {
    provisioner.trigger(id);
    return [];
  };
  return {
    name: "provisioner",
    singleton: "provisioner",
    reconcile: (_key, signal) => provisioner.reconcile(signal),
    watches: {
      pods: (pod) => {
        const id = podTrigger(deps.cluster, pod as Pod);
        return id === undefined ? [] : trigger(id);
      },
      nodeclaims: (claim, verb) => (gone(claim, verb) ? trigger(`nodeclaim/${claim.metadata?.uid ?? ""}`) : []),
      nodes: (node, verb) => (gone(node, verb) ? trigger(`node/${node.metadata?.uid ?? ""}`) : []),
      nodepools: (pool) =>
        trigger(`nodepool/${pool.metadata?.name ?? ""}/${pool.metadata?.generation ?? 0}/${readiness(pool)}`),
    },
  };
}

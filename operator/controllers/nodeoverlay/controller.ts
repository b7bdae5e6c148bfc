/**
 * NodeOverlays (gate NodeOverlay). On: one reconcile evaluates every overlay against every NodePool's instance
 * types (core/overlay/apply.ts), writes each overlay's ValidationSucceeded and Ready conditions as Karpenter
 * does, and hands the evaluation to the OverlayStore the provisioner, the disruption pass and the launch read.
 * Off: overlays present are told, once per overlay (a Warning Event) and once in the log, that they are not
 * applied, rather than silently ignored.
 */
import type { Logger } from "pino";
import { templateOf } from "../../core/provisioning/nodeclaim-template.ts";
import type { NodePoolObject } from "../../core/provisioning/cluster-view.ts";
import { evaluateOverlays, type OverlayPool, type OverlayVerdict } from "../../core/overlay/apply.ts";
import { setCondition, type Condition } from "../../core/lifecycle/objects.ts";
import type { Clock } from "../../core/clock.ts";
import { nodeOverlayIgnored, type EventRecorder } from "../../observability/events.ts";
import type { CloudProvider } from "../../ports/cloud-provider.ts";
import type { NodeOverlayLike, NodeOverlays } from "../../ports/node-overlays.ts";
import { instanceTypesByPool } from "../provisioning/provisioner.ts";
import type { Result } from "../runtime.ts";
import type { OverlayStore } from "./store.ts";

/** Karpenter re-evaluates every 6 h besides on changes; kerf every 5 min, so catalog changes are seen. */
export const REEVALUATE_MS = 5 * 60_000;

export interface NodeOverlayDeps {
  readonly overlays: NodeOverlays;
  readonly store: OverlayStore;
  readonly cluster: { readonly synced: boolean; nodePools(): readonly NodePoolObject[] };
  readonly cloud: Pick<CloudProvider, "getInstanceTypes">;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** The overlay's status with Karpenter's conditions for the verdict (operatorpkg: Ready follows its dependents). */
export function overlayStatus(overlay: NodeOverlayLike, verdict: OverlayVerdict, now: Date): Record<string, unknown> {
  const generation = overlay.metadata?.generation;
  const before = overlay.status?.["conditions"] as Condition[] | undefined;
  const validation =
    verdict.status === "True"
      ? { type: "ValidationSucceeded", status: "True", reason: "ValidationSucceeded", message: "" }
      : { type: "ValidationSucceeded", status: "False", reason: verdict.reason, message: verdict.message };
  const ready =
    verdict.status === "True"
      ? { type: "Ready", status: "True", reason: "Ready", message: "" }
      : { type: "Ready", status: "False", reason: "UnhealthyDependents", message: "ValidationSucceeded=False" };
  const conditions = setCondition(setCondition(before, validation, now), ready, now);
  const owned = (c: Condition): boolean => c.type === "ValidationSucceeded" || c.type === "Ready";
  return { conditions: conditions.map((c) => (owned(c) ? { ...c, observedGeneration: generation } : c)) };
}

const comparable = (status: Readonly<Record<string, unknown>> | undefined): string =>
  JSON.stringify(
    ((status?.["conditions"] ?? []) as Condition[]).map((c) => [
      c.type,
      c.status,
      c.reason,
      c.message,
      c.observedGeneration,
    ]),
  );

function overlayPool(pool: NodePoolObject, types: OverlayPool["types"]): OverlayPool {
  const labels = (templateOf(pool).meta["labels"] ?? {}) as Record<string, unknown>;
  const strings = Object.fromEntries(Object.entries(labels).map(([k, v]) => [k, String(v)]));
  return { name: pool.metadata?.name ?? "", labels: strings, types };
}

/** Evaluates the overlays, writes their conditions, then publishes the evaluation. */
export async function reconcileNodeOverlays(deps: NodeOverlayDeps): Promise<Result> {
  if (!deps.cluster.synced) return { requeueAfter: 1000 };
  const nodePools = deps.cluster.nodePools();
  // Undecorated types: the evaluation is what decorates them.
  const types = await instanceTypesByPool({ cloud: deps.cloud, logger: deps.logger }, nodePools);
  const pools = nodePools.flatMap((p) => {
    const listed = types.get(p.metadata?.name ?? "");
    return listed === undefined ? [] : [overlayPool(p, listed)];
  });
  const overlays = deps.overlays.cached();
  const evaluation = evaluateOverlays(overlays, pools);
  const now = deps.clock.now();
  const byName = new Map(overlays.map((o) => [o.metadata?.name ?? "", o]));
  for (const verdict of evaluation.verdicts) {
    const overlay = byName.get(verdict.name);
    if (overlay === undefined) continue;
    const status = overlayStatus(overlay, verdict, now);
    if (comparable(status) !== comparable(overlay.status)) await deps.overlays.patchStatus(overlay, status);
  }
  deps.store.set(evaluation);
  return { requeueAfter: REEVALUATE_MS };
}

/** With the gate off: the overlays present get a Warning Event (once each) and the log one line (once). */
export function gateOffNotice(deps: {
  overlays: NodeOverlays;
  events: EventRecorder;
  logger: Logger;
}): () => Promise<Result> {
  const told = new Set<string>();
  let logged = false;
  return async () => {
    const overlays = await deps.overlays.list();
    for (const overlay of overlays ?? []) {
      const key = `${overlay.metadata?.uid ?? ""}/${overlay.metadata?.generation ?? 0}`;
      if (told.has(key)) continue;
      told.add(key);
      deps.events.publish(nodeOverlayIgnored(overlay));
    }
    if (!logged && (overlays ?? []).length > 0) {
      logged = true;
      const names = (overlays ?? []).map((o) => o.metadata?.name);
      deps.logger.warn(
        { nodeoverlays: names },
        "NodeOverlays exist but are not applied: the NodeOverlay feature gate is off " +
          "(--feature-gates NodeOverlay=true)",
      );
    }
    return { requeueAfter: REEVALUATE_MS };
  };
}

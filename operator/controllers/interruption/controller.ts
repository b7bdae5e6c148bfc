/**
 * The interruption controller (behaviour §5): a singleton loop that long-polls the interruption
 * queue and handles each batch of messages in parallel. Per message: parse, plan
 * (core/interruption), then act — mark interrupted spot offerings unavailable, publish the notices
 * on the NodeClaim and its Node, delete the NodeClaims (their termination finalizer cordons and
 * drains; provisioning replaces the capacity) — and only then delete the message. A message whose
 * handling failed stays on the queue and comes back after the visibility timeout; one that cannot
 * be parsed is deleted, as Karpenter does, since it will never parse.
 */
import type { Logger } from "pino";
import type { Clock } from "../../core/clock.ts";
import type { NodeClaim } from "../../core/lifecycle/objects.ts";
import { InterruptionParseError, parseInterruptionMessage } from "../../core/interruption/messages.ts";
import { planInterruption, type InterruptedClaim, type InterruptionPlan } from "../../core/interruption/plan.ts";
import { interruptionNotice, type EventRecorder } from "../../observability/events.ts";
import type { Metrics } from "../../observability/metrics.ts";
import { parseProviderID } from "../../ports/cloud-provider.ts";
import type { Cluster } from "../../ports/cluster.ts";
import type { InterruptionQueue, QueueMessage } from "../../ports/interruption-queue.ts";
import type { ControllerSpec } from "../controller-spec.ts";
import type { Result } from "../runtime.ts";

/** Where interrupted spot offerings are recorded (the ICE cache the launch path reads). */
export interface OfferingAvailability {
  markUnavailable(capacityType: string, instanceType: string, zone: string): void;
}

export interface InterruptionDeps {
  readonly cluster: Pick<Cluster, "synced" | "nodeClaims" | "node" | "deleteNodeClaim">;
  readonly queue: InterruptionQueue;
  readonly offerings: OfferingAvailability;
  readonly events: EventRecorder;
  readonly metrics: Metrics;
  readonly logger: Logger;
  readonly clock: Clock;
}

/** The outcome of one message, for logs and tests. */
export type Handled = "acted" | "no-action" | "unparsable";

function interruptedClaim(nc: NodeClaim, zone: string): InterruptedClaim {
  const labels: Readonly<Record<string, string>> = { "topology.kubernetes.io/zone": zone, ...nc.metadata?.labels };
  const label = (key: string): string => labels[key] ?? "";
  const nodeName = nc.status?.nodeName ?? "";
  return {
    name: nc.metadata?.name ?? "",
    nodeName: nodeName === "" ? undefined : nodeName,
    nodePool: label("karpenter.sh/nodepool"),
    capacityType: label("karpenter.sh/capacity-type"),
    instanceType: label("node.kubernetes.io/instance-type"),
    zone: label("topology.kubernetes.io/zone"),
    deleting: nc.metadata?.deletionTimestamp !== undefined,
  };
}

function claimsByInstance(nodeClaims: readonly NodeClaim[]): Map<string, InterruptedClaim> {
  const out = new Map<string, InterruptedClaim>();
  for (const nc of nodeClaims) {
    const parsed = parseProviderID(nc.status?.providerID ?? "");
    if (parsed !== undefined) out.set(parsed.instanceID, interruptedClaim(nc, parsed.zone));
  }
  return out;
}

async function execute(deps: InterruptionDeps, plan: InterruptionPlan, kind: string): Promise<void> {
  for (const o of plan.unavailable) deps.offerings.markUnavailable(o.capacityType, o.instanceType, o.zone);
  for (const n of plan.notices) {
    deps.events.publish(interruptionNotice("NodeClaim", { metadata: { name: n.claim.name } }, n));
    const node = n.claim.nodeName === undefined ? undefined : deps.cluster.node(n.claim.nodeName);
    if (node !== undefined) deps.events.publish(interruptionNotice("Node", node, n));
  }
  for (const claim of plan.deletes) {
    await deps.cluster.deleteNodeClaim(claim.name);
    deps.metrics.nodeClaimsDisrupted.inc({ reason: kind, nodepool: claim.nodePool, capacity_type: claim.capacityType });
    deps.logger.info(
      { nodeclaim: claim.name, node: claim.nodeName, messageKind: kind, action: plan.action },
      "initiating delete from interruption message",
    );
  }
}

/** Handles one message and deletes it; throws (leaving it on the queue) when acting on it failed. */
export async function handleMessage(deps: InterruptionDeps, m: QueueMessage): Promise<Handled> {
  let parsed;
  try {
    parsed = parseInterruptionMessage(m.body);
  } catch (error) {
    if (!(error instanceof InterruptionParseError)) throw error;
    deps.logger.warn({ messageId: m.id, err: error }, "deleting an interruption message that cannot be parsed");
    await deps.queue.delete(m);
    deps.metrics.interruptionDeleted.inc();
    return "unparsable";
  }
  deps.metrics.interruptionReceived.inc({ message_type: parsed.kind });
  const since = parsed.eventTimeMs ?? m.sentAtMs;
  if (since !== undefined)
    deps.metrics.interruptionQueueDuration.observe(Math.max(0, deps.clock.now().getTime() - since) / 1000);
  const plan = planInterruption(parsed, claimsByInstance(deps.cluster.nodeClaims()));
  await execute(deps, plan, parsed.kind);
  await deps.queue.delete(m);
  deps.metrics.interruptionDeleted.inc();
  return plan.deletes.length > 0 || plan.unavailable.length > 0 ? "acted" : "no-action";
}

/** One loop turn: receive a batch, handle it; a failed message is logged and left for redelivery. */
async function poll(deps: InterruptionDeps, signal: AbortSignal): Promise<Result> {
  if (!deps.cluster.synced) return { requeueAfter: 1000 };
  const messages = await deps.queue.receive(signal);
  const results = await Promise.allSettled(messages.map((m) => handleMessage(deps, m)));
  results.forEach((r, i) => {
    if (r.status === "rejected")
      deps.logger.error(
        { messageId: messages[i]?.id, err: r.reason },
        "handling interruption message failed; it returns after the visibility timeout",
      );
  });
  return { requeueAfter: 0 };
}

/** The controller spec: present only when an interruption queue is configured. */
export function interruptionController(deps: InterruptionDeps): ControllerSpec {
  return {
    name: "interruption",
    singleton: "interruption",
    watches: {},
    reconcile: (_key, signal) => poll(deps, signal),
  };
}

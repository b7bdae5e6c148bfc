/**
 * The disruption planner's thread (node:worker_threads): keeps the mirror of the cluster the
 * operator syncs to it (planner-wire.ts) and answers plan and re-validation requests with the pure
 * planner, so a pass never holds the operator's event loop. One request at a time, in order.
 * Imported on the main thread it does nothing.
 */
import { parentPort } from "node:worker_threads";
import { planDisruption } from "../../core/disruption/plan.ts";
import { revalidate } from "../../core/disruption/validation.ts";
import {
  Mirror,
  rehydrateCommand,
  slimPlan,
  slimValidation,
  viewSource,
  type Reply,
  type ToThread,
} from "./planner-wire.ts";

function answer(mirror: Mirror, message: Exclude<ToThread, { type: "sync" | "types" }>): Reply {
  const input = mirror.input(message.params);
  if (message.type === "plan") {
    const started = process.cpuUsage();
    const plan = slimPlan(planDisruption(input));
    const used = process.cpuUsage(started);
    return { type: "plan", id: message.id, plan, cpuMs: (used.user + used.system) / 1000 };
  }
  const command = rehydrateCommand(message.command, viewSource(input.cluster), input.instanceTypes);
  return { type: "revalidate", id: message.id, validation: slimValidation(revalidate(input, command)) };
}

function serve(port: NonNullable<typeof parentPort>): void {
  const mirror = new Mirror();
  port.on("message", (message: ToThread) => {
    if (message.type === "sync" || message.type === "types") {
      mirror.apply(message);
      return;
    }
    let reply: Reply;
    try {
      reply = answer(mirror, message);
    } catch (error) {
      const e = error instanceof Error ? error : new Error(String(error));
      reply = { type: "error", id: message.id, message: e.message, stack: e.stack };
    }
    port.postMessage(reply);
  });
}

if (parentPort !== null) serve(parentPort);

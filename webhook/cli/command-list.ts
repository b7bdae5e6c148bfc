/**
 * Registers every subcommand; add new commands here. A command's module is imported only when that
 * command runs, so `kerf check` never loads fastify, pino, prom-client or the scheduler.
 */
import { registerCommand, type Command } from "./commands.ts";

/** A command whose implementation module is loaded on first run. */
function lazy(name: string, summary: string, load: () => Promise<Command["run"]>): Command {
  return { name, summary, run: async (args, io) => (await load())(args, io) };
}

registerCommand(
  lazy(
    "check",
    "check NodePool/EC2NodeClass manifests (files, directories or -)",
    async () => (await import("./check.ts")).runCheck,
  ),
);
registerCommand(
  lazy(
    "webhook",
    "serve the validating/mutating admission webhook over HTTPS",
    async () => (await import("./webhook.ts")).runWebhook,
  ),
);
registerCommand(
  lazy(
    "simulate",
    "simulate scheduling of a scenario: which nodes would be launched, at what price",
    async () => (await import("./simulate.ts")).runSimulate,
  ),
);
// The operator's module registers itself (it already defers its heavy imports); imported
// last to keep the listing order.
await import("../../operator/cli.ts");

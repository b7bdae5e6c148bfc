/** Registers the `kerf operator` subcommand with the CLI's command registry. */
import { registerCommand } from "../webhook/cli/commands.ts";

registerCommand({
  name: "operator",
  summary: "run the node autoscaling operator (Karpenter-compatible controllers with leader election)",
  run: async (args, io) => {
    if (args.includes("--help") || args.includes("-h")) {
      // Imported here: config.ts compiles its flag schema with ajv, which every other kerf command would pay for.
      const { usage } = await import("./config.ts");
      io.stdout(
        `usage: kerf operator [flags]\n\nEvery flag can also be set with its environment variable.\n${usage()}\n`,
      );
      return 0;
    }
    const { runOperator } = await import("./main.ts");
    return runOperator(args, io.stderr);
  },
});

registerCommand({
  name: "top",
  summary: "live view of the cluster's NodePools, NodeClaims and nodes: requests, $/h, disruption state and budgets",
  run: async (args, io) => (await import("./top/command.ts")).runTop(args, io),
});

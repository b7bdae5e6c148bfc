/** `kerf` entry point: parses the global flags and dispatches to a subcommand. */
import pkg from "../../package.json" with { type: "json" };
import { commands } from "./commands.ts";
import { ExitCode } from "./exit-codes.ts";
import { processIo, type CliIo } from "./io.ts";
import "./command-list.ts";

function usage(): string {
  const rows = commands().map((c) => `  ${c.name.padEnd(10)} ${c.summary}`);
  return [
    "kerf: Karpenter-compatible node autoscaling with GitOps guardrails",
    "",
    "Usage: kerf <command> [options]",
    "",
    "Commands:",
    ...rows,
    "",
    "Options:",
    "  -h, --help     show this help",
    "  -v, --version  print the kerf version",
    "",
    "Run `kerf <command> --help` for a command's options.",
    "",
  ].join("\n");
}

/** Runs kerf with `argv` (without node and script) and resolves to the exit code. */
export async function run(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === "-h" || first === "--help" || first === "help") {
    io.stdout(usage());
    return first === undefined ? ExitCode.usage : ExitCode.ok;
  }
  if (first === "-v" || first === "--version" || first === "version") {
    io.stdout(`kerf ${pkg.version}\n`);
    return ExitCode.ok;
  }
  const command = commands().find((c) => c.name === first);
  if (command === undefined) {
    io.stderr(`kerf: unknown command "${first}" (run \`kerf --help\` for the list)\n`);
    return ExitCode.usage;
  }
  return command.run(rest, io);
}

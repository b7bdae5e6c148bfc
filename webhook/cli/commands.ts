/** The registry of kerf subcommands: the one place that lists what `kerf` can do. */
import type { CliIo } from "./io.ts";

/** One subcommand. `run` resolves to the process exit code and never throws for a user mistake. */
export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly run: (args: readonly string[], io: CliIo) => Promise<number>;
}

const registry: Command[] = [];

/** Adds a subcommand; called by each command module's registration. */
export function registerCommand(command: Command): void {
  registry.push(command);
}

/** Every registered subcommand, in registration order. */
export function commands(): readonly Command[] {
  return registry;
}

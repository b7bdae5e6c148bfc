/**
 * `npm start`: the local kerf playground (see playground.ts). Bad flags: one line, exit 2;
 * Ctrl-C stops everything and exits 0.
 */
import { parseFlags, USAGE, UsageError, type PlaygroundOptions } from "./flags.ts";
import { runPlayground } from "./playground.ts";

function options(): PlaygroundOptions | number {
  try {
    return parseFlags(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`kerf playground: ${error.message} (see --help)\n`);
    return 2;
  }
}

async function main(): Promise<number> {
  const parsed = options();
  if (typeof parsed === "number") return parsed;
  if (parsed.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const controller = new AbortController();
  let signals = 0;
  const interrupt = (): void => {
    signals += 1;
    // A second Ctrl-C gives up on the orderly stop; the harness's exit hook still kills every child.
    if (signals > 1) process.exit(130);
    process.stdout.write("\ninterrupted: stopping (Ctrl-C again to kill)\n");
    controller.abort();
  };
  process.on("SIGINT", interrupt);
  process.on("SIGTERM", interrupt);
  const color = process.stdout.isTTY && process.env["NO_COLOR"] === undefined;
  return runPlayground(parsed, { out: (line) => process.stdout.write(`${line}\n`), color, signal: controller.signal });
}

process.exitCode = await main();

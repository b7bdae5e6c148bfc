/** `kerf webhook`: runs the admission webhook (HTTPS) until SIGTERM/SIGINT. */
import { flagUsage, loadWebhookConfig } from "../config.ts";
import { causeText, isKerfError } from "../errors.ts";
import { startWebhook } from "../main.ts";
import { ExitCode } from "./exit-codes.ts";
import type { CliIo } from "./io.ts";

const usage = `Usage: kerf webhook --tls-cert FILE --tls-key FILE [options]

Serves the validating (POST /validate) and mutating (POST /mutate) admission webhook for NodePool
and EC2NodeClass over HTTPS, plus /healthz, /readyz and /metrics. Logs are JSON on stdout.

Options:
${flagUsage()}
  -h, --help                 show this help
`;

function waitForSignal(): Promise<string> {
  return new Promise((resolve) => {
    process.once("SIGTERM", () => resolve("SIGTERM"));
    process.once("SIGINT", () => resolve("SIGINT"));
  });
}

/** Runs until a signal; exit 2 for bad flags, certificates or policy config (one line, no stack trace). */
export async function runWebhook(args: readonly string[], io: CliIo): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout(usage);
    return ExitCode.ok;
  }
  try {
    const config = loadWebhookConfig(args);
    const running = await startWebhook(config);
    await waitForSignal();
    await running.close();
    return ExitCode.ok;
  } catch (error) {
    io.stderr(`kerf webhook: ${causeText(error)}\n`);
    if (!isKerfError(error) && error instanceof Error) io.stderr(`${error.stack ?? ""}\n`);
    return ExitCode.usage;
  }
}

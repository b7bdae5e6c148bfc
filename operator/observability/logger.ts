/**
 * The operator's logger: the factory the webhook uses too (webhook/logging.ts), so both write one line shape (level
 * names, ISO-8601 UTC time, the same base fields). Created once in main and injected, never a singleton.
 */
import { pino, type DestinationStream, type Logger } from "pino";
import { createComponentLogger, type LogComponent } from "../../webhook/logging.ts";

export type { Logger } from "pino";
export type { LogComponent } from "../../webhook/logging.ts";

/** A JSON logger at `level` for `app` (the operator unless told), writing to `destination` (stdout by default). */
export function createLogger(
  level: string,
  destination?: DestinationStream,
  app: LogComponent = "kerf-operator",
): Logger {
  return createComponentLogger(app, level, destination);
}

/** A logger that drops everything; for unit tests. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}

/** Structured JSON logger factory; the logger is created once in main and injected, never imported as a singleton. */
import { pino, type DestinationStream, type Logger } from "pino";

export type { Logger } from "pino";

/** A JSON logger at `level`, writing to `destination` (stdout by default). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, base: { app: "kerf-operator" }, timestamp: pino.stdTimeFunctions.isoTime };
  return destination === undefined ? pino(options) : pino(options, destination);
}

/** A logger that drops everything; for unit tests. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}

/**
 * The structured JSON logger of kerf's long-running components, the webhook and the operator (which re-exports it
 * from operator/observability/logger.ts; the webhook never imports the operator): one factory so that both write the
 * same line shape, parsed by one rule in a log pipeline:
 *   {"level":"info","time":"2026-11-27T03:00:00.000Z","app":"kerf-webhook","version":"0.1.0","pid":1,
 *    "hostname":"kerf-webhook-7c9d8-xyz12","msg":"kerf webhook listening",…}
 * Level names (not pino's numbers), ISO-8601 UTC timestamps, the same base fields; `app` names the component.
 * Created once in each main and injected, never imported as a singleton.
 */
import { hostname } from "node:os";
import { pino, type DestinationStream, type Logger, type LoggerOptions } from "pino";
import pkg from "../package.json" with { type: "json" };

/** The component a log line comes from (its `app` field). */
export type LogComponent = "kerf-operator" | "kerf-webhook";

/** The pino options both components log with: level names, ISO time, the same base fields. */
export function loggerOptions(level: string, app: LogComponent): LoggerOptions {
  return {
    level,
    base: { app, version: pkg.version, pid: process.pid, hostname: hostname() },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
}

/** A JSON logger at `level` for `app`, writing to `destination` (stdout by default). */
export function createComponentLogger(app: LogComponent, level: string, destination?: DestinationStream): Logger {
  const options = loggerOptions(level, app);
  return destination === undefined ? pino(options) : pino(options, destination);
}

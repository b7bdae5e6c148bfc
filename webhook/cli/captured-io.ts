/**
 * For tests only (no production module imports it): a CliIo that keeps what a CLI command writes to stdout and
 * stderr, for the test to read back, and serves a given text as standard input.
 */
import type { CliIo } from "./io.ts";

/** A CliIo that keeps what the command writes, for the test to read back. */
export interface CapturedIo {
  readonly io: CliIo;
  out(): string;
  err(): string;
}

export interface CaptureOptions {
  /** What readStdin returns; "" by default. */
  readonly stdin?: string;
  /** Whether stdout counts as a terminal; false by default. */
  readonly isTty?: boolean;
}

export function capture(options: CaptureOptions = {}): CapturedIo {
  const { stdin = "", isTty = false } = options;
  let out = "";
  let err = "";
  const io: CliIo = {
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      err += t;
    },
    isTty,
    readStdin: async () => stdin,
  };
  return { io, out: () => out, err: () => err };
}

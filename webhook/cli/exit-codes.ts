/** Process exit codes of every kerf command: the contract CI pipelines key on. */
export const ExitCode = {
  /** Nothing denied. */
  ok: 0,
  /** At least one finding with severity deny. */
  denied: 1,
  /** Usage error, or input that could not be read or parsed. */
  usage: 2,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

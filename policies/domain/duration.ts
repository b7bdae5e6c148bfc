/** Karpenter duration strings ("30s", "1h30m", "720h", "Never"), in Go time.Duration syntax. */

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};
const TOKEN = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;

/** The duration "Never" (disabled). */
export const NEVER = "Never";

/** A duration in milliseconds, or "Never". */
export type Duration = number | typeof NEVER;

/** A string that is not a Go duration nor "Never". */
export class DurationError extends Error {
  readonly input: string;
  constructor(input: string) {
    super(`parsing duration "${input}": expected a Go duration such as "30s", "1h30m" or "Never"`);
    this.name = "DurationError";
    this.input = input;
  }
}

/** Parses a Go duration ("1h30m", "-5m", "0") or "Never"; throws DurationError. */
export function parseDuration(input: string): Duration {
  if (input === NEVER) return NEVER;
  if (input === "0") return 0;
  let rest = input;
  let sign = 1;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    sign = rest.startsWith("-") ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === "") throw new DurationError(input);
  let total = 0;
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < rest.length) {
    const match = TOKEN.exec(rest);
    if (match === null) throw new DurationError(input);
    total += Number(match[1]) * (UNIT_MS[match[2] ?? ""] ?? 0);
  }
  return sign * total;
}

/** Like parseDuration but answers undefined instead of throwing. */
export function tryParseDuration(input: unknown): Duration | undefined {
  if (typeof input !== "string") return undefined;
  try {
    return parseDuration(input);
  } catch {
    return undefined;
  }
}

/** Whether `input` matches Karpenter's CRD pattern for durations: `^(([0-9]+(s|m|h))+|Never)$`. */
export function isKarpenterDuration(input: string): boolean {
  return /^(([0-9]+(s|m|h))+|Never)$/.test(input);
}

/** Formats milliseconds the way Go prints a time.Duration ("1h30m0s", "500ms", "0s"). */
export function formatDuration(duration: Duration): string {
  if (duration === NEVER) return NEVER;
  if (duration === 0) return "0s";
  const sign = duration < 0 ? "-" : "";
  const ms = Math.abs(duration);
  if (ms < 1000) return `${sign}${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = (ms % 60_000) / 1000;
  const h = hours > 0 ? `${hours}h` : "";
  const m = hours > 0 || minutes > 0 ? `${minutes}m` : "";
  return `${sign}${h}${m}${seconds}s`;
}

/** Polling helpers for integration tests: wait for a condition with a deadline, never a fixed sleep. */
import { setTimeout as sleep } from "node:timers/promises";

/**
 * Retries `check` until it returns a value other than undefined/false, or fails with
 * the last error after `timeoutMs`.
 */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 30_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    await sleep(intervalMs);
  }
  const reason = last instanceof Error ? `: ${last.message}` : "";
  throw new Error(`waiting for ${what}: timed out after ${timeoutMs} ms${reason}`);
}

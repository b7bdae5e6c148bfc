import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { silentLogger } from "../observability/logger.ts";
import { TerminalError, WorkQueue, type Reconcile } from "./runtime.ts";

function queue(
  reconcile: Reconcile,
  extra: { isConflict?: (e: unknown) => boolean; concurrency?: number } = {},
): WorkQueue {
  return new WorkQueue({
    name: "test",
    reconcile,
    logger: silentLogger(),
    baseBackoffMs: 5,
    maxBackoffMs: 20,
    ...extra,
  });
}

async function until(check: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await sleep(2);
  }
}

void describe("work queue", () => {
  void it("should collapse repeated adds of a queued key into one reconcile", async () => {
    const calls: string[] = [];
    const q = queue(async (key) => {
      calls.push(key);
      return {};
    });
    q.add("a");
    q.add("a");
    q.add("b");
    q.add("a");
    q.start();
    await until(() => calls.length >= 2);
    await sleep(20);
    await q.stop();
    assert.deepEqual(calls, ["a", "b"]);
  });

  void it("should wait, not spin, when a reconcile asks to come back in 30 days (past setTimeout's 24.8-day limit)", async () => {
    let calls = 0;
    const q = queue(async () => {
      calls += 1;
      return { requeueAfter: 30 * 24 * 3_600_000 };
    });
    q.start();
    q.add("k");
    await until(() => calls >= 1);
    await sleep(50);
    await q.stop();
    assert.equal(calls, 1);
  });

  void it("should never run one key concurrently, and rerun it when added during its reconcile", async () => {
    let running = 0;
    let maxRunning = 0;
    let calls = 0;
    const q = queue(
      async () => {
        running += 1;
        calls += 1;
        maxRunning = Math.max(maxRunning, running);
        await sleep(10);
        running -= 1;
        return {};
      },
      { concurrency: 4 },
    );
    q.start();
    q.add("k");
    await sleep(2);
    q.add("k");
    q.add("k");
    await until(() => calls === 2);
    await sleep(30);
    await q.stop();
    assert.equal(maxRunning, 1);
    assert.equal(calls, 2);
  });

  void it("should requeue after the asked delay", async () => {
    const times: number[] = [];
    const q = queue(async () => {
      times.push(performance.now());
      return times.length < 2 ? { requeueAfter: 30 } : {};
    });
    q.start();
    q.add("k");
    await until(() => times.length === 2);
    await q.stop();
    assert.ok((times[1] ?? 0) - (times[0] ?? 0) >= 25);
  });

  void it("should retry failures with growing backoff until success", async () => {
    let calls = 0;
    const q = queue(async () => {
      calls += 1;
      if (calls < 4) throw new Error("boom");
      return {};
    });
    q.start();
    q.add("k");
    await until(() => calls === 4);
    await sleep(40);
    await q.stop();
    assert.equal(calls, 4);
  });

  void it("should not retry a TerminalError", async () => {
    let calls = 0;
    const q = queue(async () => {
      calls += 1;
      throw new TerminalError("bad spec");
    });
    q.start();
    q.add("k");
    await sleep(60);
    await q.stop();
    assert.equal(calls, 1);
  });

  void it("should requeue conflicts promptly", async () => {
    let calls = 0;
    const q = queue(
      async () => {
        calls += 1;
        if (calls === 1) throw new Error("conflict");
        return {};
      },
      { isConflict: (e) => (e as Error).message === "conflict" },
    );
    q.start();
    q.add("k");
    await until(() => calls === 2, 200);
    await q.stop();
  });

  void it("should abort in-flight reconciles and wait for them on stop", async () => {
    let aborted = false;
    const q = queue(async (_key, signal) => {
      await new Promise((r) => signal.addEventListener("abort", r));
      aborted = signal.aborted;
      return {};
    });
    q.start();
    q.add("k");
    await sleep(5);
    await q.stop();
    assert.equal(aborted, true);
  });
});

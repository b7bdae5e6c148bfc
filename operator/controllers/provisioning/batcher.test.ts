import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { setImmediate as tick } from "node:timers/promises";
import { Batcher, type Batch, type Timers } from "./batcher.ts";

/** Timers the test moves by hand; advance() fires what falls due, letting promises settle between. */
class ManualTimers implements Timers {
  private at = 0;
  private seq = 0;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();
  now(): number {
    return this.at;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    this.seq += 1;
    this.pending.set(this.seq, { at: this.at + ms, fn });
    return this.seq;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  async advance(ms: number): Promise<void> {
    const end = this.at + ms;
    for (;;) {
      await tick();
      const next = [...this.pending.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (next === undefined) break;
      this.pending.delete(next[0]);
      this.at = next[1].at;
      next[1].fn();
    }
    this.at = end;
    await tick();
  }
}

function setup(pollMs = 5_000): {
  timers: ManualTimers;
  batcher: Batcher;
  result: () => Batch | undefined | "waiting";
  start: (signal?: AbortSignal) => void;
} {
  const timers = new ManualTimers();
  const batcher = new Batcher({ idleMs: 1_000, maxMs: 10_000, pollMs, timers });
  let outcome: Batch | undefined | "waiting" = "waiting";
  return {
    timers,
    batcher,
    result: () => outcome,
    start: (signal) => {
      outcome = "waiting";
      void batcher.wait(signal).then((b) => {
        outcome = b;
      });
    },
  };
}

void describe("the provisioning batch window", () => {
  void it("should close one idle second after the only pod", async () => {
    const { timers, batcher, result, start } = setup();
    start();
    await timers.advance(200);
    batcher.trigger("pod-a");
    await timers.advance(999);
    assert.equal(result(), "waiting");
    await timers.advance(1);
    assert.deepEqual(result(), { ids: ["pod-a"], openedAt: 200, closedAt: 1_200 });
  });

  void it("should extend the window for every new pod UID but not for a repeated one", async () => {
    const { timers, batcher, result, start } = setup();
    start();
    batcher.trigger("a");
    await timers.advance(800);
    batcher.trigger("b");
    await timers.advance(800);
    batcher.trigger("b");
    await timers.advance(199);
    assert.equal(result(), "waiting", "b extended the window to 1.8 s");
    await timers.advance(1);
    assert.deepEqual(result(), { ids: ["a", "b"], openedAt: 0, closedAt: 1_800 });
  });

  void it("should close after the maximum duration even while pods keep arriving", async () => {
    const { timers, batcher, result, start } = setup();
    start();
    for (let i = 0; i < 30; i++) {
      batcher.trigger(`pod-${i}`);
      await timers.advance(500);
    }
    const batch = result();
    assert.ok(batch !== "waiting" && batch !== undefined);
    assert.equal(batch.closedAt - batch.openedAt, 10_000);
    assert.equal(batch.ids.length, 20, "pods 0..19 arrived before the 10 s cap");
  });

  void it("should give up after the poll period when no pod arrives, and keep later triggers for the next wait", async () => {
    const { timers, batcher, result, start } = setup(5_000);
    start();
    await timers.advance(5_000);
    assert.equal(result(), undefined);
    batcher.trigger("late");
    assert.equal(batcher.open, true);
    start();
    await timers.advance(1_000);
    assert.deepEqual(result(), { ids: ["late"], openedAt: 5_000, closedAt: 6_000 });
    assert.equal(batcher.open, false);
  });

  void it("should open a new window for triggers that arrive while the last batch is being planned", async () => {
    const { timers, batcher, result, start } = setup();
    start();
    batcher.trigger("a");
    await timers.advance(1_000);
    batcher.trigger("a");
    await timers.advance(300);
    start();
    await timers.advance(700);
    assert.deepEqual(result(), { ids: ["a"], openedAt: 1_000, closedAt: 2_000 });
  });

  void it("should return at once when its signal aborts", async () => {
    const { timers, batcher, result, start } = setup();
    const abort = new AbortController();
    start(abort.signal);
    batcher.trigger("a");
    await timers.advance(100);
    abort.abort();
    await timers.advance(0);
    assert.equal(result(), undefined);
    assert.equal(batcher.open, true, "the window is kept for the next leader term");
  });
});

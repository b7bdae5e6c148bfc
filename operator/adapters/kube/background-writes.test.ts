import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BackgroundWrites } from "./background-writes.ts";

function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe("background writes", () => {
  it("runs no more than the concurrency limit at once and the rest in submission order", async () => {
    const writes = new BackgroundWrites({ concurrency: 2, capacity: 10 });
    const gates = [gate(), gate(), gate(), gate()];
    const started: number[] = [];
    gates.forEach((g, i) =>
      writes.submit(async () => {
        started.push(i);
        await g.promise;
      }),
    );
    assert.deepEqual(started, [0, 1]);
    gates[1]?.open();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(started, [0, 1, 2]);
    for (const g of gates) g.open();
    await writes.idle();
    assert.deepEqual(started, [0, 1, 2, 3]);
  });

  it("drops and counts writes beyond the capacity instead of queueing without bound", async () => {
    const writes = new BackgroundWrites({ concurrency: 1, capacity: 2 });
    const g = gate();
    const accepted = [1, 2, 3, 4, 5].map(() => writes.submit(() => g.promise));
    assert.deepEqual(accepted, [true, true, true, false, false]);
    assert.equal(writes.dropped, 2);
    g.open();
    await writes.idle();
    assert.equal(writes.pending, 0);
  });

  it("keeps going after a write rejects", async () => {
    const writes = new BackgroundWrites({ concurrency: 1, capacity: 5 });
    let ran = false;
    writes.submit(() => Promise.reject(new Error("apiserver said no")));
    writes.submit(async () => {
      ran = true;
    });
    await writes.idle();
    assert.equal(ran, true);
  });
});

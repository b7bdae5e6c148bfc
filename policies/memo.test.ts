import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { BoundedMemo } from "./memo.ts";

void describe("BoundedMemo", () => {
  void it("remembers values by key", () => {
    const memo = new BoundedMemo<number>({ maxEntries: 10, maxKeyLength: 100, maxTotalLength: 1000 });
    memo.set("a", 1);
    assert.equal(memo.get("a"), 1);
    assert.equal(memo.has("b"), false);
  });

  void it("never keeps a key longer than maxKeyLength", () => {
    const memo = new BoundedMemo<number>({ maxEntries: 10, maxKeyLength: 4, maxTotalLength: 1000 });
    memo.set("12345", 1);
    assert.equal(memo.has("12345"), false);
    assert.equal(memo.size, 0);
  });

  void it("starts over when the total key length or the entry count would exceed its limit", () => {
    const memo = new BoundedMemo<number>({ maxEntries: 3, maxKeyLength: 10, maxTotalLength: 12 });
    for (const key of ["aaaa", "bbbb", "cccc"]) memo.set(key, 1);
    assert.equal(memo.size, 3);
    memo.set("dddd", 1); // 16 characters would exceed 12
    assert.deepEqual([memo.has("aaaa"), memo.has("dddd"), memo.size], [false, true, 1]);
    const counted = new BoundedMemo<number>({ maxEntries: 2, maxKeyLength: 10, maxTotalLength: 1000 });
    for (const key of ["a", "b", "c"]) counted.set(key, 1);
    assert.deepEqual([counted.has("a"), counted.has("c"), counted.size], [false, true, 1]);
  });
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { applyPatch, diff, escapePointer } from "./json-patch.ts";

void describe("json patch diff", () => {
  const table: [string, unknown, unknown][] = [
    ["adds a missing nested field", { a: { b: 1 } }, { a: { b: 1, c: 2 } }],
    ["adds inside array items", { a: [{ x: 1 }, { x: 2 }] }, { a: [{ x: 1 }, { x: 2, y: 3 }] }],
    ["replaces a changed scalar", { a: 1 }, { a: 2 }],
    ["removes a dropped field", { a: 1, b: null }, { a: 1 }],
    ["replaces an array of another length", { a: [1] }, { a: [1, 2] }],
    ["escapes keys with slashes and tildes", { l: {} }, { l: { "karpenter.sh/x~y": "1" } }],
  ];
  for (const [name, from, to] of table) {
    void it(`${name} and round-trips through applyPatch`, () => {
      const ops = diff(from, to);
      assert.ok(ops.length > 0);
      assert.deepEqual(applyPatch(from, ops), to);
    });
  }

  void it("is empty for equal documents", () => {
    assert.deepEqual(diff({ a: [1, { b: "c" }] }, { a: [1, { b: "c" }] }), []);
  });

  void it("escapes RFC 6901 tokens", () => {
    assert.equal(escapePointer("a/b~c"), "a~1b~0c");
    assert.deepEqual(diff({}, { "a/b": 1 }), [{ op: "add", path: "/a~1b", value: 1 }]);
  });
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { Strings } from "./strings.ts";

void describe("interning string values", () => {
  void it("should leave every object deep-equal to what it was, whatever the table's limit", () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue()), fc.integer({ min: 1, max: 50 }), (objects, limit) => {
        const strings = new Strings(limit);
        const copies = structuredClone(objects);
        assert.deepEqual(
          objects.map((o) => strings.intern(o)),
          copies,
        );
      }),
    );
  });

  void it("should leave dates, frozen objects and non-strings as they are", () => {
    const frozen = Object.freeze({ a: "x" });
    const date = new Date(0);
    const value = { date, frozen, n: 1, b: true, none: null, list: ["x", 2] };
    const strings = new Strings();
    assert.equal(strings.intern(value), value);
    assert.equal(value.date, date);
    assert.equal(value.frozen, frozen);
    assert.deepEqual(value.list, ["x", 2]);
  });
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { CelCompileError, compileExpression } from "./expression.ts";

/** The expression's value with `self` bound, or "error" when CEL raises an evaluation error. */
function run(expression: string, self: unknown = null): unknown {
  const outcome = compileExpression(expression).evaluate({ self: self as never });
  return outcome.ok ? outcome.value : "error";
}

void describe("the Kubernetes CEL environment", () => {
  const cases: [string, string, unknown, unknown][] = [
    // [what, expression, self, expected]
    ["has() tests a map key's presence", "has(self.a) && !has(self.b)", new Map([["a", 1n]]), true],
    ["a missing field is an evaluation error", "self.b == 1", new Map([["a", 1n]]), "error"],
    [
      "all() iterates a map's keys",
      "self.all(k, k != '')",
      new Map([
        ["a", "x"],
        ["", "y"],
      ]),
      false,
    ],
    ["exists() finds a list item", "self.exists(x, x == 2)", [1n, 2n], true],
    ["filter() keeps matching items", "self.filter(x, x > 1).size() == 1", [1n, 2n], true],
    ["`in` tests list membership", "self in ['a', 'b']", "b", true],
    ["`in` tests map keys", "'nodes' in self", new Map([["nodes", "5"]]), true],
    ["size() counts code points, not UTF-16 units", "size(self) == 2 && self.size() == 2", "a😀", true],
    [
      "startsWith and endsWith",
      "self.startsWith('kubernetes.io/') && self.endsWith('/x')",
      "kubernetes.io/cluster/x",
      true,
    ],
    ["int and double compare across types", "self > 0.5 && self == 1.0", 1n, true],
    ["an index out of range is an evaluation error", "self.split('@')[1] == 'latest'", "windows2019", "error"],
    // RE2 against JavaScript RegExp: flag groups, `.` and lookahead differ.
    [
      "matches() reads (?i) flag groups, which JavaScript RegExp rejects",
      "self.matches('^(?i)AL2@')",
      "al2@latest",
      true,
    ],
    ["matches() treats `.` as RE2 does: a carriage return matches", "self.matches('^[a-z0-9]+@.+$')", "al2@\r", true],
    ["matches() with a pattern RE2 rejects (lookahead) is an evaluation error", "self.matches('^(?=a)')", "a", "error"],
    ["find() returns the first match", "self.find('^([^/]+)')", "karpenter.sh/x", "karpenter.sh"],
    ["find() returns '' without a match", "self.find('[0-9]+')", "abc", ""],
    ["findAll() returns every match", "self.findAll('[0-9]+')", "a1b22c333", ["1", "22", "333"]],
    ["findAll() with a limit", "self.findAll('[0-9]+', 2)", "a1b22c333", ["1", "22"]],
    ["findAll() skips an empty match abutting the previous one, as Go does", "self.findAll('a*')", "baaa", ["", "aaa"]],
    ["split() splits on every separator", "self.split('@')", "a@b@c", ["a", "b", "c"]],
    ["split(sep, n) keeps the remainder in the last part, as Go's SplitN", "self.split('@', 2)", "a@b@c", ["a", "b@c"]],
    ["split('') splits code points", "self.split('')", "a😀", ["a", "😀"]],
    ["int() parses a base-10 int64", "int(self)", "-42", -42n],
    ["int() accepts the largest int64", "int(self)", "9223372036854775807", 9223372036854775807n],
    ["int() accepts the smallest int64", "int(self)", "-9223372036854775808", -9223372036854775808n],
    [
      "int() rejects one past the largest int64 (no rounding through doubles)",
      "int(self)",
      "9223372036854775808",
      "error",
    ],
    ["int() rejects one past the smallest int64", "int(self)", "-9223372036854775809", "error"],
    ["int() rejects surrounding spaces", "int(self)", " 1", "error"],
    ["int() rejects hexadecimal", "int(self)", "0x10", "error"],
    ["int() rejects the empty string", "int(self)", "", "error"],
    ["int() rejects a decimal", "int(self)", "1.5", "error"],
  ];
  for (const [what, expression, self, expected] of cases) {
    void it(what, () => {
      const value = run(expression, self);
      assert.deepEqual(Array.isArray(expected) ? [...(value as Iterable<unknown>)] : value, expected);
    });
  }

  void it("knows which expressions read oldSelf", () => {
    assert.equal(compileExpression("self.kind == oldSelf.kind").readsOldSelf, true);
    assert.equal(compileExpression("self.all(x, x != 'oldSelf')").readsOldSelf, false);
  });

  const uncompilable: [string, string][] = [
    ["a syntax error", "self.("],
    ["a function the environment lacks", "self.isSorted()"],
  ];
  for (const [what, expression] of uncompilable) {
    void it(`refuses to compile ${what}`, () => {
      assert.throws(() => compileExpression(expression), CelCompileError);
    });
  }
});

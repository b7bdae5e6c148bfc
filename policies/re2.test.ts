import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { re2RegExp, re2Source } from "./re2.ts";
import { BUDGET_SCHEDULE } from "./api/patterns.ts";

describe("RE2 patterns in JavaScript", () => {
  const cases: [pattern: string, input: string, matches: boolean][] = [
    // \s is [\t\n\f\r ] in RE2: a vertical tab or a no-break space separates nothing (the apiserver rejects these schedules).
    [BUDGET_SCHEDULE, "0 0 * *\v*", false],
    [BUDGET_SCHEDULE, "0 0 * *\u00a0*", false],
    [BUDGET_SCHEDULE, "       \v ", false],
    [BUDGET_SCHEDULE, "0 0 * * *", true],
    [BUDGET_SCHEDULE, "0\t0\n*\f*\r*", true],
    // . is anything but \n in RE2: a trailing \r or U+2028 is part of the last field (the apiserver accepts these).
    [BUDGET_SCHEDULE, "0 0 * * *\r", true],
    [BUDGET_SCHEDULE, "0 0 * * *\u2028", true],
    ["^a.b$", "a\nb", false],
    ["^[a-zA-Z0-9]+@.+$", "al2023@latest\r", true],
    ["^[.]$", "x", false],
    ["^[.]$", ".", true],
    ["^[\\s]$", "\v", false],
    ["^\\S$", "\v", true],
    ["^\\.$", "x", false],
    ["^[]a]$", "]", true],
    ["^[^]a]$", "b", true],
  ];
  for (const [pattern, input, matches] of cases) {
    it(`${JSON.stringify(pattern)} ${matches ? "matches" : "does not match"} ${JSON.stringify(input)}`, () => {
      assert.equal(re2RegExp(pattern).test(input), matches);
    });
  }

  it("leaves escapes other than \\s and \\S as written", () => {
    assert.equal(re2Source("^\\d+\\.\\/x$"), "^\\d+\\.\\/x$");
  });
});

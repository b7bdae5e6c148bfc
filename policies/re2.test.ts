import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { re2 } from "./re2.ts";
import { BUDGET_SCHEDULE } from "./api/patterns.ts";

describe("RE2 patterns", () => {
  const cases: [pattern: string, input: string, matches: boolean][] = [
    // \s is [\t\n\f\r ] in RE2: a vertical tab or a no-break space separates nothing (the
    // apiserver rejects these schedules).
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
    ["^(?i)al2$", "AL2", true],
  ];
  for (const [pattern, input, matches] of cases) {
    it(`${JSON.stringify(pattern)} ${matches ? "matches" : "does not match"} ${JSON.stringify(input)}`, () => {
      assert.equal(re2(pattern).test(input), matches);
    });
  }

  const rejected: [what: string, pattern: string][] = [
    ["a lookahead", "^(?=a)"],
    ["a backreference", "^(a)\\1$"],
  ];
  for (const [what, pattern] of rejected) {
    it(`rejects ${what}, which RE2 does not support`, () => {
      assert.throws(() => re2(pattern));
    });
  }
});

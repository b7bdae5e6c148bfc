// Karpenter's patterns (OpenAPI `pattern`, CEL matches()/find()) are RE2, Go's regexp: compiled by re2js, an RE2
// port, so `\s`, `.`, flag groups and the rejected Perl features (lookaround,
// backreferences) are RE2's by construction.
import { RE2JS } from "re2js";
import { BoundedMemo } from "./memo.ts";

/** Compiled patterns by source: schemas and rules use a few constant patterns, tested for every value. */
const PATTERNS = new BoundedMemo<RE2JS>({ maxEntries: 512, maxKeyLength: Infinity, maxTotalLength: Infinity });

/** An RE2 pattern compiled once; a syntax error (RE2JSSyntaxException) is thrown. */
export function re2(pattern: string): RE2JS {
  let compiled = PATTERNS.get(pattern);
  if (compiled === undefined) {
    compiled = RE2JS.compile(pattern);
    PATTERNS.set(pattern, compiled);
  }
  return compiled;
}

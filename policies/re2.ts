// Karpenter's patterns (OpenAPI `pattern`, CEL matches()/find()) are RE2, Go's regexp: compiled by re2js, an RE2
// port, so `\s`, `.`, flag groups and the rejected Perl features (lookaround, backreferences) are RE2's by construction.
import { RE2JS } from "re2js";

/** Compiled patterns by source: schemas and rules use a few constant patterns, tested for every value. */
const PATTERNS = new Map<string, RE2JS>();
const PATTERN_CACHE_LIMIT = 512;

/** An RE2 pattern compiled once; a syntax error (RE2JSSyntaxException) is thrown. */
export function re2(pattern: string): RE2JS {
  let compiled = PATTERNS.get(pattern);
  if (compiled === undefined) {
    compiled = RE2JS.compile(pattern);
    if (PATTERNS.size >= PATTERN_CACHE_LIMIT) PATTERNS.clear();
    PATTERNS.set(pattern, compiled);
  }
  return compiled;
}

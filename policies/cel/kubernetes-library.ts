// The Kubernetes CEL functions CRD rules use beyond CEL's standard ones (k8s.io/apiserver/pkg/cel/library), and the
// standard ones whose @bufbuild/cel behaviour differs from cel-go's: regexes are RE2 (re2js), int(string) is Go's
// strconv.ParseInt, and split is Go's strings.SplitN.
import { celFunc, celMethod, CelScalar, listType, type CelFunc } from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";
import { re2 } from "../re2.ts";

const { BOOL, INT, STRING } = CelScalar;
const STRING_LIST = listType(STRING);

/** Go's FindAllString(s, n): successive non-overlapping matches, an empty match abutting the previous one skipped. */
export function findAll(text: string, pattern: string, limit = -1): string[] {
  const matcher = re2(pattern).matcher(text);
  const found: string[] = [];
  let prevEnd = -1;
  for (let pos = 0; (limit < 0 || found.length < limit) && pos <= text.length && matcher.find(pos);) {
    const start = matcher.start();
    const end = matcher.end();
    const accept = !(start === end && start === prevEnd);
    // After an empty match, move on by one code point (Go: one rune), as Go does.
    pos = end === start ? end + ((text.codePointAt(end) ?? 0) > 0xffff ? 2 : 1) : end;
    prevEnd = end;
    if (accept) found.push(text.slice(start, end));
  }
  return found;
}

/** Go's FindString: the leftmost-first match, or "" when there is none. */
export function find(text: string, pattern: string): string {
  const matcher = re2(pattern).matcher(text);
  return matcher.find() ? (matcher.group() ?? "") : "";
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * cel-go's int(string): strconv.ParseInt(s, 10, 64), exact. JavaScript's BigInt() would also take " 1", "0x10" and
 * "" (as 0), and a double would round "9223372036854775808" into range.
 */
export function parseInt64(text: string): bigint {
  if (!/^[+-]?[0-9]+$/.test(text)) throw new Error(`cannot convert "${text}" to int: invalid syntax`);
  const value = BigInt(text);
  if (value < INT64_MIN || value > INT64_MAX) throw new Error(`cannot convert "${text}" to int: value out of range`);
  return value;
}

/** Go's strings.SplitN: n < 0 all parts, n == 0 none, else at most n with the remainder last; "" splits code points. */
export function splitN(text: string, separator: string, n: number): string[] {
  if (n === 0) return [];
  const parts = separator === "" ? Array.from(text) : text.split(separator);
  if (n < 0 || parts.length <= n) return parts;
  return [...parts.slice(0, n - 1), parts.slice(n - 1).join(separator)];
}

/** Functions added to (or replacing, same overload id) @bufbuild/cel's standard library and strings extension. */
export const KUBERNETES_FUNCTIONS: readonly CelFunc[] = [
  ...strings,
  celMethod("find", STRING, [STRING], STRING, function (pattern) {
    return find(this, pattern);
  }),
  celMethod("findAll", STRING, [STRING], STRING_LIST, function (pattern) {
    return findAll(this, pattern);
  }),
  celMethod("findAll", STRING, [STRING, INT], STRING_LIST, function (pattern, n) {
    return findAll(this, pattern, Number(n));
  }),
  celMethod("matches", STRING, [STRING], BOOL, function (pattern) {
    return re2(pattern).test(this);
  }),
  celFunc("matches", [STRING, STRING], BOOL, (text, pattern) => re2(pattern).test(text)),
  celFunc("int", [STRING], INT, parseInt64),
  celMethod("split", STRING, [STRING], STRING_LIST, function (separator) {
    return splitN(this, separator, -1);
  }),
  celMethod("split", STRING, [STRING, INT], STRING_LIST, function (separator, n) {
    return splitN(this, separator, Number(n));
  }),
];

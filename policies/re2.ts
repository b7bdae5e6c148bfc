// Karpenter's patterns are RE2 (Go's regexp, Kubernetes' CEL matches()); a JavaScript RegExp reads two of their
// atoms differently: `\s` (RE2: [\t\n\f\r ]; JavaScript adds \v and Unicode spaces) and `.` (RE2: anything but \n;
// JavaScript also stops at \r, U+2028 and U+2029). re2Source rewrites those so the RegExp answers as RE2 does.

const RE2_SPACE = "\\t\\n\\f\\r ";

/** An escape `\x` rewritten for JavaScript, inside a character class or outside. */
function escape(next: string, inClass: boolean): string {
  if (next === "s") return inClass ? RE2_SPACE : `[${RE2_SPACE}]`;
  if (next === "S" && !inClass) return `[^${RE2_SPACE}]`;
  return `\\${next}`;
}

/** The JavaScript source of an RE2 pattern with RE2's meaning of `\s`, `\S` and `.` (other syntax is shared). */
export function re2Source(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "\\" && i + 1 < pattern.length) {
      out += escape(pattern[++i] as string, inClass);
    } else if (inClass) {
      inClass = c !== "]";
      out += c;
    } else if (c === "[") {
      inClass = true;
      out += c;
      // A leading "]" (or "^]") is a literal in RE2 but ends an empty class in JavaScript: escape it.
      if (pattern[i + 1] === "^") out += pattern[++i] as string;
      if (pattern[i + 1] === "]") { i++; out += "\\]"; }
    } else {
      out += c === "." ? "[^\\n]" : c;
    }
  }
  return out;
}

/** A RegExp that matches exactly the strings the RE2 pattern matches (for the pattern subset Karpenter's CRDs use). */
export function re2RegExp(pattern: string, flags = ""): RegExp {
  return new RegExp(re2Source(pattern), flags);
}

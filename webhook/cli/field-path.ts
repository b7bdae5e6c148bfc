/** Splits a finding path (`spec.budgets[1].schedule`, `labels["a.b/c"]` or a JSON Pointer) into segments. */

/** One step into an object: a map key or a list index. */
export type PathSegment = string | number;

const bracket = /^\[(?:(\d+)|"((?:[^"\\]|\\.)*)"|'([^']*)'|([^\]]*))\]/;

/** Segments of a dotted/bracketed path or of an RFC 6901 JSON Pointer; a leading `.` or `$` is ignored. */
export function parseFieldPath(path: string): PathSegment[] {
  if (path.startsWith("/")) return parsePointer(path);
  const segments: PathSegment[] = [];
  let rest = path.replace(/^\$/, "");
  while (rest.length > 0) {
    if (rest.startsWith(".")) {
      rest = rest.slice(1);
      continue;
    }
    const match = bracket.exec(rest);
    if (match !== null) {
      segments.push(bracketSegment(match));
      rest = rest.slice(match[0].length);
      continue;
    }
    const end = rest.search(/[.[]/);
    const name = end === -1 ? rest : rest.slice(0, end);
    segments.push(name);
    rest = end === -1 ? "" : rest.slice(end);
  }
  return segments;
}

function bracketSegment(match: RegExpExecArray): PathSegment {
  if (match[1] !== undefined) return Number(match[1]);
  if (match[2] !== undefined) return match[2].replace(/\\(.)/g, "$1");
  return match[3] ?? match[4] ?? "";
}

function parsePointer(pointer: string): PathSegment[] {
  return pointer
    .slice(1)
    .split("/")
    .map((raw) => raw.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((part) => (/^(0|[1-9]\d*)$/.test(part) ? Number(part) : part));
}

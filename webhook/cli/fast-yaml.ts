/**
 * The fast path for block YAML: js-yaml reads values about ten times faster than the `yaml`
 * package builds its source-mapped documents, so every document is read with js-yaml and the
 * source map (for file:line:column) is built only when a finding asks for a position.
 * Anything unusual — a parse error, directives, `...` markers, `kind: List`, aliases of maps and
 * lists (which js-yaml shares without a bound on how often, or makes recursive) — returns undefined
 * and goes to the `yaml` path, so errors and edge cases keep one behaviour.
 */
import { CORE_SCHEMA, loadAll } from "js-yaml";

/** A document's value and where its content starts (1-based). */
export interface FastDocument {
  readonly value: unknown;
  readonly line: number;
  readonly column: number;
}

const DOCUMENT_START = /^---(?:[ \t]|$)/;
const CONTENT = /^[ \t]*[^\s#]/;

/** Start line (1-based) of each document's content, or undefined when the text needs the full parser. */
function contentStarts(lines: readonly string[]): Array<{ line: number; column: number } | undefined> | undefined {
  const starts: Array<{ line: number; column: number } | undefined> = [undefined];
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] ?? "";
    if (text.startsWith("%") || text.startsWith("...")) return undefined;
    if (DOCUMENT_START.test(text)) {
      starts.push(undefined);
      if (text.slice(3).trim() !== "" && !text.slice(3).trim().startsWith("#")) return undefined;
      continue;
    }
    if (starts[starts.length - 1] === undefined && CONTENT.test(text)) {
      starts[starts.length - 1] = { line: i + 1, column: text.search(/\S/) + 1 };
    }
  }
  // Comments before the first "---" are not a document of their own.
  if (starts.length > 1 && starts[0] === undefined) starts.shift();
  return starts;
}

/** Values of every non-empty document in `text`, or undefined when the full YAML parser must read it. */
export function fastYamlDocuments(text: string): FastDocument[] | undefined {
  const starts = contentStarts(text.split("\n"));
  if (starts === undefined) return undefined;
  let values: unknown[];
  try {
    // CORE_SCHEMA is YAML 1.2's core schema, as the `yaml` package uses: no timestamps, no merge keys.
    values = loadAll(text, { schema: CORE_SCHEMA });
  } catch {
    return undefined;
  }
  if (values.length !== starts.length || sharesNodes(values)) return undefined;
  const documents: FastDocument[] = [];
  for (const [i, value] of values.entries()) {
    const start = starts[i];
    if (value === null || value === undefined || start === undefined) continue;
    if (isList(value)) return undefined;
    documents.push({ value, line: start.line, column: start.column });
  }
  return documents;
}

function isList(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { kind?: unknown }).kind === "string" &&
    (value as { kind: string }).kind.endsWith("List")
  );
}

/**
 * Whether a map or list is reached twice: js-yaml turns an alias of a collection into the same
 * object, so this finds every alias that could multiply (and every recursive one) without
 * expanding anything. Aliases of scalars cannot multiply and are left alone. Iterative, for deep input.
 */
function sharesNodes(values: readonly unknown[]): boolean {
  const seen = new Set<object>();
  const stack: unknown[] = [...values];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== "object" || value === null) continue;
    if (seen.has(value)) return true;
    seen.add(value);
    for (const child of Array.isArray(value) ? value : Object.values(value)) stack.push(child);
  }
  return false;
}

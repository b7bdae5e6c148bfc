/**
 * Just enough TOML structure to merge Bottlerocket user data: the document split into its tables and
 * each table's `key = value` statements, values kept as written. It reads statements, not values, so
 * kerf can replace or add keys while passing everything else through byte for byte; it is not a TOML
 * library (no value decoding, no array-of-tables merge) because none is among kerf's dependencies.
 */

/** One `key = value` statement: `key` unquoted, `text` the statement as written (may span lines). */
export interface TomlEntry {
  readonly key: string;
  readonly text: string;
}

/** A table: `path` its dotted name unquoted ("" before the first header), `header` the line as written. */
export interface TomlSection {
  readonly path: string;
  readonly header: string;
  readonly entries: TomlEntry[];
  /** Comments and blank lines of the table, kept in place among the entries. */
  readonly lines: (TomlEntry | string)[];
}

/** User data that is not TOML kerf can merge; the message names the line. */
export class TomlSectionError extends Error {
  constructor(line: number, what: string) {
    super(`line ${line}: ${what}`);
    this.name = "TomlSectionError";
  }
}

/** Where a string starting at `i` ends (the index of its last quote); counts the newlines it spans. */
function stringEnd(text: string, i: number, at: { line: number }): number {
  const quote = text.startsWith(text.charAt(i).repeat(3), i) ? text.charAt(i).repeat(3) : text.charAt(i);
  for (let j = i + quote.length; j < text.length; j++) {
    if (text.startsWith(quote, j)) return j + quote.length - 1;
    const c = text[j];
    if (c === "\\" && quote.startsWith('"')) j++;
    else if (c === "\n" && quote.length === 1) break;
    else if (c === "\n") at.line++;
  }
  throw new TomlSectionError(at.line, "unterminated string");
}

const DEPTH: Readonly<Record<string, number>> = { "[": 1, "{": 1, "]": -1, "}": -1 };

/** The statements of a document: a newline ends one only outside strings and brackets. */
function statements(text: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  const at = { line: 1 };
  let depth = 0;
  let start = 0;
  let startLine = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (c === "#") i = text.includes("\n", i) ? text.indexOf("\n", i) - 1 : text.length;
    else if (c === '"' || c === "'") i = stringEnd(text, i, at);
    else if (c !== "\n") depth += DEPTH[c] ?? 0;
    else {
      if (depth === 0) {
        out.push({ text: text.slice(start, i).replace(/\r$/, ""), line: startLine });
        start = i + 1;
        startLine = at.line + 1;
      }
      at.line++;
    }
  }
  if (depth !== 0) throw new TomlSectionError(startLine, "unclosed bracket");
  if (start < text.length) out.push({ text: text.slice(start), line: startLine });
  return out;
}

/** A dotted key with its quoted parts unquoted: `settings."kubernetes"` → `settings.kubernetes`. */
function unquoteKey(raw: string, line: number): string {
  const parts: string[] = [];
  const re = /\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)\s*(\.|$)/y;
  let match: RegExpExecArray | null;
  while (re.lastIndex < raw.length && (match = re.exec(raw)) !== null) {
    const part = match[1] ?? "";
    parts.push(part.startsWith('"') ? (JSON.parse(part) as string) : part.startsWith("'") ? part.slice(1, -1) : part);
    if (match[2] === "") break;
  }
  if (re.lastIndex !== raw.length || parts.length === 0) throw new TomlSectionError(line, `invalid key ${raw.trim()}`);
  return parts.join(".");
}

/** Splits a TOML document into tables of statements; throws TomlSectionError on what is not TOML. */
export function tomlSections(text: string): TomlSection[] {
  const sections: TomlSection[] = [{ path: "", header: "", entries: [], lines: [] }];
  for (const s of statements(text)) {
    const trimmed = s.text.trim();
    const current = sections[sections.length - 1] as TomlSection;
    if (trimmed === "" || trimmed.startsWith("#")) {
      current.lines.push(s.text);
      continue;
    }
    const header = /^\[(\[?)(.*?)\]?\]\s*(#.*)?$/.exec(trimmed);
    if (header !== null) {
      if (header[1] === "[")
        throw new TomlSectionError(s.line, "arrays of tables ([[...]]) are not supported in Bottlerocket user data");
      sections.push({ path: unquoteKey(header[2] ?? "", s.line), header: s.text, entries: [], lines: [] });
      continue;
    }
    const eq = keyEnd(s.text);
    if (eq === undefined)
      throw new TomlSectionError(s.line, `expected "key = value" or a [table], found ${trimmed.slice(0, 40)}`);
    const entry = { key: unquoteKey(s.text.slice(0, eq), s.line), text: s.text };
    current.entries.push(entry);
    current.lines.push(entry);
  }
  return sections;
}

/** The index of the `=` ending a statement's key (outside quotes), if any. */
function keyEnd(statement: string): number | undefined {
  let quote: string | undefined;
  for (let i = 0; i < statement.length; i++) {
    const c = statement[i];
    if (quote !== undefined) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "=") return i;
  }
  return undefined;
}

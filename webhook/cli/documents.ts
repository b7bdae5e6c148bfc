/** Multi-document YAML/JSON parsing that keeps the source position of every node, for file:line:column findings. */
import { isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Document, type Node } from "yaml";
import { KerfError } from "../errors.ts";
import { parseFieldPath, type PathSegment } from "./field-path.ts";
import { fastYamlDocuments } from "./fast-yaml.ts";
import { jsonDocument, type JsonDocument } from "./json-document.ts";
import { aliasProblem, firstAliasOffset, MAX_ALIAS_COUNT } from "./yaml-aliases.ts";

/** A 1-based line and column in a source file. */
export interface Position {
  readonly line: number;
  readonly column: number;
}

/** One object read from a source: the parsed value plus a way to map a field path back to the text. */
export interface SourceObject {
  readonly file: string;
  /** Position of the object itself (its first key). */
  readonly position: Position;
  readonly value: unknown;
  /** Position of `path` (finding path or JSON Pointer); the nearest existing ancestor when the field is absent. */
  readonly locate: (path: string) => Position;
}

/**
 * Parses every document of `text`; `kind: List` documents are expanded into their items. Throws
 * KerfError naming file and line.
 */
export function parseDocuments(file: string, text: string): SourceObject[] {
  const json = jsonDocument(text);
  if (json !== undefined && listItemsOf(json.value) === undefined) return [jsonSourceObject(file, text, json)];
  return fastSourceObjects(file, text) ?? parseYamlDocuments(file, text);
}

/** Block YAML read by the fast parser; the source-mapped parse of the file runs once, on the first locate(). */
function fastSourceObjects(file: string, text: string): SourceObject[] | undefined {
  const documents = fastYamlDocuments(text);
  if (documents === undefined) return undefined;
  let mapped: SourceObject[] | undefined;
  return documents.map((doc, index) => {
    const position = { line: doc.line, column: doc.column };
    return {
      file,
      position,
      value: doc.value,
      locate: (path: string) => {
        mapped ??= parseYamlDocuments(file, text);
        return mapped[index]?.locate(path) ?? position;
      },
    };
  });
}

/** 1-based line and column of an offset (as the YAML parser's LineCounter reports them). */
function positionAt(text: string, offset: number): Position {
  let line = 1;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return { line, column: offset - text.lastIndexOf("\n", offset - 1) };
}

/** A JSON object's source: the value now, the YAML source map only when a finding needs a position. */
function jsonSourceObject(file: string, text: string, json: JsonDocument): SourceObject {
  const position = positionAt(text, json.offset);
  let locate: ((path: string) => Position) | undefined;
  return {
    file,
    position,
    value: json.value,
    locate: (path) => {
      locate ??= parseYamlDocuments(file, text)[0]?.locate ?? (() => position);
      return locate(path);
    },
  };
}

function parseYamlDocuments(file: string, text: string): SourceObject[] {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter, prettyErrors: false, keepSourceTokens: false });
  const list = Array.isArray(docs) ? docs : [];
  const objects: SourceObject[] = [];
  for (const doc of list) {
    failOnErrors(file, doc, lineCounter);
    if (doc.contents === null) continue;
    const value = toValue(file, doc, lineCounter);
    if (value === null || value === undefined) continue;
    objects.push(...expand(file, doc.contents, value, lineCounter));
  }
  return objects;
}

function failOnErrors(file: string, doc: Document.Parsed, lineCounter: LineCounter): void {
  const error = doc.errors[0];
  if (error === undefined) return;
  const reason = error.message.split("\n")[0] ?? error.message;
  throw inputError({ file, offset: error.pos[0], lineCounter }, reason, error);
}

interface InputPlace {
  readonly file: string;
  readonly offset: number;
  readonly lineCounter: LineCounter;
}

function inputError({ file, offset, lineCounter }: InputPlace, reason: string, cause?: unknown): KerfError {
  const { line, col } = lineCounter.linePos(offset);
  return new KerfError("KERF_ERR_INPUT_UNPARSEABLE", `parsing ${file}:${line}:${col}: ${reason}`, {
    ...(cause === undefined ? {} : { cause }),
    location: { file, line, column: col },
  });
}

/** The document's value, with aliases resolved and their expansion bounded; throws KerfError at the offending alias. */
function toValue(file: string, doc: Document.Parsed, lineCounter: LineCounter): unknown {
  const problem = aliasProblem(doc);
  if (problem !== undefined) throw inputError({ file, offset: problem.offset, lineCounter }, problem.message);
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    // The only failure left is the expansion bound (the yaml package names no node): point at the first alias.
    const offset = firstAliasOffset(doc) ?? doc.contents?.range?.[0] ?? 0;
    const reason =
      `YAML aliases expand beyond the limit (${MAX_ALIAS_COUNT} aliased nodes per anchor): ` +
      `refusing a possible "billion laughs" document`;
    throw inputError({ file, offset, lineCounter }, reason, error);
  }
}

function expand(file: string, root: Node, value: unknown, lineCounter: LineCounter): SourceObject[] {
  const items = listItems(root, value);
  if (items === undefined) return [sourceObject(file, root, value, lineCounter)];
  return items.map(([node, item]) => sourceObject(file, node, item, lineCounter));
}

/** The items of a `kind: List` (or `*List`) value. */
function listItemsOf(value: unknown): unknown[] | undefined {
  if (!isRecord(value) || typeof value.kind !== "string" || !value.kind.endsWith("List")) return undefined;
  return Array.isArray(value.items) ? (value.items as unknown[]) : undefined;
}

/** The items of a `kind: List` (or `*List`) document, paired with their nodes. */
function listItems(root: Node, value: unknown): Array<[Node, unknown]> | undefined {
  if (listItemsOf(value) === undefined || !isRecord(value) || !isMap(root)) return undefined;
  const seq = root.get("items", true);
  if (!isSeq(seq)) return undefined;
  const values = value.items as unknown[];
  return seq.items.flatMap((node, index) => (isNodeLike(node) ? [[node, values[index]] as [Node, unknown]] : []));
}

function sourceObject(file: string, root: Node, value: unknown, lineCounter: LineCounter): SourceObject {
  const at = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const position = at(root.range?.[0] ?? 0);
  return {
    file,
    position,
    value,
    locate: (path) => {
      const offset = locateOffset(root, parseFieldPath(path));
      return offset === undefined ? position : at(offset);
    },
  };
}

/** Offset of the deepest node on `segments` that exists: a map entry's key, or a list item. */
function locateOffset(root: Node, segments: readonly PathSegment[]): number | undefined {
  let node: unknown = root;
  let offset = root.range?.[0];
  for (let i = 0; i < segments.length; i++) {
    const step = stepInto(node, segments, i);
    if (step === undefined) break;
    node = step.node;
    offset = step.offset ?? offset;
    i += step.consumed - 1;
  }
  return offset;
}

interface Step {
  readonly node: unknown;
  readonly offset: number | undefined;
  /** Path segments used: more than one when a key containing dots was written unbracketed. */
  readonly consumed: number;
}

function stepInto(node: unknown, segments: readonly PathSegment[], index: number): Step | undefined {
  const segment = segments[index];
  if (isSeq(node) && typeof segment === "number") {
    const item = node.items[segment];
    return isNodeLike(item) ? { node: item, offset: item.range?.[0], consumed: 1 } : undefined;
  }
  if (!isMap(node) || segment === undefined) return undefined;
  let key = String(segment);
  for (let consumed = 1; index + consumed <= segments.length; consumed++) {
    const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
    if (pair !== undefined) {
      const keyNode = pair.key as Node;
      return { node: pair.value, offset: keyNode.range?.[0], consumed };
    }
    const next = segments[index + consumed];
    if (typeof next !== "string") return undefined;
    key = `${key}.${next}`;
  }
  return undefined;
}

function isNodeLike(value: unknown): value is Node {
  return typeof value === "object" && value !== null && "range" in value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// RFC 6902 diff between a manifest and its defaulted copy (defaulting only adds, so the diff is mostly "add").
import { ownValue, setOwn } from "./object.ts";

/** One RFC 6902 operation. */
export interface JsonPatchOp {
  op: "add" | "remove" | "replace" | "test" | "move" | "copy";
  path: string;
  value?: unknown;
  from?: string;
}

/** Escapes one RFC 6901 reference token. */
export function escapePointer(token: string | number): string {
  return String(token).replace(/~/g, "~0").replace(/\//g, "~1");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Deep equality of JSON values. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** The operations that turn `from` into `to`: objects are diffed key by key, other values replaced whole. */
export function diff(from: unknown, to: unknown, base = ""): JsonPatchOp[] {
  // Defaulting shares unchanged subtrees, so identity settles most of the walk; equal containers diff to [].
  if (from === to) return [];
  if (isObject(from) && isObject(to)) return diffObjects(from, to, base);
  if (Array.isArray(from) && Array.isArray(to) && from.length === to.length) {
    return from.flatMap((item, i) => diff(item, to[i], `${base}/${i}`));
  }
  return jsonEqual(from, to) ? [] : [{ op: "replace", path: base, value: to }];
}

function diffObjects(from: Record<string, unknown>, to: Record<string, unknown>, base: string): JsonPatchOp[] {
  const ops: JsonPatchOp[] = [];
  for (const key of Object.keys(from)) {
    if (!Object.hasOwn(to, key)) ops.push({ op: "remove", path: `${base}/${escapePointer(key)}` });
  }
  for (const [key, value] of Object.entries(to)) {
    const path = `${base}/${escapePointer(key)}`;
    if (!Object.hasOwn(from, key)) ops.push({ op: "add", path, value });
    else ops.push(...diff(from[key], value, path));
  }
  return ops;
}

/** Applies add/remove/replace operations to a deep copy of `doc` (used by tests and `kerf check --fix` previews). */
export function applyPatch(doc: unknown, ops: readonly JsonPatchOp[]): unknown {
  let root = structuredClone(doc);
  for (const op of ops) {
    const tokens =
      op.path === ""
        ? []
        : op.path
            .slice(1)
            .split("/")
            .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
    if (tokens.length === 0) {
      root = structuredClone(op.value);
      continue;
    }
    const last = tokens.pop() as string;
    let parent: unknown = root;
    for (const token of tokens) parent = ownValue(parent as Record<string, unknown>, token);
    const container = parent as Record<string, unknown>;
    if (op.op === "remove") delete container[last];
    else setOwn(container, last, structuredClone(op.value));
  }
  return root;
}

/**
 * Field-level differences between two versions of an object, for the preview's "what changed" lines.
 * Compared on the normalised form (what the drift hash sees: durations by value, taints as sets, empty
 * values dropped), shown as the user wrote them: the raw value at the same path when there is one.
 */
import { canonicalJson } from "../launch-template/hash.ts";
import type { FieldChange } from "./types.ts";

type Obj = Readonly<Record<string, unknown>>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** `.key` for identifier-like keys, `[key]` otherwise (label keys with dots and slashes). */
export function childPath(parent: string, key: string): string {
  const segment = /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `[${key}]`;
  return parent === "" ? segment.replace(/^\./, "") : `${parent}${segment}`;
}

/** A value as shown to users: strings bare, absent as "(unset)", anything else as compact JSON. */
export function shown(value: unknown): string {
  if (value === undefined || value === null) return "(unset)";
  if (typeof value === "string") return value === "" ? '""' : value;
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/** Both sides of one comparison: the normalised values decide, the raw ones are displayed. */
export interface Sides {
  readonly before: unknown;
  readonly after: unknown;
  readonly rawBefore?: unknown;
  readonly rawAfter?: unknown;
}

const child = (v: unknown, key: string): unknown => (isObj(v) ? v[key] : undefined);

/** Both sides are maps (or one is absent): differences are looked for key by key. */
const bothMaps = (a: unknown, b: unknown): boolean =>
  (isObj(a) || a === undefined) && (isObj(b) || b === undefined) && (isObj(a) || isObj(b));

/** Every leaf (or whole list) that differs under `path`, recursing through maps; lists are compared whole. */
export function fieldChanges(path: string, sides: Sides, out: FieldChange[] = []): FieldChange[] {
  const { before, after, rawBefore, rawAfter } = sides;
  if (canonicalJson(before ?? null) === canonicalJson(after ?? null)) return out;
  if (!bothMaps(before, after)) {
    out.push({ path, before: shown(rawBefore ?? before), after: shown(rawAfter ?? after) });
    return out;
  }
  const keys = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])].sort();
  for (const key of keys) {
    fieldChanges(
      childPath(path, key),
      {
        before: child(before, key),
        after: child(after, key),
        rawBefore: child(rawBefore, key),
        rawAfter: child(rawAfter, key),
      },
      out,
    );
  }
  return out;
}

/** The terms of a selector list as a set: terms are ORed, so their order means nothing. */
export function sameTermSet(a: unknown, b: unknown): boolean {
  const set = (v: unknown): string =>
    Array.isArray(v)
      ? v
          .map((t) => canonicalJson(t))
          .sort()
          .join("\n")
      : "";
  return set(a) === set(b);
}

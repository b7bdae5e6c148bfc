/**
 * Deterministic FNV hashes: FNV-1a 64 over canonical JSON names launch templates by content; FNV-1 64
 * names managed instance profiles.
 */

const OFFSET = 0xcbf29ce484222325n;
const PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;

/** JSON with object keys sorted at every level, so equal content always serialises the same way. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * The value without empty strings, lists and maps, at every level; undefined when nothing is left
 * (hashstructure's IgnoreZeroValue/ZeroNil, as the drift hashes need it).
 */
export function pruned(value: unknown): unknown {
  if (value === null || value === undefined || value === "") return undefined;
  if (Array.isArray(value)) {
    const items = value.map(pruned).filter((v) => v !== undefined);
    return items.length === 0 ? undefined : items;
  }
  if (typeof value !== "object") return value;
  const entries = Object.entries(value as Readonly<Record<string, unknown>>)
    .map(([k, v]) => [k, pruned(v)] as const)
    .filter(([, v]) => v !== undefined);
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

/** FNV-1a 64 of the UTF-8 bytes of `text`, as an unsigned decimal string (the shape of Karpenter's hashes). */
export function fnv64(text: string): string {
  let hash = OFFSET;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * PRIME) & MASK;
  }
  return hash.toString(10);
}

/**
 * FNV-1 (multiply, then xor) 64 of the UTF-8 bytes of `text`, as an unsigned decimal string: what Go's
 * hashstructure v2 returns for a plain string (it hashes strings with hash/fnv New64, FNV-1).
 */
export function fnv1Hash64(text: string): string {
  let hash = OFFSET;
  for (const byte of new TextEncoder().encode(text)) {
    hash = (hash * PRIME) & MASK;
    hash ^= BigInt(byte);
  }
  return hash.toString(10);
}

/** The content hash of any JSON-like value. */
export function contentHash(value: unknown): string {
  return fnv64(canonicalJson(value));
}

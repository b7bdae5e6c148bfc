// A memo bounded by size as well as entry count: what the webhook keeps between reviews must
// stay small whatever it is sent.

/** Limits of one memo; weights are key lengths in characters, which stand for the size of the entry. */
export interface MemoLimits {
  /** Most entries kept. */
  readonly maxEntries: number;
  /** Longest key worth keeping: longer ones are computed every time (large inputs rarely repeat). */
  readonly maxKeyLength: number;
  /** Most key characters kept over all entries. */
  readonly maxTotalLength: number;
}

/**
 * Map-like memo that clears itself when full (by count or by total key length) and never stores an
 * oversized key, so a stream of distinct large inputs cannot make it hold more than `maxTotalLength`
 * characters of keys (and values in proportion).
 */
export class BoundedMemo<V> {
  private readonly entries = new Map<string, V>();
  private readonly limits: MemoLimits;
  private totalLength = 0;

  constructor(limits: MemoLimits) {
    this.limits = limits;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  /** Stores `value` unless the key is too long; clears everything first when the entry would not fit. */
  set(key: string, value: V): void {
    if (key.length > this.limits.maxKeyLength || this.entries.has(key)) return;
    if (this.entries.size >= this.limits.maxEntries || this.totalLength + key.length > this.limits.maxTotalLength)
      this.clear();
    this.entries.set(key, value);
    this.totalLength += key.length;
  }

  clear(): void {
    this.entries.clear();
    this.totalLength = 0;
  }

  get size(): number {
    return this.entries.size;
  }
}

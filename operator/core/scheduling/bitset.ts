/** Fixed-size bitsets over instance-type ids: the scheduler's cheap "set of instance types". */

export type Bitset = Uint32Array;

export function emptyBits(size: number): Bitset {
  return new Uint32Array((size + 31) >>> 5);
}

export function fullBits(size: number): Bitset {
  const bits = emptyBits(size);
  for (let i = 0; i < size; i++) bits[i >>> 5]! |= 1 << (i & 31);
  return bits;
}

export function setBit(bits: Bitset, i: number): void {
  bits[i >>> 5]! |= 1 << (i & 31);
}

export function hasBit(bits: Bitset, i: number): boolean {
  return ((bits[i >>> 5]! >>> (i & 31)) & 1) === 1;
}

/** a ∩ b as a new bitset. */
export function andBits(a: Bitset, b: Bitset): Bitset {
  const out = new Uint32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]! & b[i]!;
  return out;
}

/** a ∪= b in place. */
export function orInto(a: Bitset, b: Bitset): void {
  for (let i = 0; i < a.length; i++) a[i]! |= b[i]!;
}

/** Whether a ∩ b is not empty. */
export function intersects(a: Bitset, b: Bitset): boolean {
  for (let i = 0; i < a.length; i++) if ((a[i]! & b[i]!) !== 0) return true;
  return false;
}

export function isEmptyBits(bits: Bitset): boolean {
  for (let i = 0; i < bits.length; i++) if (bits[i] !== 0) return false;
  return true;
}

/** Calls `fn` with each set bit's index, ascending. */
export function forEachBit(bits: Bitset, fn: (i: number) => void): void {
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w]!;
    while (word !== 0) {
      const low = word & -word;
      fn((w << 5) + 31 - Math.clz32(low));
      word ^= low;
    }
  }
}

export function countBits(bits: Bitset): number {
  let n = 0;
  forEachBit(bits, () => n++);
  return n;
}

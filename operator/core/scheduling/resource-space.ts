/** Maps resource names to vector slots so fit checks are a short loop over a Float64Array. */
import type { ResourceList } from "../../../policies/domain/quantity.ts";

export class ResourceSpace {
  readonly names: string[] = [];
  private readonly index = new Map<string, number>();

  /** Registers every resource name in the lists (call before making vectors). */
  register(lists: Iterable<ResourceList>): void {
    for (const l of lists) for (const k of Object.keys(l)) this.slot(k);
  }

  slot(name: string): number {
    let i = this.index.get(name);
    if (i === undefined) {
      i = this.names.length;
      this.names.push(name);
      this.index.set(name, i);
    }
    return i;
  }

  get size(): number {
    return this.names.length;
  }

  vector(list: ResourceList): Float64Array {
    const v = new Float64Array(this.size);
    for (const [k, value] of Object.entries(list)) {
      const i = this.index.get(k);
      if (i !== undefined) v[i] = value;
    }
    return v;
  }

  toList(v: Float64Array): ResourceList {
    const out: Record<string, number> = {};
    this.names.forEach((n, i) => {
      if (v[i] !== 0) out[n] = v[i]!;
    });
    return out;
  }
}

/** Whether used + extra ≤ limit in every slot (limit read at `offset`). */
export function fitsAt(used: Float64Array, extra: Float64Array, limit: Float64Array, offset: number): boolean {
  for (let i = 0; i < used.length; i++) if (used[i]! + extra[i]! > limit[offset + i]!) return false;
  return true;
}

export function addInto(a: Float64Array, b: Float64Array): void {
  for (let i = 0; i < a.length; i++) a[i]! += b[i]!;
}

export function subtractInto(a: Float64Array, b: Float64Array): void {
  for (let i = 0; i < a.length; i++) a[i]! -= b[i]!;
}

/**
 * One copy of each string value. An object that arrives from the apiserver (JSON.parse) or from another
 * thread (structured clone) comes with its own copy of every string value, so 10,000 replicas of 100
 * Deployments hold 10,000 copies of each label value, toleration, condition type and timestamp; interning
 * keeps one. Used by the informer caches (adapters/kube/cluster-state.ts) and by the disruption planner
 * thread's mirror (controllers/disruption/planner-wire.ts). The table forgets everything past `limit`
 * entries, so strings of objects long deleted do not stay (objects interned before keep their copies).
 * Property keys are left alone: V8 already keeps one copy of those.
 */
export class Strings {
  private readonly table = new Map<string, string>();
  private readonly limit: number;

  constructor(limit = 200_000) {
    this.limit = limit;
  }

  /** `value` with every string in it replaced, in place, by the shared copy; frozen objects are left as they are. */
  intern<T>(value: T): T {
    if (typeof value === "string") return this.one(value) as T;
    if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
    const o = value as Record<string, unknown>;
    for (const key of Object.keys(o)) {
      const v = o[key];
      if (typeof v === "string") o[key] = this.one(v);
      else if (typeof v === "object" && v !== null) this.intern(v);
    }
    return value;
  }

  private one(s: string): string {
    const known = this.table.get(s);
    if (known !== undefined) return known;
    if (this.table.size >= this.limit) this.table.clear();
    this.table.set(s, s);
    return s;
  }
}

/**
 * A set of node requirements keyed by label: build from NodeSelectorRequirements or labels,
 * intersect, check compatibility (with a reason a person can act on), match a label set, minValues.
 * Semantics follow Karpenter's `pkg/scheduling/requirements.go` (Compatible, Intersects).
 */
import { WELL_KNOWN_LABELS } from "./labels.ts";
import { Requirement, type NodeSelectorRequirement } from "./requirement.ts";

export {
  Requirement,
  RequirementError,
  OPERATORS,
  type Operator,
  type NodeSelectorRequirement,
} from "./requirement.ts";

/** Options of `compatible`: keys that may be absent on the node side (default: the well-known labels). */
export interface CompatibilityOptions {
  readonly allowUndefined?: ReadonlySet<string>;
}

/** A label map as read from objects (plain record) or built by kerf (Map). */
export type LabelSet = Readonly<Record<string, string>> | ReadonlyMap<string, string>;

function labelOf(labels: LabelSet, key: string): string | undefined {
  return labels instanceof Map ? labels.get(key) : (labels as Readonly<Record<string, string>>)[key];
}

/** Immutable requirements keyed by (normalised) label key. */
export class Requirements implements Iterable<Requirement> {
  private readonly byKey: ReadonlyMap<string, Requirement>;
  private cachedSignature: string | undefined;

  constructor(requirements: Iterable<Requirement> = []) {
    const byKey = new Map<string, Requirement>();
    for (const r of requirements) {
      const existing = byKey.get(r.key);
      byKey.set(r.key, existing === undefined ? r : existing.intersect(r));
    }
    this.byKey = byKey;
  }

  /** Parses NodeSelectorRequirements (with minValues); repeated keys intersect. Throws RequirementError. */
  static fromSelectors(selectors: readonly NodeSelectorRequirement[] | undefined): Requirements {
    return new Requirements((selectors ?? []).map((s) => Requirement.fromSelector(s)));
  }

  /** `key In [value]` for every label (a nodeSelector, a node's labels). */
  static fromLabels(labels: Readonly<Record<string, string>> | undefined): Requirements {
    return new Requirements(
      Object.entries(labels ?? {}).map(([k, v]) => Requirement.fromSelector({ key: k, operator: "In", values: [v] })),
    );
  }

  get size(): number {
    return this.byKey.size;
  }

  [Symbol.iterator](): Iterator<Requirement> {
    return this.byKey.values();
  }

  get(key: string): Requirement | undefined {
    return this.byKey.get(key);
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  keys(): string[] {
    return [...this.byKey.keys()];
  }

  /** The values allowed for `key` when it is an `In` set; undefined when open (absent or complement). */
  values(key: string): ReadonlySet<string> | undefined {
    const r = this.byKey.get(key);
    return r === undefined || r.complement ? undefined : r.values;
  }

  /** These requirements narrowed by `other` (keys of both intersect). */
  intersect(other: Requirements): Requirements {
    if (other.size === 0) return this;
    if (this.size === 0) return other;
    return new Requirements([...this, ...other]);
  }

  /** These requirements narrowed by one more requirement. */
  with(requirement: Requirement): Requirements {
    return new Requirements([...this, requirement]);
  }

  /**
   * Whether `incoming` (e.g. a pod's) can be met by nodes described by these requirements
   * (e.g. a NodePool's). Answers undefined when compatible, else the reason. A key `incoming`
   * needs that is not defined here fails ("does not have known values") unless it is in
   * allowUndefined (default: well-known labels) or the incoming operator is NotIn/DoesNotExist.
   */
  compatible(incoming: Requirements, options: CompatibilityOptions = {}): string | undefined {
    const allowUndefined = options.allowUndefined ?? WELL_KNOWN_LABELS;
    for (const r of incoming) {
      if (this.byKey.has(r.key) || allowUndefined.has(r.key)) continue;
      const op = r.operator();
      if (op === "NotIn" || op === "DoesNotExist") continue;
      return `label "${r.key}" does not have known values`;
    }
    return this.intersects(incoming);
  }

  /** Undefined when every shared key has a non-empty intersection, else the first conflict. */
  intersects(incoming: Requirements): string | undefined {
    for (const r of incoming) {
      const existing = this.byKey.get(r.key);
      if (existing === undefined || !existing.intersect(r).isEmpty()) continue;
      if (r.allowsAbsent() && existing.allowsAbsent()) continue;
      return `key ${r.key}, ${r.toString()} not in ${existing.toString()}`;
    }
    return undefined;
  }

  /** Undefined when a node with `labels` satisfies every requirement, else the first that fails. */
  matchLabels(labels: LabelSet): string | undefined {
    for (const r of this.byKey.values()) {
      const value = labelOf(labels, r.key);
      const ok = value === undefined ? r.allowsAbsent() : r.has(value);
      if (!ok)
        return value === undefined
          ? `label ${r.key} is missing, requirement ${r.toString()}`
          : `label ${r.key}=${value} does not satisfy ${r.toString()}`;
    }
    return undefined;
  }

  /** The keys carrying minValues, with their minimum. */
  minValues(): ReadonlyMap<string, number> {
    const out = new Map<string, number>();
    for (const r of this.byKey.values()) if (r.minValues !== undefined) out.set(r.key, r.minValues);
    return out;
  }

  /** The Kubernetes shape, sorted by key. */
  toSelectors(): NodeSelectorRequirement[] {
    return [...this.byKey.values()].sort((a, b) => a.key.localeCompare(b.key)).map((r) => r.toSelector());
  }

  /** A stable string that is equal for equal requirements (used as a cache key). */
  signature(): string {
    // Code-point order (not localeCompare, which is slow): any fixed order makes a canonical key.
    this.cachedSignature ??= [...this.byKey.values()]
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map((r) => r.signature())
      .join("|");
    return this.cachedSignature;
  }

  toString(): string {
    return [...this.byKey.values()].map((r) => r.toString()).join(", ");
  }
}

/** A minValues requirement the options do not meet: how many values it needs and how many they offer. */
export interface MinValuesGap {
  readonly key: string;
  readonly needed: number;
  readonly found: number;
}

/**
 * The first minValues requirement that the values `collect` reports do not meet, or undefined when
 * all are met. `collect` calls `add(key, value)` for every value an option offers for one of `keys`;
 * only values the requirement allows count, as in Karpenter's `InstanceTypes.SatisfiesMinValues`
 * (an option may offer values, e.g. zones, that requirements narrowed by the pod exclude).
 */
export function minValuesGap(
  requirements: Requirements,
  collect: (keys: ReadonlySet<string>, add: (key: string, value: string) => void) => void,
): MinValuesGap | undefined {
  const mins = requirements.minValues();
  if (mins.size === 0) return undefined;
  const seen = new Map<string, Set<string>>([...mins.keys()].map((k) => [k, new Set<string>()]));
  collect(new Set(mins.keys()), (key, value) => {
    if (requirements.get(key)?.has(value) !== false) seen.get(key)?.add(value);
  });
  for (const [key, needed] of mins) {
    const found = seen.get(key)?.size ?? 0;
    if (found < needed) return { key, needed, found };
  }
  return undefined;
}

/** Whether a set of label sets spans every requirement's minValues; else the first shortfall (minValuesGap). */
export function checkMinValues(requirements: Requirements, labelSets: Iterable<LabelSet>): MinValuesGap | undefined {
  return minValuesGap(requirements, (keys, add) => {
    for (const labels of labelSets) {
      for (const key of keys) {
        const v = labelOf(labels, key);
        if (v !== undefined) add(key, v);
      }
    }
  });
}

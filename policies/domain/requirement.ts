/**
 * One node requirement (In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte) and its intersection.
 * Semantics follow Karpenter's `pkg/scheduling/requirement.go`: a value set, possibly complemented,
 * with optional exclusive integer bounds. The set of requirements is in requirements.ts.
 */
import { normalizeLabelKey } from "./labels.ts";

/** Operators of a NodeSelectorRequirement (Gte/Lte are Karpenter v1.9+). */
export const OPERATORS = ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"] as const;
export type Operator = (typeof OPERATORS)[number];

/** The Kubernetes shape, plus Karpenter's minValues. */
export interface NodeSelectorRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[] | undefined;
  readonly minValues?: number | undefined;
}

/** A requirement that cannot be built (unknown operator, non-integer bound, In without values). */
export class RequirementError extends Error {
  readonly key: string;
  constructor(key: string, message: string) {
    super(`parsing requirement ${key}: ${message}`);
    this.name = "RequirementError";
    this.key = key;
  }
}

interface RequirementInit {
  readonly key: string;
  readonly complement: boolean;
  readonly values: ReadonlySet<string>;
  readonly greaterThan?: number | undefined;
  readonly lessThan?: number | undefined;
  readonly minValues?: number | undefined;
}

const INTEGER = /^-?\d+$/;

function inBounds(value: string, gt: number | undefined, lt: number | undefined): boolean {
  if (gt === undefined && lt === undefined) return true;
  if (!INTEGER.test(value)) return false;
  const n = Number(value);
  return (gt === undefined || n > gt) && (lt === undefined || n < lt);
}

function maxOf(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.max(a, b);
}

function minOf(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}

function parseBound(key: string, values: readonly string[] | undefined): number {
  const value = values?.[0];
  if (values?.length !== 1 || value === undefined || !INTEGER.test(value)) {
    throw new RequirementError(key, "Gt, Lt, Gte and Lte need exactly one integer value");
  }
  return Number(value);
}

/** One key's allowed values: `complement` means "every value except `values`". */
export class Requirement {
  readonly key: string;
  readonly complement: boolean;
  readonly values: ReadonlySet<string>;
  /** Exclusive integer lower bound. */
  readonly greaterThan: number | undefined;
  /** Exclusive integer upper bound. */
  readonly lessThan: number | undefined;
  readonly minValues: number | undefined;
  private cachedSignature: string | undefined;
  private cachedText: string | undefined;

  constructor(init: RequirementInit) {
    this.key = init.key;
    this.complement = init.complement;
    this.values = init.values;
    this.greaterThan = init.greaterThan;
    this.lessThan = init.lessThan;
    this.minValues = init.minValues;
  }

  /** Builds a requirement from the Kubernetes shape; normalises beta keys; throws RequirementError. */
  static fromSelector(selector: NodeSelectorRequirement): Requirement {
    const key = normalizeLabelKey(selector.key);
    const values = new Set(selector.values ?? []);
    const minValues = selector.minValues;
    switch (selector.operator) {
      case "In":
        return new Requirement({ key, complement: false, values, minValues });
      case "NotIn":
        return new Requirement({ key, complement: true, values, minValues });
      case "Exists":
        return new Requirement({ key, complement: true, values: new Set(), minValues });
      case "DoesNotExist":
        return new Requirement({ key, complement: false, values: new Set(), minValues });
      case "Gt":
        return Requirement.bounded(key, parseBound(key, selector.values), undefined, minValues);
      case "Gte":
        return Requirement.bounded(key, parseBound(key, selector.values) - 1, undefined, minValues);
      case "Lt":
        return Requirement.bounded(key, undefined, parseBound(key, selector.values), minValues);
      case "Lte":
        return Requirement.bounded(key, undefined, parseBound(key, selector.values) + 1, minValues);
      default:
        throw new RequirementError(key, `unsupported operator "${selector.operator}"`);
    }
  }

  private static bounded(
    key: string,
    gt: number | undefined,
    lt: number | undefined,
    minValues: number | undefined,
  ): Requirement {
    return new Requirement({ key, complement: true, values: new Set(), greaterThan: gt, lessThan: lt, minValues });
  }

  /** `key In [values]`. */
  static in(key: string, values: Iterable<string>): Requirement {
    return new Requirement({ key, complement: false, values: new Set(values) });
  }

  /** The operator this requirement prints as (bounded ranges print as Gt/Lt). */
  operator(): Operator {
    if (!this.complement) return this.values.size === 0 ? "DoesNotExist" : "In";
    if (this.values.size > 0) return "NotIn";
    if (this.greaterThan !== undefined) return "Gt";
    return this.lessThan !== undefined ? "Lt" : "Exists";
  }

  /** Whether a node carrying `value` for this key satisfies the requirement. */
  has(value: string): boolean {
    if (this.complement) return !this.values.has(value) && inBounds(value, this.greaterThan, this.lessThan);
    return this.values.has(value) && inBounds(value, this.greaterThan, this.lessThan);
  }

  /** Whether a node without this label satisfies the requirement (NotIn and DoesNotExist). */
  allowsAbsent(): boolean {
    if (this.greaterThan !== undefined || this.lessThan !== undefined) return false;
    return this.complement ? this.values.size > 0 : this.values.size === 0;
  }

  /** True when no value satisfies it (Karpenter's `Len() == 0`). */
  isEmpty(): boolean {
    return !this.complement && this.values.size === 0;
  }

  /** The requirement both this and `other` allow (same key assumed). */
  intersect(other: Requirement): Requirement {
    const gt = maxOf(this.greaterThan, other.greaterThan);
    const lt = minOf(this.lessThan, other.lessThan);
    const minValues = maxOf(this.minValues, other.minValues);
    const base = { key: this.key, greaterThan: gt, lessThan: lt, minValues };
    if (this.complement && other.complement) {
      if (gt !== undefined && lt !== undefined && gt >= lt - 1)
        return new Requirement({ ...base, complement: false, values: new Set() });
      return new Requirement({ ...base, complement: true, values: new Set([...this.values, ...other.values]) });
    }
    const [included, filter] = this.complement ? [other, this] : [this, other];
    const values = new Set<string>();
    for (const v of included.values) if (filter.has(v) && inBounds(v, gt, lt)) values.add(v);
    return new Requirement({ ...base, complement: false, values });
  }

  /** The Kubernetes shape of this requirement. */
  toSelector(): NodeSelectorRequirement {
    const op = this.operator();
    const withMin = this.minValues === undefined ? {} : { minValues: this.minValues };
    if (op === "Gt") return { key: this.key, operator: "Gt", values: [String(this.greaterThan)], ...withMin };
    if (op === "Lt") return { key: this.key, operator: "Lt", values: [String(this.lessThan)], ...withMin };
    const values = [...this.values].sort();
    return { key: this.key, operator: op, ...(values.length > 0 ? { values } : {}), ...withMin };
  }

  /** A stable string, equal for equal requirements; computed once (requirements are immutable). */
  signature(): string {
    this.cachedSignature ??= JSON.stringify(this.toSelector());
    return this.cachedSignature;
  }

  /**
   * `key In [a b]`, `key Exists`, `key Gt 4`, as Karpenter prints requirements. Computed once: explaining
   * why each of 1,345 catalog types misses a requirement listing 60,000 values sorted them 1,345 times.
   */
  toString(): string {
    this.cachedText ??= this.describe();
    return this.cachedText;
  }

  private describe(): string {
    const op = this.operator();
    const gt = this.greaterThan === undefined ? "" : ` Gt ${this.greaterThan}`;
    const lt = this.lessThan === undefined ? "" : ` Lt ${this.lessThan}`;
    if (op === "In" || op === "NotIn") return `${this.key} ${op} [${[...this.values].sort().join(" ")}]${gt}${lt}`;
    if (op === "Gt" || op === "Lt") return `${this.key}${gt}${lt}`;
    return `${this.key} ${op}`;
  }
}

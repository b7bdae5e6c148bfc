/** Kubernetes resource quantities ("500m", "1Gi", "2.5e3"): parse, compare, add, format. */

const BINARY: Readonly<Record<string, number>> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
const DECIMAL: Readonly<Record<string, number>> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  "": 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};
const PATTERN = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/;

/** A string that is not a Kubernetes quantity. */
export class QuantityError extends Error {
  readonly input: string;
  constructor(input: string) {
    super(
      `parsing quantity "${input}": quantities must match the regular expression ` +
        `'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
    );
    this.name = "QuantityError";
    this.input = input;
  }
}

/** Parsed quantity strings: the same limits and sizes recur across objects (bounded; cleared when full). */
const parsed = new Map<string, number>();
const MAX_PARSED = 1024;

/** Parses a quantity to its value in base units (cores, bytes, count); throws QuantityError. */
export function parseQuantity(input: string | number): number {
  if (typeof input === "number") {
    if (!Number.isFinite(input)) throw new QuantityError(String(input));
    return input;
  }
  let value = parsed.get(input);
  if (value === undefined) {
    value = parseQuantityText(input);
    if (parsed.size >= MAX_PARSED) parsed.clear();
    parsed.set(input, value);
  }
  return value;
}

function parseQuantityText(input: string): number {
  const match = PATTERN.exec(input.trim());
  if (match === null || input.trim() === "") throw new QuantityError(input);
  const sign = match[1] === "-" ? -1 : 1;
  const mantissa = Number(match[2]);
  if (match[3] !== undefined) return sign * mantissa * 10 ** Number(match[3].slice(1));
  const suffix = match[4] ?? "";
  const multiplier = BINARY[suffix] ?? DECIMAL[suffix] ?? 1;
  return sign * mantissa * multiplier;
}

/** Like parseQuantity but answers undefined instead of throwing. */
export function tryParseQuantity(input: unknown): number | undefined {
  if (typeof input !== "string" && typeof input !== "number") return undefined;
  try {
    return parseQuantity(input);
  } catch {
    return undefined;
  }
}

/** Compares two quantities: negative when a < b, 0 when equal, positive when a > b. */
export function compareQuantities(a: string | number, b: string | number): number {
  return Math.sign(parseQuantity(a) - parseQuantity(b));
}

/**
 * A resource list in kerf's numeric form: `cpu` in millicores, every other resource in base units
 * (bytes for memory and ephemeral-storage, a count for pods and extended resources). Integer
 * millicores avoid float drift when many pod requests are summed.
 */
export type ResourceList = Readonly<Record<string, number>>;

/** Converts one quantity for resource `name` into kerf's numeric form (cpu → millicores). */
export function resourceValue(name: string, quantity: string | number): number {
  const value = parseQuantity(quantity);
  return name === "cpu" ? Math.ceil(Math.round(value * 1e6) / 1e3) : Math.ceil(value);
}

/** Parses a Kubernetes ResourceList ({cpu: "500m", memory: "1Gi"}); throws QuantityError. */
export function parseResourceList(raw: Readonly<Record<string, unknown>> | undefined): ResourceList {
  const out: Record<string, number> = {};
  for (const [name, quantity] of Object.entries(raw ?? {})) {
    if (typeof quantity !== "string" && typeof quantity !== "number") throw new QuantityError(String(quantity));
    out[name] = resourceValue(name, quantity);
  }
  return out;
}

/** Sums resource lists key by key. */
export function addResources(...lists: readonly ResourceList[]): ResourceList {
  const out: Record<string, number> = {};
  for (const list of lists) for (const [k, v] of Object.entries(list)) out[k] = (out[k] ?? 0) + v;
  return out;
}

/** Element-wise maximum of resource lists. */
export function maxResources(...lists: readonly ResourceList[]): ResourceList {
  const out: Record<string, number> = {};
  for (const list of lists) for (const [k, v] of Object.entries(list)) out[k] = Math.max(out[k] ?? 0, v);
  return out;
}

/** `a − b` key by key (keys of a only); results may be negative. */
export function subtractResources(a: ResourceList, b: ResourceList): ResourceList {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(a)) out[k] = v - (b[k] ?? 0);
  return out;
}

/** The resources of `requests` that `available` cannot hold (missing keys count as zero). */
export function exceededResources(requests: ResourceList, available: ResourceList): string[] {
  return Object.entries(requests)
    .filter(([k, v]) => v > 0 && v > (available[k] ?? 0))
    .map(([k]) => k);
}

/** Formats a value of resource `name` for people: "1500m", "2Gi", "512Mi", "8". */
export function formatResource(name: string, value: number): string {
  if (name === "cpu") return value % 1000 === 0 ? String(value / 1000) : `${value}m`;
  if (name === "memory" || name === "ephemeral-storage") {
    for (const [suffix, size] of [
      ["Gi", 2 ** 30],
      ["Mi", 2 ** 20],
      ["Ki", 2 ** 10],
    ] as const) {
      if (value >= size && value % size === 0) return `${value / size}${suffix}`;
    }
    if (value >= 2 ** 30) return `${(value / 2 ** 30).toFixed(2)}Gi`;
  }
  return String(value);
}

/** Formats a resource list as `cpu=1500m, memory=2Gi`. */
export function formatResources(list: ResourceList): string {
  return Object.entries(list)
    .map(([k, v]) => `${k}=${formatResource(k, v)}`)
    .join(", ");
}

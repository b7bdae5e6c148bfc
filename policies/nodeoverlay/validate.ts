// NodeOverlay (karpenter.sh/v1alpha1, Karpenter v1.7+) as its CRD admits it: the v1.15.0 schema's patterns and
// bounds and its CEL rules, each with the apiserver's field path and Karpenter's message (pure). `kerf check` reads
// it; the operator's runtime validation (restricted capacity, requirement syntax) is operator/core/overlay/apply.ts.
import { PRICE, PRICE_ADJUSTMENT } from "../api/schemas/nodeoverlay.schema.ts";
import * as P from "../api/patterns.ts";

/** One problem: where (a field path kerf check can locate) and what. */
export interface OverlayIssue {
  readonly path: string;
  readonly message: string;
}

const OPERATORS = ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"];
const BOUNDS = new Set(["Gt", "Lt", "Gte", "Lte"]);
const RESTRICTED_CAPACITY = new Set(["cpu", "memory", "ephemeral-storage", "pods"]);
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The first Karpenter release that serves NodeOverlay. */
export const NODEOVERLAY_SINCE = "1.7";

/** Whether Karpenter `version` ("1.14.1") serves karpenter.sh/v1alpha1 NodeOverlay. */
export function servesNodeOverlay(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
  return major > 1 || (major === 1 && minor >= 7);
}

function keyIssues(key: unknown, p: string): OverlayIssue[] {
  if (typeof key !== "string") return [{ path: p, message: "Required value" }];
  const out: OverlayIssue[] = [];
  if (key.length > 316 || !new RegExp(P.QUALIFIED_NAME).test(key))
    out.push({ path: p, message: `Invalid value: "${key}": should match '${P.QUALIFIED_NAME}'` });
  const domain = /^([^/]+)/.exec(key)?.[1] ?? "";
  if (!["karpenter.sh/capacity-type", "karpenter.sh/nodepool"].includes(key) && domain.endsWith("karpenter.sh")) {
    out.push({ path: p, message: 'Invalid value: "string": label domain "karpenter.sh" is restricted' });
  }
  if (key === "kubernetes.io/hostname")
    out.push({ path: p, message: 'Invalid value: "string": label "kubernetes.io/hostname" is restricted' });
  return out;
}

/** The list-level CEL rules (reported at spec.requirements, as the apiserver does) for one requirement. */
function celIssues(op: unknown, values: readonly unknown[], at: string): OverlayIssue[] {
  const out: OverlayIssue[] = [];
  if ((op === "NotIn" || op === "In") && values.length === 0) {
    out.push({
      path: at,
      message: `Invalid value: "array": requirements with operator '${op}' must have a value defined`,
    });
  }
  if (typeof op === "string" && BOUNDS.has(op) && (values.length !== 1 || !/^\+?\d+$/.test(String(values[0])))) {
    out.push({
      path: at,
      message:
        "Invalid value: \"array\": requirements operator 'Gt', 'Lt', 'Gte' or 'Lte' " +
        "must have a single positive integer value",
    });
  }
  return out;
}

function requirementIssue(r: unknown, p: string, at: string): OverlayIssue[] {
  if (!isObj(r)) return [{ path: p, message: "Invalid value: must be an object" }];
  const out = keyIssues(r["key"], `${p}.key`);
  const op = r["operator"];
  if (typeof op !== "string" || !OPERATORS.includes(op))
    out.push({
      path: `${p}.operator`,
      message: `Unsupported value: ${JSON.stringify(op)}: supported values: "${OPERATORS.join('", "')}"`,
    });
  const values = r["values"] ?? [];
  if (!Array.isArray(values) || values.some((v) => typeof v !== "string"))
    return [...out, { path: `${p}.values`, message: "Invalid value: must be a list of strings" }];
  for (const [j, v] of (values as string[]).entries()) {
    if (v.length > 63 || !new RegExp(P.LABEL_VALUE).test(v))
      out.push({ path: `${p}.values[${j}]`, message: `Invalid value: "${v}": should match '${P.LABEL_VALUE}'` });
  }
  return [...out, ...celIssues(op, values, at)];
}

function requirementIssues(reqs: unknown, at: string): OverlayIssue[] {
  if (!Array.isArray(reqs))
    return [{ path: at, message: `Required value${reqs === undefined ? "" : ": must be a list"}` }];
  const out: OverlayIssue[] =
    reqs.length > 100 ? [{ path: at, message: `Too many: ${reqs.length}: must have at most 100 items` }] : [];
  return [...out, ...reqs.flatMap((r, i) => requirementIssue(r, `${at}[${i}]`, at))];
}

function priceIssues(spec: Readonly<Record<string, unknown>>): OverlayIssue[] {
  const out: OverlayIssue[] = [];
  for (const [field, pattern] of [
    ["price", PRICE],
    ["priceAdjustment", PRICE_ADJUSTMENT],
  ] as const) {
    const v = spec[field];
    if (v !== undefined && (typeof v !== "string" || !new RegExp(pattern).test(v)))
      out.push({ path: `spec.${field}`, message: `Invalid value: ${JSON.stringify(v)}: should match '${pattern}'` });
  }
  if (spec["price"] !== undefined && spec["priceAdjustment"] !== undefined)
    out.push({ path: "spec", message: "Invalid value: \"object\": cannot set both 'price' and 'priceAdjustment'" });
  return out;
}

function capacityIssues(capacity: unknown): OverlayIssue[] {
  if (capacity === undefined) return [];
  if (!isObj(capacity))
    return [{ path: "spec.capacity", message: "Invalid value: must be a map of resource quantities" }];
  const out: OverlayIssue[] = [];
  for (const [name, q] of Object.entries(capacity)) {
    if ((typeof q !== "string" && typeof q !== "number") || !new RegExp(P.QUANTITY).test(String(q)))
      out.push({ path: `spec.capacity.${name}`, message: `Invalid value: ${JSON.stringify(q)}: must be a quantity` });
  }
  if (Object.keys(capacity).some((n) => RESTRICTED_CAPACITY.has(n)))
    out.push({ path: "spec.capacity", message: 'Invalid value: "object": invalid resource restricted' });
  return out;
}

/** Every problem the apiserver would report for this NodeOverlay (empty: admitted). */
export function nodeOverlayIssues(object: unknown): OverlayIssue[] {
  const spec = isObj(object) ? object["spec"] : undefined;
  if (!isObj(spec)) return [{ path: "spec", message: "Required value" }];
  const weight = spec["weight"];
  const badWeight =
    weight !== undefined && (!Number.isInteger(weight) || (weight as number) < 1 || (weight as number) > 10000);
  return [
    ...requirementIssues(spec["requirements"], "spec.requirements"),
    ...priceIssues(spec),
    ...(badWeight
      ? [
          {
            path: "spec.weight",
            message: `Invalid value: ${JSON.stringify(weight)}: must be an integer from 1 to 10000`,
          },
        ]
      : []),
    ...capacityIssues(spec["capacity"]),
  ];
}

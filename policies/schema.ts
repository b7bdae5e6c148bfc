// Compiles the structural schemas of a Karpenter API (a bundled release or the cluster's CRDs) with ajv, once per
// schema object, and maps ajv errors to apiserver-style paths and messages.
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { fullFormats } from "ajv-formats/dist/formats.js";
import { bundledKarpenterApi, type KarpenterApi } from "./api/releases/index.ts";
import type { SchemaNode } from "./api/schemas/openapi.ts";
import { fieldPath, type Segment } from "./field-path.ts";
import { BoundedMemo } from "./memo.ts";
import { ratchetedAt } from "./ratchet.ts";
import { re2 } from "./re2.ts";
import type { Kind } from "./types.ts";

/** A structural problem: "unknown" marks pruned fields (a warning), "type" marks errors that block CEL evaluation. */
export interface SchemaIssue {
  path: string;
  message: string;
  class: "invalid" | "type" | "unknown";
}

const DROPPED_KEY = /^(x-kubernetes-|default$|description$)/;

/**
 * The apiserver decodes a JSON integer that does not fit int64 (|n| ≥ 2^63, e.g. 1e20) as a float, which an
 * integer (or int-or-string) field then rejects as a type error. JSON.parse has already rounded the literal,
 * so the bound is on the double: the few literals just below 2^63 that round up to it are rejected too.
 */
const INT64_KEYWORD = "k8sInt64";
const TWO_TO_63 = 2 ** 63;

/** Whether a JSON number is what the apiserver decodes as an int64 (not a float). */
export function isInt64(value: number): boolean {
  return Number.isInteger(value) && Math.abs(value) < TWO_TO_63;
}

/** Turns a CRD schema into what ajv validates: unknown fields flagged, set lists unique, k8s extensions dropped. */
export function toAjvSchema(node: SchemaNode, isRoot = true): Record<string, unknown> {
  const out = Object.fromEntries(Object.entries(node).filter(([key]) => !DROPPED_KEY.test(key)));
  const child = (n: SchemaNode): Record<string, unknown> => toAjvSchema(n, false);
  if (node.properties !== undefined) {
    out["properties"] = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, child(v)]));
    // The root stays open: metadata follows ObjectMeta rules and apiVersion/kind are checked by the caller.
    if (node.additionalProperties === undefined && !isRoot) out["additionalProperties"] = false;
  }
  if (node.additionalProperties !== undefined) out["additionalProperties"] = child(node.additionalProperties);
  if (node.items !== undefined) out["items"] = child(node.items);
  if (node.anyOf !== undefined) out["anyOf"] = node.anyOf.map(child);
  if (node["x-kubernetes-list-type"] === "set") out["uniqueItems"] = true;
  if (node.type === "integer") out[INT64_KEYWORD] = node.format ?? "integer";
  return out;
}

/** Strings longer than this are tested directly: memoising them would hold on to large values. */
const MEMO_LIMITS = { maxEntries: 1024, maxKeyLength: 256, maxTotalLength: Infinity };

/**
 * A RegExp for ajv's `pattern` keyword whose results are memoised per string: label keys, durations and
 * schedules recur across objects and reviews, and some upstream patterns backtrack heavily
 * (BUDGET_SCHEDULE's five `(.+)` groups). Patterns are RE2 (Go regexp, as kube-openapi reads them).
 */
function memoizedRegExp(pattern: string): { test: (s: string) => boolean; toString: () => string } {
  const rx = re2(pattern);
  const results = new BoundedMemo<boolean>(MEMO_LIMITS);
  return {
    test: (s) => {
      if (s.length > MEMO_LIMITS.maxKeyLength) return rx.test(s);
      let result = results.get(s);
      if (result === undefined) {
        result = rx.test(s);
        results.set(s, result);
      }
      return result;
    },
    toString: () => rx.toString(),
  };
}

/** `code` names the engine in standalone code, which kerf does not generate. */
const regExpEngine = Object.assign(memoizedRegExp, { code: "memoizedRegExp" });

function newAjv(): Ajv {
  // optimize: false skips ajv's code-size pass: compiling is a third faster (it is most of `kerf check`'s start-up
  // work) and the validators run as fast (measured: ~2.5 µs per NodePool either way).
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    unicodeRegExp: false,
    verbose: true,
    code: { regExp: regExpEngine, optimize: false },
  });
  ajv.addFormat("date-time", fullFormats["date-time"]);
  ajv.addFormat("int32", fullFormats.int32);
  ajv.addFormat("int64", fullFormats.int64);
  ajv.addKeyword({
    keyword: INT64_KEYWORD,
    type: "number",
    schemaType: "string",
    errors: false,
    validate: (_: string, data: number) => isInt64(data),
  });
  return ajv;
}

let ajv: Ajv | undefined;
const VALIDATORS = new WeakMap<SchemaNode, ValidateFunction>();

/**
 * A schema's compiled validator; compiled on first use (~50-80 ms each), so a run that never
 * sees a kind never pays for it.
 */
function validatorFor(schema: SchemaNode): ValidateFunction {
  let validate = VALIDATORS.get(schema);
  if (validate === undefined) {
    ajv ??= newAjv();
    const ajvSchema = toAjvSchema(schema);
    validate = ajv.compile(ajvSchema);
    // ajv's own cache holds every schema it compiled: drop it, so a replaced API (a cluster's CRDs) can be collected.
    ajv.removeSchema(ajvSchema);
    VALIDATORS.set(schema, validate);
  }
  return validate;
}

/** Compiles every kind's validator of an API now (a server does it before listening, so no review pays for it). */
export function compileSchemas(api: KarpenterApi = bundledKarpenterApi()): void {
  for (const schema of Object.values(api.schemas)) validatorFor(schema);
}

/**
 * Validates a (defaulted) object against its kind's structural schema in `api` (default: the bundled
 * release); with `old` (an UPDATE's stored object) errors on values the update left unchanged are
 * ratcheted away, as the apiserver does.
 */
export function validateStructure(
  kind: Kind,
  object: unknown,
  api: KarpenterApi = bundledKarpenterApi(),
  old?: unknown,
): SchemaIssue[] {
  const schema = api.schemas[kind];
  const validate = validatorFor(schema);
  if (validate(object)) return [];
  const issues: SchemaIssue[] = [];
  for (const error of validate.errors ?? []) {
    // Ratcheting (policies/ratchet.ts): on UPDATE an error on a value left unchanged is dropped; pruning is not.
    if (
      old !== undefined &&
      error.keyword !== "additionalProperties" &&
      ratchetedAt(schema, object, old, segmentsOf(error.instancePath))
    )
      continue;
    const issue = toIssue(schema, error);
    if (issue !== undefined && !issues.some((i) => i.path === issue.path && i.message === issue.message))
      issues.push(issue);
  }
  return issues;
}

function segmentsOf(instancePath: string): Segment[] {
  if (instancePath === "") return [];
  return instancePath
    .slice(1)
    .split("/")
    .map((raw) => raw.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function toIssue(schema: SchemaNode, error: ErrorObject): SchemaIssue | undefined {
  const segments = segmentsOf(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return {
        path: fieldPath(schema, [...segments, String(params["missingProperty"])]),
        message: "Required value",
        class: "invalid",
      };
    case "additionalProperties": {
      const path = fieldPath(schema, [...segments, String(params["additionalProperty"])]);
      return { path, message: `unknown field "${path}"`, class: "unknown" };
    }
    case "anyOf":
      return undefined; // int-or-string: the branch "type" errors already explain it
    default:
      return valueIssue(fieldPath(schema, segments), error, params);
  }
}

function quote(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
}

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  if (typeof value === "number") return isInt64(value) ? "integer" : "number";
  return typeof value;
}

type Describe = (ctx: { path: string; data: unknown; params: Record<string, unknown> }) => string;

const limit = (p: Record<string, unknown>): string => String(p["limit"]);
const inBody =
  (detail: (p: Record<string, unknown>) => string): Describe =>
  ({ path, data, params }) =>
    `Invalid value: ${quote(data)}: ${path} in body ${detail(params)}`;

/** Apiserver wording per ajv keyword (k8s.io/apiextensions-apiserver validation messages). */
const MESSAGES: Readonly<Record<string, Describe>> = {
  enum: ({ data, params }) =>
    `Unsupported value: ${quote(data)}: ` +
    `supported values: ${(params["allowedValues"] as unknown[]).map(quote).join(", ")}`,
  pattern: inBody((p) => `should match '${String(p["pattern"])}'`),
  format: ({ path, data, params }) =>
    `Invalid value: ${quote(data)}: ${path} in body must be of type ${String(params["format"])}: ${quote(data)}`,
  maxLength: ({ params }) => `Too long: may not be more than ${limit(params)} bytes`,
  minLength: inBody((p) => `should be at least ${limit(p)} chars long`),
  maxItems: ({ data, params }) => `Too many: ${sizeOf(data)}: must have at most ${limit(params)} items`,
  maxProperties: ({ data, params }) => `Too many: ${sizeOf(data)}: must have at most ${limit(params)} items`,
  minItems: ({ path, data, params }) =>
    `Invalid value: ${sizeOf(data)}: ${path} in body should have at least ${limit(params)} items`,
  minimum: inBody((p) => `should be greater than or equal to ${limit(p)}`),
  maximum: inBody((p) => `should be less than or equal to ${limit(p)}`),
};

function valueIssue(path: string, error: ErrorObject, params: Record<string, unknown>): SchemaIssue | undefined {
  const data: unknown = error.data;
  if (error.keyword === INT64_KEYWORD) {
    // As the apiserver words it: a formatted field names the format and Go's float64, a plain integer "number".
    const format = String(error.schema);
    const actual = format === "integer" ? "number" : "float64";
    return {
      path,
      message: `Invalid value: "${actual}": ${path} in body must be of type ${format}: "${actual}"`,
      class: "type",
    };
  }
  if (error.keyword === "type") {
    const actual = jsonType(data);
    return {
      path,
      message: `Invalid value: "${actual}": ${path} in body must be of type ${String(params["type"])}: "${actual}"`,
      class: "type",
    };
  }
  if (error.keyword === "uniqueItems") return duplicateIssue(path, data, params);
  const describe = MESSAGES[error.keyword];
  const message =
    describe === undefined ? (error.message ?? `failed ${error.keyword}`) : describe({ path, data, params });
  return { path, message, class: "invalid" };
}

function sizeOf(data: unknown): number {
  if (Array.isArray(data)) return data.length;
  return typeof data === "object" && data !== null ? Object.keys(data).length : 0;
}

function duplicateIssue(path: string, data: unknown, params: Record<string, unknown>): SchemaIssue {
  const index = Math.max(Number(params["i"]), Number(params["j"]));
  const value = Array.isArray(data) ? data[index] : undefined;
  return { path: `${path}[${index}]`, message: `Duplicate value: ${quote(value)}`, class: "invalid" };
}

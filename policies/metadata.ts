// ObjectMeta as the apiserver checks it for a custom resource: JSON types (decoding into ObjectMeta), then
// ValidateObjectMetaAccessor with NameIsDNSSubdomain (apimachinery v0.36 texts, byte for byte).
import type { SchemaIssue } from "./schema.ts";
import { isObject } from "./object.ts";

const LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_RE = new RegExp(`^${LABEL_KEY_FMT}$`);
const LABEL_KEY_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${LABEL_KEY_FMT})?`;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', " +
  "and must start and end with an alphanumeric character";
const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', " +
  "and must start and end with an alphanumeric character";
/** apimachinery's TotalAnnotationSizeLimitB. */
const ANNOTATIONS_MAX_BYTES = 256 * 1024;

/** apimachinery's RegexError, including its "'x',  or 'y'" spacing. */
function regexError(message: string, format: string, ...examples: string[]): string {
  return `${message} (e.g. ${examples.map((e) => `'${e}', `).join(" or ")}regex used for validation is '${format}')`;
}

const bytes = (value: string): number => Buffer.byteLength(value, "utf8");

/**
 * content.IsDNS1123Subdomain (label-key prefixes) says "bytes"; util/validation.IsDNS1123Subdomain (object names)
 * still says "characters".
 */
function dns1123SubdomainErrors(value: string, unit: "bytes" | "characters"): string[] {
  const errors: string[] = [];
  if (bytes(value) > 253) errors.push(`must be no more than 253 ${unit}`);
  if (!DNS1123_SUBDOMAIN_RE.test(value))
    errors.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"));
  return errors;
}

/** content.IsLabelKey (IsQualifiedName): label keys, annotation keys (lower-cased first) and finalizers. */
export function labelKeyErrors(value: string): string[] {
  const parts = value.split("/");
  if (parts.length > 2) {
    return [
      `a valid label key ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")} ` +
        `with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  const errors: string[] = [];
  const name = parts.length === 2 ? (parts[1] as string) : value;
  if (parts.length === 2) {
    const prefix = parts[0] as string;
    if (prefix === "") errors.push("prefix part must be non-empty");
    else errors.push(...dns1123SubdomainErrors(prefix, "bytes").map((e) => `prefix part ${e}`));
  }
  if (name === "") errors.push("name part must be non-empty");
  else if (bytes(name) > 63) errors.push("name part must be no more than 63 bytes");
  if (!LABEL_KEY_RE.test(name))
    errors.push(`name part ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")}`);
  return errors;
}

/** content.IsLabelValue. */
export function labelValueErrors(value: string): string[] {
  const errors: string[] = [];
  if (bytes(value) > 63) errors.push("must be no more than 63 bytes");
  if (!LABEL_VALUE_RE.test(value))
    errors.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  return errors;
}

/** NameIsDNSSubdomain: a generateName prefix may end in "-" (masked before the check). */
function nameErrors(name: string, prefix: boolean): string[] {
  const masked = prefix && name.length > 1 && name.endsWith("-") ? `${name.slice(0, -2)}a` : name;
  return dns1123SubdomainErrors(masked, "characters");
}

const invalid = (path: string, value: unknown, detail: string): SchemaIssue => ({
  path,
  message: `Invalid value: ${JSON.stringify(value)}: ${detail}`,
  class: "invalid",
});

/** Go's name for the JSON value encoding/json failed to decode. */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "boolean") return "bool";
  return typeof value === "object" ? "object" : typeof value;
}

/**
 * A value ObjectMeta cannot decode: the apiserver answers 400 with encoding/json's error, naming the Go
 * field ("Go struct field ObjectMeta.labels of type string"); the path names the metadata field.
 */
const typeIssue = (field: string, value: unknown, goType: string): SchemaIssue => ({
  path: `metadata.${field}`,
  message: `json: cannot unmarshal ${jsonKind(value)} into Go struct field ObjectMeta.${field} of type ${goType}`,
  class: "type",
});

type FieldType = "string" | "int64" | "string map" | "string list" | "object list" | "timestamp";

/** The ObjectMeta fields a manifest may carry and the JSON they decode from; null decodes to the zero value. */
const FIELD_TYPES: Readonly<Record<string, FieldType>> = {
  name: "string",
  generateName: "string",
  namespace: "string",
  uid: "string",
  resourceVersion: "string",
  selfLink: "string",
  generation: "int64",
  deletionGracePeriodSeconds: "int64",
  labels: "string map",
  annotations: "string map",
  finalizers: "string list",
  ownerReferences: "object list",
  managedFields: "object list",
  creationTimestamp: "timestamp",
  deletionTimestamp: "timestamp",
};

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** For each field type: the first value in it that cannot be decoded, with the Go type it should have had. */
const FIRST_BAD: Readonly<Record<FieldType, (value: unknown) => { value: unknown; goType: string } | undefined>> = {
  string: (v) => (typeof v === "string" ? undefined : { value: v, goType: "string" }),
  int64: (v) => (typeof v === "number" && Number.isSafeInteger(v) ? undefined : { value: v, goType: "int64" }),
  timestamp: (v) =>
    typeof v === "string" && RFC3339.test(v) && !Number.isNaN(Date.parse(v))
      ? undefined
      : { value: v, goType: "v1.Time" },
  "object list": (v) => firstBadItem(v, "[]object", "object", (item) => isObject(item)),
  "string list": (v) => firstBadItem(v, "[]string", "string", (item) => typeof item === "string"),
  "string map": (v) => {
    if (!isObject(v)) return { value: v, goType: "map[string]string" };
    const bad = Object.values(v).find((item) => item !== null && typeof item !== "string");
    return bad === undefined ? undefined : { value: bad, goType: "string" };
  },
};

function firstBadItem(
  value: unknown,
  listType: string,
  itemType: string,
  ok: (item: unknown) => boolean,
): { value: unknown; goType: string } | undefined {
  if (!Array.isArray(value)) return { value, goType: listType };
  const bad = value.find((item) => item !== null && !ok(item));
  return bad === undefined ? undefined : { value: bad, goType: itemType };
}

function fieldTypeIssues(field: string, value: unknown, type: FieldType): SchemaIssue[] {
  const bad = value === null ? undefined : FIRST_BAD[type](value);
  return bad === undefined ? [] : [typeIssue(field, bad.value, bad.goType)];
}

const text = (value: unknown): string => (typeof value === "string" ? value : "");

/** The string entries of a map, null values as "" (what decoding into map[string]string stores). */
function stringEntries(value: unknown): [string, string][] {
  return isObject(value) ? Object.entries(value).map(([k, v]) => [k, text(v)]) : [];
}

function nameIssues(metadata: Record<string, unknown>): SchemaIssue[] {
  const name = text(metadata["name"]);
  const generateName = text(metadata["generateName"]);
  const issues =
    generateName === ""
      ? []
      : nameErrors(generateName, true).map((e) => invalid("metadata.generateName", generateName, e));
  // The apiserver generates the name from generateName before it validates (and before validating webhooks).
  if (name === "" && generateName !== "") return issues;
  if (name === "")
    return [
      ...issues,
      { path: "metadata.name", message: "Required value: name or generateName is required", class: "invalid" },
    ];
  return [...issues, ...nameErrors(name, false).map((e) => invalid("metadata.name", name, e))];
}

function labelIssues(labels: [string, string][]): SchemaIssue[] {
  return labels.flatMap(([key, value]) => [
    ...labelKeyErrors(key).map((e) => invalid("metadata.labels", key, e)),
    ...labelValueErrors(value).map((e) => invalid("metadata.labels", value, e)),
  ]);
}

function annotationIssues(annotations: [string, string][]): SchemaIssue[] {
  const issues = annotations.flatMap(([key]) =>
    labelKeyErrors(key.toLowerCase()).map((e) => invalid("metadata.annotations", key, e)),
  );
  const size = annotations.reduce((sum, [k, v]) => sum + bytes(k) + bytes(v), 0);
  if (size > ANNOTATIONS_MAX_BYTES)
    issues.push({
      path: "metadata.annotations",
      message: `Too long: may not be more than ${ANNOTATIONS_MAX_BYTES} bytes`,
      class: "invalid",
    });
  return issues;
}

function finalizerIssues(value: unknown): SchemaIssue[] {
  const finalizers = Array.isArray(value) ? value.map(text) : [];
  const issues = finalizers.flatMap((f) => labelKeyErrors(f).map((e) => invalid("metadata.finalizers", f, e)));
  if (finalizers.includes("orphan") && finalizers.includes("foregroundDeletion")) {
    issues.push(
      invalid("metadata.finalizers", finalizers, "finalizer orphan and foregroundDeletion cannot be both set"),
    );
  }
  return issues;
}

/** What the apiserver answers about `object.metadata`: type (decoding) errors first, as they stop the request. */
export function metadataIssues(object: Record<string, unknown>): SchemaIssue[] {
  const metadata = object["metadata"] ?? {};
  if (!isObject(metadata)) {
    return [
      {
        path: "metadata",
        message: `json: cannot unmarshal ${jsonKind(metadata)} into Go value of type v1.ObjectMeta`,
        class: "type",
      },
    ];
  }
  const typeIssues = Object.entries(metadata).flatMap(([key, value]) => {
    const type = Object.hasOwn(FIELD_TYPES, key) ? FIELD_TYPES[key] : undefined;
    return type === undefined ? [] : fieldTypeIssues(key, value, type);
  });
  if (typeIssues.length > 0) return typeIssues;
  return [
    ...nameIssues(metadata),
    ...labelIssues(stringEntries(metadata["labels"])),
    ...annotationIssues(stringEntries(metadata["annotations"])),
    ...finalizerIssues(metadata["finalizers"]),
  ];
}

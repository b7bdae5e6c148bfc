// Policy configuration: per-policy severity (deny | warn | off) and options, parsed from YAML/JSON text or a ConfigMap.
import { Ajv, type ValidateFunction } from "ajv";
import { parse as parseYaml } from "yaml";

/** How a finding of a configured policy counts: "deny" fails admission and `kerf check`, "warn" does not. */
export type Severity = "deny" | "warn";
export type PolicySetting = Severity | "off";

/** Every configurable policy id (the registry test keeps this equal to the registry). */
export const CONFIGURABLE_POLICY_IDS = [
  "unknown-fields",
  "runtime",
  "strict",
  "spot-diversity",
  "requirements-satisfiable",
  "limits-required",
  "budget-schedule",
  "kerf-annotations",
  "nodeclassref-resolves",
  "imdsv2-required",
  "ebs-encrypted",
  "operator-ignores",
  "zone-region",
] as const;
export type ConfigurablePolicyId = (typeof CONFIGURABLE_POLICY_IDS)[number];

/** The parsed, frozen configuration the engine reads. */
export interface PolicyConfig {
  /** Severity overrides by policy id; policies not listed keep their default severity. */
  readonly policies: Readonly<Partial<Record<ConfigurablePolicyId, PolicySetting>>>;
  readonly spotDiversity: { readonly minInstanceTypes: number };
  /**
   * warn: every configurable policy that would deny warns instead (the schema and CEL rules the apiserver enforces
   * anyway still deny), for a rollout beside an existing fleet; enforce (the default): the severities as set.
   */
  readonly mode?: PolicyMode;
}

/** The policy mode of a configuration: the one switch from an audit-only rollout to enforcement. */
export type PolicyMode = "enforce" | "warn";

/** Thrown when a policy configuration cannot be parsed or is invalid; the message says why. */
export class PolicyConfigError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PolicyConfigError";
  }
}

/** Minimum number of catalog instance types a spot-capable NodePool must allow (issue 3 default). */
export const DEFAULT_SPOT_MIN_INSTANCE_TYPES = 15;

const severitySchema = { enum: ["deny", "warn", "off"] };
const entrySchema = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  anyOf: [
    severitySchema,
    { type: "object", properties: { severity: severitySchema, ...extra }, additionalProperties: false },
  ],
});
const fileSchema = {
  type: "object",
  properties: {
    apiVersion: { type: "string" },
    kind: { const: "PolicyConfig" },
    mode: { enum: ["enforce", "warn"] },
    policies: {
      type: "object",
      properties: Object.fromEntries(
        CONFIGURABLE_POLICY_IDS.map((id) => [
          id,
          id === "spot-diversity" ? entrySchema({ minInstanceTypes: { type: "integer", minimum: 1 } }) : entrySchema(),
        ]),
      ),
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

let compiledFileSchema: ValidateFunction | undefined;

/** The config file validator, compiled on first use: runs with the default configuration never pay for it. */
function fileValidator(): ValidateFunction {
  compiledFileSchema ??= new Ajv({ allErrors: true }).compile(fileSchema);
  return compiledFileSchema;
}

/** The configuration used when none is given: every policy at its default severity, spot threshold 15. */
export function defaultPolicyConfig(): PolicyConfig {
  return Object.freeze({
    policies: Object.freeze({}),
    spotDiversity: Object.freeze({ minInstanceTypes: DEFAULT_SPOT_MIN_INSTANCE_TYPES }),
    mode: "enforce",
  });
}

/**
 * Parses a policy configuration document (YAML or JSON):
 *   policies: { spot-diversity: { severity: warn, minInstanceTypes: 20 }, limits-required: off }
 * An empty document yields the default configuration.
 */
export function parsePolicyConfig(text: string): PolicyConfig {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (error) {
    throw new PolicyConfigError(`parsing policy config: ${(error as Error).message}`, { cause: error });
  }
  return policyConfigFromObject(doc ?? {});
}

/** Reads a ConfigMap's data: the key `policies.yaml` (or `config.yaml`) holds the same document as a config file. */
export function policyConfigFromConfigMap(configMap: unknown): PolicyConfig {
  const data = (configMap as { data?: Record<string, unknown> } | null)?.data;
  const text = data?.["policies.yaml"] ?? data?.["config.yaml"];
  if (text === undefined) return defaultPolicyConfig();
  if (typeof text !== "string") throw new PolicyConfigError("reading policy ConfigMap: data value is not a string");
  return parsePolicyConfig(text);
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** What is wrong with one policy's entry, each problem naming its key (policies.<id>[.<option>]). */
function entryProblems(id: string, entry: unknown): string[] {
  const key = `policies.${id}`;
  const severities = 'deny, warn or "off"';
  if (typeof entry === "boolean") {
    return [`${key}: ${String(entry)} is a YAML boolean: quote it ("off"); unquoted off is false`];
  }
  if (typeof entry === "string") {
    return ["deny", "warn", "off"].includes(entry) ? [] : [`${key}: "${entry}" is not ${severities}`];
  }
  if (!isRecord(entry)) return [`${key}: must be ${severities}, or a mapping with severity`];
  const options = id === "spot-diversity" ? ["severity", "minInstanceTypes"] : ["severity"];
  return Object.entries(entry).flatMap(([option, value]): string[] => {
    if (!options.includes(option)) return [`${key}.${option}: unknown option (${id} takes ${options.join(", ")})`];
    if (option === "severity" && !["deny", "warn", "off"].includes(value as string)) {
      return [`${key}.severity: ${JSON.stringify(value)} is not ${severities}`];
    }
    if (option === "minInstanceTypes" && !(Number.isInteger(value) && (value as number) >= 1)) {
      return [`${key}.minInstanceTypes: ${JSON.stringify(value)} is not an integer ≥ 1`];
    }
    return [];
  });
}

/** Every problem of a configuration document, each naming its key; empty when the schema would accept it. */
function documentProblems(doc: unknown): string[] {
  if (!isRecord(doc)) return ["the document must be a mapping with a policies key"];
  const unknownKeys = Object.keys(doc)
    .filter((k) => !["apiVersion", "kind", "mode", "policies"].includes(k))
    .map((k) => `${k}: unknown key (a policy configuration has apiVersion, kind, mode and policies)`);
  const mode = doc["mode"];
  if (mode !== undefined && mode !== "enforce" && mode !== "warn")
    unknownKeys.push(`mode: ${JSON.stringify(mode)} is not enforce or warn`);
  const policies = doc["policies"];
  if (policies === undefined || policies === null) return unknownKeys;
  if (!isRecord(policies)) return [...unknownKeys, "policies: must be a mapping of policy id to setting"];
  const known: readonly string[] = CONFIGURABLE_POLICY_IDS;
  return [
    ...unknownKeys,
    ...Object.entries(policies).flatMap(([id, entry]) =>
      known.includes(id)
        ? entryProblems(id, entry)
        : [`policies.${id}: unknown policy (known: ${CONFIGURABLE_POLICY_IDS.join(", ")})`],
    ),
  ];
}

/** Validates an already-parsed configuration object and freezes it. */
export function policyConfigFromObject(doc: unknown): PolicyConfig {
  const problems = documentProblems(doc);
  if (problems.length > 0) throw new PolicyConfigError(`validating policy config: ${problems.join("; ")}`);
  const validateFile = fileValidator();
  if (!validateFile(doc)) {
    const detail = (validateFile.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? ""}`).join("; ");
    throw new PolicyConfigError(`validating policy config: ${detail}`);
  }
  const entries = Object.entries((doc as { policies?: Record<string, unknown> }).policies ?? {});
  const policies: Partial<Record<ConfigurablePolicyId, PolicySetting>> = {};
  let minInstanceTypes = DEFAULT_SPOT_MIN_INSTANCE_TYPES;
  for (const [id, entry] of entries) {
    const severity = typeof entry === "string" ? entry : (entry as { severity?: string }).severity;
    if (severity !== undefined) policies[id as ConfigurablePolicyId] = severity as PolicySetting;
    const threshold = (entry as { minInstanceTypes?: number }).minInstanceTypes;
    if (id === "spot-diversity" && threshold !== undefined) minInstanceTypes = threshold;
  }
  const mode = (doc as { mode?: PolicyMode }).mode ?? "enforce";
  return Object.freeze({ policies: Object.freeze(policies), spotDiversity: Object.freeze({ minInstanceTypes }), mode });
}

/** The effective setting of a policy: the configured one, else its default severity. */
export function settingFor(config: PolicyConfig, id: string, defaultSeverity: Severity): PolicySetting {
  const setting = config.policies[id as ConfigurablePolicyId] ?? defaultSeverity;
  return config.mode === "warn" && setting === "deny" ? "warn" : setting;
}

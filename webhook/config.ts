/**
 * `kerf webhook` configuration: flags with environment fallbacks, validated by a
 * schema, frozen. The only env reader.
 */
import { parseArgs } from "node:util";
import { Ajv } from "ajv";
import { KerfError } from "./errors.ts";
import { DEFAULT_BODY_LIMIT } from "./server.ts";
import {
  DEFAULT_KARPENTER_VERSION,
  resolveKarpenterVersion,
  UnknownKarpenterVersionError,
} from "../policies/api/releases/index.ts";
import { bundledRegions, DEFAULT_REGION, isBundledRegion } from "../policies/domain/catalog/builtin.ts";

/** The validated, frozen webhook settings. */
export interface WebhookConfig {
  readonly host: string;
  readonly port: number;
  readonly tlsCert: string;
  readonly tlsKey: string;
  readonly tlsMinVersion: "TLSv1.2" | "TLSv1.3";
  readonly policyConfig: string | undefined;
  readonly logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace";
  readonly bodyLimit: number;
  /** Callers whose requests are allowed without evaluation (Karpenter's controller). */
  readonly skipUsernames: readonly string[];
  /** How often (ms) the certificate files are checked for changes. */
  readonly tlsReloadIntervalMs: number;
  /** cluster: judge against the cluster's installed Karpenter CRDs (watched); bundled: karpenterVersion only. */
  readonly karpenterApi: "cluster" | "bundled";
  /** The bundled release used when karpenterApi is bundled, or while the cluster's CRDs cannot be read. */
  readonly karpenterVersion: string;
  /** Kubeconfig for reading the CRDs; undefined: the pod's ServiceAccount (in-cluster). */
  readonly kubeconfig: string | undefined;
  /** The cluster's AWS region: NodePools are judged against its bundled catalog (zones, instance types). */
  readonly region: string;
  /** Seconds between periodic audits of the stored NodePools and EC2NodeClasses (metric and Events); 0: none. */
  readonly auditIntervalSeconds: number;
}

/** Each flag, its environment fallback and its usage line. */
export const FLAGS = {
  host: { env: "KERF_WEBHOOK_HOST", usage: "address to listen on", fallback: "0.0.0.0" },
  port: { env: "KERF_WEBHOOK_PORT", usage: "HTTPS port", fallback: "9443" },
  "tls-cert": {
    env: "KERF_TLS_CERT",
    usage: "PEM certificate chain file (reloaded when it changes)",
    fallback: undefined,
  },
  "tls-key": { env: "KERF_TLS_KEY", usage: "PEM private key file (reloaded when it changes)", fallback: undefined },
  "tls-min-version": { env: "KERF_TLS_MIN_VERSION", usage: "TLSv1.2 or TLSv1.3", fallback: "TLSv1.2" },
  "policy-config": {
    env: "KERF_POLICY_CONFIG",
    usage: "policy configuration file (YAML or JSON)",
    fallback: undefined,
  },
  "log-level": { env: "KERF_LOG_LEVEL", usage: "fatal|error|warn|info|debug|trace", fallback: "info" },
  "body-limit": {
    env: "KERF_WEBHOOK_BODY_LIMIT",
    usage: "largest request body in bytes",
    fallback: String(DEFAULT_BODY_LIMIT),
  },
  "skip-usernames": {
    env: "KERF_SKIP_USERNAMES",
    usage: "comma-separated callers never checked",
    fallback: "system:serviceaccount:kube-system:karpenter",
  },
  "tls-reload-interval": {
    env: "KERF_TLS_RELOAD_INTERVAL_MS",
    usage: "certificate change check interval in ms",
    fallback: "2000",
  },
  "karpenter-api": {
    env: "KERF_KARPENTER_API",
    usage: "cluster (the installed Karpenter CRDs, watched) or bundled (--karpenter-version only)",
    fallback: "cluster",
  },
  "karpenter-version": {
    env: "KERF_KARPENTER_VERSION",
    usage: "bundled Karpenter release judged against with bundled, or while the cluster's CRDs cannot be read",
    fallback: DEFAULT_KARPENTER_VERSION,
  },
  kubeconfig: {
    env: "KUBECONFIG",
    usage: "kubeconfig for reading the CRDs (unset: the pod's ServiceAccount)",
    fallback: undefined,
  },
  "audit-interval": {
    env: "KERF_AUDIT_INTERVAL",
    usage:
      "seconds between audits of the stored NodePools and EC2NodeClasses (kerf_policy_violations, Events; needs " +
      "list on them and create on events); 0: off",
    fallback: "0",
  },
  region: {
    env: "KERF_REGION",
    usage:
      "the cluster's AWS region, whose bundled catalog NodePools are judged against " +
      `(unset: AWS_REGION, else ${DEFAULT_REGION})`,
    fallback: undefined,
  },
} as const;

type FlagName = keyof typeof FLAGS;

const schema = {
  type: "object",
  required: [
    "host",
    "port",
    "tlsCert",
    "tlsKey",
    "tlsMinVersion",
    "logLevel",
    "bodyLimit",
    "skipUsernames",
    "tlsReloadIntervalMs",
    "karpenterApi",
    "karpenterVersion",
    "region",
    "auditIntervalSeconds",
  ],
  properties: {
    host: { type: "string", minLength: 1 },
    port: { type: "integer", minimum: 0, maximum: 65535 },
    tlsCert: { type: "string", minLength: 1 },
    tlsKey: { type: "string", minLength: 1 },
    tlsMinVersion: { enum: ["TLSv1.2", "TLSv1.3"] },
    policyConfig: { type: "string", minLength: 1 },
    logLevel: { enum: ["fatal", "error", "warn", "info", "debug", "trace"] },
    bodyLimit: { type: "integer", minimum: 3145728 },
    skipUsernames: { type: "array", items: { type: "string" } },
    tlsReloadIntervalMs: { type: "integer", minimum: 100 },
    karpenterApi: { enum: ["cluster", "bundled"] },
    karpenterVersion: { type: "string", minLength: 1 },
    kubeconfig: { type: "string", minLength: 1 },
    region: { type: "string", minLength: 1 },
    auditIntervalSeconds: { type: "integer", minimum: 0 },
  },
} as const;

const validate = new Ajv({ allErrors: true }).compile(schema);

/** Usage text of the webhook flags. */
export function flagUsage(): string {
  return Object.entries(FLAGS)
    .map(
      ([name, f]) =>
        `  --${name.padEnd(20)} ${f.usage} (env ${f.env}${f.fallback === undefined ? "" : `, default ${f.fallback}`})`,
    )
    .join("\n");
}

function numeric(text: string | undefined): number | string | undefined {
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : text;
}

/** The bundled release `text` names (resolved: "1.14" → the newest bundled 1.14.x); KerfError when none. */
function karpenterVersion(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    return resolveKarpenterVersion(text);
  } catch (error) {
    if (!(error instanceof UnknownKarpenterVersionError)) throw error;
    throw new KerfError("KERF_ERR_CONFIG", `reading webhook flags: --karpenter-version: ${error.message}`, {
      cause: error,
    });
  }
}

/**
 * The region `text` names when kerf bundles its catalog (unset or empty: us-east-1); otherwise a KerfError naming
 * the bundled regions: judging against another region's zones would deny every NodePool that names its own.
 */
function region(text: string | undefined): string {
  if (text === undefined || text === "") return DEFAULT_REGION;
  if (!isBundledRegion(text)) {
    const bundled = bundledRegions().join(", ");
    throw new KerfError(
      "KERF_ERR_CONFIG",
      `reading webhook flags: --region (or KERF_REGION): no bundled catalog for "${text}" (bundled: ${bundled})`,
    );
  }
  return text;
}

/**
 * The flag and variable of a validated field: "/tlsReloadIntervalMs"
 * → "--tls-reload-interval (KERF_TLS_RELOAD_...)".
 */
function settingName(instancePath: string): string {
  const field = instancePath.split("/")[1] ?? "";
  const flag = (Object.keys(FLAGS) as FlagName[]).find((name) => {
    const camel = name.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
    return [camel, `${camel}Ms`, `${camel}Seconds`].includes(field);
  });
  return flag === undefined ? instancePath || "config" : `--${flag} (${FLAGS[flag].env})`;
}

/** Parses `args` with `env` fallbacks; throws KerfError(KERF_ERR_CONFIG) naming the bad setting. */
export function loadWebhookConfig(args: readonly string[], env: NodeJS.ProcessEnv = process.env): WebhookConfig {
  const options = Object.fromEntries(Object.keys(FLAGS).map((name) => [name, { type: "string" as const }]));
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: [...args], options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new KerfError("KERF_ERR_CONFIG", `reading webhook flags: ${(error as Error).message}`, { cause: error });
  }
  const get = (name: FlagName): string | undefined => {
    const flag = values[name];
    return typeof flag === "string" ? flag : (env[FLAGS[name].env] ?? FLAGS[name].fallback);
  };
  const candidate = {
    host: get("host"),
    port: numeric(get("port")),
    tlsCert: get("tls-cert"),
    tlsKey: get("tls-key"),
    tlsMinVersion: get("tls-min-version"),
    policyConfig: get("policy-config"),
    logLevel: get("log-level"),
    bodyLimit: numeric(get("body-limit")),
    skipUsernames: (get("skip-usernames") ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== ""),
    tlsReloadIntervalMs: numeric(get("tls-reload-interval")),
    karpenterApi: get("karpenter-api"),
    karpenterVersion: karpenterVersion(get("karpenter-version")),
    kubeconfig: get("kubeconfig") === "" ? undefined : get("kubeconfig"),
    region: region(get("region") ?? env["AWS_REGION"]),
    auditIntervalSeconds: numeric(get("audit-interval")),
  };
  for (const name of ["tls-cert", "tls-key"] as const) {
    if (get(name) === undefined)
      throw new KerfError("KERF_ERR_CONFIG", `reading webhook flags: --${name} (or ${FLAGS[name].env}) is required`);
  }
  if (!validate(candidate)) {
    const detail = (validate.errors ?? [])
      .map((e) => `${settingName(e.instancePath)} ${e.message ?? "is invalid"}`)
      .join("; ");
    throw new KerfError("KERF_ERR_CONFIG", `validating webhook configuration: ${detail}`);
  }
  return Object.freeze({ ...(candidate as WebhookConfig), skipUsernames: Object.freeze([...candidate.skipUsernames]) });
}

/**
 * OperatorConfig: Karpenter-compatible flags with environment fallbacks, validated once with ajv and frozen.
 * The only file that reads process.env.
 */
import { parseArgs } from "node:util";
import { Ajv } from "ajv";
import { parse as parseYaml } from "yaml";
import { parseDuration } from "../policies/domain/duration.ts";
import { parsePriorityCutoff } from "./core/provisioning/expendable.ts";
import { parseSchedulerConfig, type SchedulerConfig } from "./core/scheduling/default-spread.ts";
import { MAX_PRICE_RATIO } from "./core/scheduling/solver.ts";

/** Every setting the operator reads; durations in milliseconds. */
export interface OperatorConfig {
  readonly clusterName: string;
  /** API server URL written into node user data; "" = discovered with EKS DescribeCluster at start. */
  readonly clusterEndpoint: string;
  /**
   * Base64 PEM CA of that API server for node user data; "" = DescribeCluster's (discovered
   * endpoint) or the kubeconfig's.
   */
  readonly clusterCABundle: string;
  /**
   * Only AWS services with VPC endpoints are reachable: no Pricing API calls, clusterEndpoint required (not
   * discovered); DescribeCluster is still tried for the service CIDR, as Karpenter does, bounded and not fatal.
   */
  readonly isolatedVPC: boolean;
  readonly region: string;
  readonly interruptionQueue: string;
  readonly awsEndpoint: string;
  readonly kubeconfig: string;
  readonly batchMaxDurationMs: number;
  readonly batchIdleDurationMs: number;
  readonly metricsPort: number;
  readonly healthProbePort: number;
  readonly logLevel: "debug" | "info" | "warn" | "error";
  readonly disableLeaderElection: boolean;
  readonly leaderElectionName: string;
  readonly leaderElectionNamespace: string;
  readonly leaderElectionIdentity: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  readonly launchTimeoutMs: number;
  readonly registrationTimeoutMs: number;
  readonly featureGates: Readonly<Record<string, boolean>>;
  /** Karpenter's --legacy-node-repair: kerf's NodeRepair is that controller either way (read, logged, no effect). */
  readonly legacyNodeRepair: boolean;
  /**
   * The scheduling guard: a planned NodeClaim never grows past this many times what its pods are worth
   * (SimulateOptions.maxPriceRatio).
   */
  readonly maxPriceRatio: number;
  /**
   * Karpenter's --ignore-dra-requests: always true here. Pods with DRA requirements get a scheduling error
   * and no node (core/scheduling/dra.ts); false (Karpenter's DRA simulation) is refused, not ignored.
   */
  readonly ignoreDRARequests: true;
  /**
   * kerf's --expendable-pods-priority-cutoff (Cluster Autoscaler's setting): pending pods whose priority is below it
   * never launch a node, though they still schedule onto existing capacity; undefined (the default) turns it off.
   */
  readonly expendablePodsPriorityCutoff: number | undefined;
  /**
   * Karpenter's --scheduler-config (SCHEDULER_CONFIG): the cluster's kube-scheduler default topology spread
   * constraints, applied to pods without their own (core/scheduling/default-spread.ts); none by default.
   */
  readonly schedulerConfig: SchedulerConfig;
}

/** A flag or environment value that fails validation; the message lists every problem. */
export class ConfigError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(`reading operator configuration: ${message}`, options);
    this.name = "ConfigError";
  }
}

type Kind = "string" | "duration" | "port" | "boolean" | "url" | "number";
interface FlagDef {
  readonly key: keyof OperatorConfig;
  readonly kind: Kind;
  readonly def: string;
  readonly usage: string;
}

/** Karpenter v1.15's default gates; --feature-gates sets only those it names, the rest keep these. */
const DEFAULT_FEATURE_GATES =
  "NodeRepair=false,ReservedCapacity=true,SpotToSpotConsolidation=false,NodeOverlay=false," +
  "StaticCapacity=false,CapacityBuffer=false";

/** Flag name → definition; the env var is the upper snake case of the flag (Karpenter's convention). */
const FLAGS: Readonly<Record<string, FlagDef>> = {
  "cluster-name": {
    key: "clusterName",
    kind: "string",
    def: "",
    usage: "EKS cluster name (required); tags and discovery use it",
  },
  "cluster-endpoint": {
    key: "clusterEndpoint",
    kind: "url",
    def: "",
    usage:
      "API server URL nodes join with (written into user data); empty: discovered with EKS DescribeCluster at start",
  },
  "cluster-ca-bundle": {
    key: "clusterCABundle",
    kind: "string",
    def: "",
    usage:
      "base64 PEM CA of the API server for user data; empty: DescribeCluster's for a discovered endpoint, " +
      "else the kubeconfig's",
  },
  "isolated-vpc": {
    key: "isolatedVPC",
    kind: "boolean",
    def: "false",
    usage:
      "only AWS services with VPC endpoints are reachable: --cluster-endpoint required, no Pricing API calls; " +
      "EKS DescribeCluster is still tried for the service CIDR (as Karpenter), never fatal",
  },
  region: { key: "region", kind: "string", def: "", usage: "AWS region (falls back to AWS_REGION)" },
  "interruption-queue": {
    key: "interruptionQueue",
    kind: "string",
    def: "",
    usage: "name or URL of the SQS queue of EventBridge interruption events; empty disables interruption handling",
  },
  "aws-endpoint": { key: "awsEndpoint", kind: "string", def: "", usage: "override the AWS API endpoint (tests: moto)" },
  kubeconfig: {
    key: "kubeconfig",
    kind: "string",
    def: "",
    usage: "kubeconfig path; empty means in-cluster or ~/.kube/config",
  },
  "batch-max-duration": {
    key: "batchMaxDurationMs",
    kind: "duration",
    def: "10s",
    usage: "maximum length of a provisioning batch",
  },
  "batch-idle-duration": {
    key: "batchIdleDurationMs",
    kind: "duration",
    def: "1s",
    usage: "a batch closes after this long without a new pod",
  },
  "metrics-port": { key: "metricsPort", kind: "port", def: "8080", usage: "port of /metrics (0 picks a free port)" },
  "health-probe-port": {
    key: "healthProbePort",
    kind: "port",
    def: "8081",
    usage: "port of /healthz and /readyz (0 picks a free port)",
  },
  "log-level": { key: "logLevel", kind: "string", def: "info", usage: "debug, info, warn or error" },
  "disable-leader-election": {
    key: "disableLeaderElection",
    kind: "boolean",
    def: "false",
    usage: "run controllers without a Lease",
  },
  "leader-election-name": {
    key: "leaderElectionName",
    kind: "string",
    def: "karpenter-leader-election",
    usage: "name of the coordination.k8s.io Lease",
  },
  "leader-election-namespace": {
    key: "leaderElectionNamespace",
    kind: "string",
    def: "",
    usage: "namespace of the Lease (default: POD_NAMESPACE, else kube-system)",
  },
  "leader-election-identity": {
    key: "leaderElectionIdentity",
    kind: "string",
    def: "",
    usage: "holder identity (default: POD_NAME or hostname + pid)",
  },
  "leader-election-lease-duration": {
    key: "leaseDurationMs",
    kind: "duration",
    def: "15s",
    usage: "how long a non-renewed Lease stays valid",
  },
  "leader-election-renew-deadline": {
    key: "renewDeadlineMs",
    kind: "duration",
    def: "10s",
    usage: "the leader steps down when it cannot renew for this long",
  },
  "leader-election-retry-period": {
    key: "retryPeriodMs",
    kind: "duration",
    def: "2s",
    usage: "interval between Lease acquire/renew attempts",
  },
  "launch-timeout": {
    key: "launchTimeoutMs",
    kind: "duration",
    def: "5m",
    usage: "delete a NodeClaim that has not launched after this long",
  },
  "registration-timeout": {
    key: "registrationTimeoutMs",
    kind: "duration",
    def: "15m",
    usage: "delete a launched NodeClaim whose Node has not registered after this long",
  },
  "max-price-ratio": {
    key: "maxPriceRatio",
    kind: "number",
    def: String(MAX_PRICE_RATIO),
    usage:
      "a planned NodeClaim never grows to an option costing more than this many times what its pods' " +
      "requests are worth at the NodePool's best price per resource (≥ 1)",
  },
  "ignore-dra-requests": {
    key: "ignoreDRARequests",
    kind: "string",
    def: "true",
    usage:
      "Karpenter's flag: pods with DRA resource claims get a scheduling error and no node; " +
      "only true is accepted (kerf does not simulate DRA devices)",
  },
  "scheduler-config": {
    key: "schedulerConfig",
    kind: "string",
    def: "",
    usage:
      "YAML/JSON of the kube-scheduler behaviour to mirror: podTopologySpread.defaultConstraints " +
      "(and defaultingType List|System), applied to pods without topology spread constraints; empty: none",
  },
  "legacy-node-repair": {
    key: "legacyNodeRepair",
    kind: "boolean",
    def: "false",
    usage:
      "Karpenter's flag: kerf's node repair (--feature-gates NodeRepair=true) " +
      "is always Karpenter's legacy node.health controller, so true and false do the same",
  },
  "expendable-pods-priority-cutoff": {
    key: "expendablePodsPriorityCutoff",
    kind: "string",
    def: "",
    usage:
      "kerf's (Cluster Autoscaler's setting): pending pods with a priority below this integer " +
      "never launch a node; they still schedule onto existing capacity; empty: off (Karpenter's behaviour)",
  },
  "feature-gates": {
    key: "featureGates",
    kind: "string",
    def: DEFAULT_FEATURE_GATES,
    usage: "comma-separated Name=bool pairs",
  },
};

const schema = {
  type: "object",
  required: ["clusterName", "region"],
  properties: {
    clusterName: { type: "string", minLength: 1 },
    clusterCABundle: { type: "string", pattern: "^[A-Za-z0-9+/]*={0,2}$" },
    region: { type: "string", pattern: "^[a-z]{2}(-[a-z]+)+-[0-9]+$" },
    awsEndpoint: { type: "string", pattern: "^(https?://.+)?$" },
    // An SQS queue name (1–80 letters, digits, - and _, optionally .fifo) or a queue URL; empty disables.
    interruptionQueue: { type: "string", pattern: "^(|https?://\\S+|[A-Za-z0-9_-]{1,80}(\\.fifo)?)$" },
    batchMaxDurationMs: { type: "number", exclusiveMinimum: 0 },
    batchIdleDurationMs: { type: "number", exclusiveMinimum: 0 },
    logLevel: { enum: ["debug", "info", "warn", "error"] },
    leaderElectionName: { type: "string", minLength: 1 },
    leaseDurationMs: { type: "number", minimum: 1000 },
    renewDeadlineMs: { type: "number", minimum: 500 },
    retryPeriodMs: { type: "number", minimum: 100 },
    launchTimeoutMs: { type: "number", exclusiveMinimum: 0 },
    registrationTimeoutMs: { type: "number", exclusiveMinimum: 0 },
    maxPriceRatio: { type: "number", minimum: 1 },
  },
} as const;

const validate = new Ajv({ allErrors: true }).compile(schema);

function envName(flag: string): string {
  return flag.toUpperCase().replaceAll("-", "_");
}

/**
 * Every Karpenter gate parses; those kerf does not implement (policies/operator-coverage.ts, the one list) are
 * named in a warning at start and in `kerf check`'s operator-ignores policy, never ignored silently.
 */
function parseGates(raw: string): Record<string, boolean> {
  // As Karpenter's ParseFeatureGates: the defaults, overridden gate by gate.
  const out: Record<string, boolean> = raw === DEFAULT_FEATURE_GATES ? {} : parseGates(DEFAULT_FEATURE_GATES);
  for (const pair of raw.split(",").filter((p) => p.trim() !== "")) {
    const [name, value] = pair.split("=");
    if (name === undefined || (value !== "true" && value !== "false"))
      throw new ConfigError(`--feature-gates: "${pair}" is not Name=true|false`);
    out[name.trim()] = value === "true";
  }
  return out;
}

/** Karpenter's check: an absolute URL with a host (http or https); "" stays "" (discover it). */
function parseUrl(flag: string, raw: string): string {
  if (raw === "") return raw;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (url === undefined || !["http:", "https:"].includes(url.protocol) || url.hostname === "")
    throw new ConfigError(`--${flag} (${envName(flag)}): "${raw}" is not an http(s) URL with a host`);
  return raw;
}

function parseNumber(flag: string, raw: string): number {
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(n))
    throw new ConfigError(`--${flag} (${envName(flag)}): "${raw}" is not a number`);
  return n;
}

/**
 * --ignore-dra-requests: true, or a refusal (Karpenter's DRA simulation is not
 * implemented, and never silently ignored).
 */
function parseIgnoreDRA(flag: string, raw: string): true {
  const value = raw.trim().toLowerCase();
  if (value === "true" || value === "") return true;
  if (value === "false") {
    throw new ConfigError(
      `--${flag} (${envName(flag)}): false asks for Karpenter's DRA simulation, which kerf does not implement: ` +
        `kerf gives pods with resource claims a scheduling error and never sizes a node without their devices; ` +
        `remove the setting or set it to true`,
    );
  }
  throw new ConfigError(`--${flag} (${envName(flag)}): "${raw}" is not true or false`);
}

/** --scheduler-config: YAML or JSON, validated as Karpenter validates it (field-named errors). */
function parseSchedulerConfigFlag(flag: string, raw: string): SchedulerConfig {
  try {
    const config = parseSchedulerConfig(raw.trim() === "" ? undefined : parseYaml(raw));
    return Object.freeze({
      defaultConstraints: Object.freeze(config.defaultConstraints.map((c) => Object.freeze({ ...c }))),
    });
  } catch (error) {
    throw new ConfigError(`--${flag} (${envName(flag)}): ${(error as Error).message}`, { cause: error });
  }
}

/** --expendable-pods-priority-cutoff: "" (off) or an integer in a pod priority's range (expendable.ts). */
function parseCutoffFlag(flag: string, raw: string): number | undefined {
  try {
    return parsePriorityCutoff(raw);
  } catch (error) {
    throw new ConfigError(`--${flag} (${envName(flag)}): ${(error as Error).message}`, { cause: error });
  }
}

/** Settings read by their own parser rather than by their kind. */
const PARSERS: Partial<Record<keyof OperatorConfig, (flag: string, raw: string) => unknown>> = {
  featureGates: (_flag, raw) => parseGates(raw),
  ignoreDRARequests: parseIgnoreDRA,
  schedulerConfig: parseSchedulerConfigFlag,
  expendablePodsPriorityCutoff: parseCutoffFlag,
};

function convert(flag: string, def: FlagDef, raw: string): unknown {
  const parser = PARSERS[def.key];
  if (parser !== undefined) return parser(flag, raw);
  if (def.kind === "url") return parseUrl(flag, raw);
  if (def.kind === "boolean") return raw === "true" || raw === "";
  if (def.kind === "number") return parseNumber(flag, raw);
  if (def.kind === "port") {
    const port = Number(raw);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`--${flag}: "${raw}" is not a port`);
    return port;
  }
  return def.kind === "duration" ? parseMs(flag, raw) : raw;
}

function parseMs(flag: string, raw: string): number {
  try {
    const ms = parseDuration(raw);
    if (typeof ms !== "number") throw new ConfigError(`--${flag}: "Never" is not allowed`);
    return ms;
  } catch (error) {
    throw new ConfigError(`--${flag}: ${(error as Error).message}`, { cause: error });
  }
}

/** Where the raw values come from; main passes process.argv/process.env, tests pass literals. */
export interface ConfigSources {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly hostname?: string;
  readonly pid?: number;
}

function fallback(
  out: Record<string, unknown>,
  key: keyof OperatorConfig,
  ...candidates: (string | undefined)[]
): void {
  if (out[key] === "") out[key] = candidates.find((c) => c !== undefined && c !== "") ?? "";
}

function applyFallbacks(out: Record<string, unknown>, src: ConfigSources): void {
  const env = src.env;
  fallback(out, "region", env["AWS_REGION"], env["AWS_DEFAULT_REGION"]);
  fallback(out, "awsEndpoint", env["AWS_ENDPOINT_URL"]);
  fallback(out, "kubeconfig", env["KUBECONFIG"]);
  fallback(out, "leaderElectionNamespace", env["POD_NAMESPACE"], env["SYSTEM_NAMESPACE"], "kube-system");
  fallback(out, "leaderElectionIdentity", env["POD_NAME"], `${src.hostname ?? "kerf"}_${src.pid ?? 0}`);
}

/** Reads flags (then env vars, then defaults), validates and freezes; throws ConfigError listing every problem. */
export function loadConfig(src: ConfigSources): OperatorConfig {
  const options = Object.fromEntries(
    Object.entries(FLAGS).map(([flag, def]) => [
      flag,
      { type: def.kind === "boolean" ? "boolean" : "string" } as const,
    ]),
  );
  let values: Record<string, string | boolean | undefined>;
  try {
    // Karpenter's boolean --ignore-dra-requests may stand alone (true); parseArgs' string options need a value.
    const args = src.argv.map((a) => (a === "--ignore-dra-requests" ? "--ignore-dra-requests=true" : a));
    values = parseArgs({ args, options, strict: true, allowPositionals: false }).values as Record<
      string,
      string | boolean | undefined
    >;
  } catch (error) {
    throw new ConfigError((error as Error).message, { cause: error });
  }
  const out: Record<string, unknown> = {};
  for (const [flag, def] of Object.entries(FLAGS)) {
    const given = values[flag];
    const raw = given === undefined ? (src.env[envName(flag)] ?? def.def) : String(given);
    out[def.key] = convert(flag, def, raw);
  }
  applyFallbacks(out, src);
  if (!validate(out)) {
    const problems = (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? "is invalid"}`);
    throw new ConfigError(problems.join("; "));
  }
  // Discovery is an EKS call, which an isolated VPC rules out: refuse here rather than at the first launch.
  if (out["isolatedVPC"] === true && out["clusterEndpoint"] === "")
    throw new ConfigError(
      "--cluster-endpoint (CLUSTER_ENDPOINT) is required with --isolated-vpc (ISOLATED_VPC): " +
        "kerf does not discover the endpoint from EKS there",
    );
  return Object.freeze({ ...out, featureGates: Object.freeze(out["featureGates"]) }) as unknown as OperatorConfig;
}

/** One usage line per flag, for `kerf operator --help`. */
export function usage(): string {
  return Object.entries(FLAGS)
    .map(([flag, def]) => `  --${flag.padEnd(34)} ${def.usage} (env ${envName(flag)}, default "${def.def}")`)
    .join("\n");
}

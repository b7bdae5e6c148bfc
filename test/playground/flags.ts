/** `npm start` flags: the inflate scaling steps, how long each is held, --keep, the SSM prefix of the seeded AMIs. */
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { parseDuration } from "../../policies/domain/duration.ts";

/** What the playground does. */
export interface PlaygroundOptions {
  /** inflate replica counts, applied in order. */
  readonly steps: readonly number[];
  /** How long each step is held before the next (or before stopping). */
  readonly holdMs: number;
  /** Keep everything running after the last step until Ctrl-C. */
  readonly keep: boolean;
  /** Where the seeded "public" AMI parameters live (moto refuses PutParameter under /aws/). */
  readonly ssmPrefix: string;
  /** Keep the operator and webhook logs in this directory (default: a temporary one, removed at exit). */
  readonly logs: string | undefined;
  /** Live view refresh interval. */
  readonly intervalMs: number;
  /** Where the timeline picture (SVG) is written at the end. */
  readonly timeline: string;
  /** The AWS region the playground's moto account, EC2NodeClass subnets and operator run in (default us-east-1). */
  readonly region: string;
  /** The operator's --feature-gates (Name=bool pairs), passed through; undefined keeps the operator's defaults. */
  readonly featureGates: string | undefined;
  readonly help: boolean;
}

/** A flag the user got wrong: reported in one line, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export const USAGE =
  `usage: npm start -- [--steps 5,12,0] [--hold 20s] [--keep] [--interval 1s] [--logs DIR] ` +
  `[--timeline FILE] [--ssm-prefix …] [--region R]
                    [--feature-gates NodeRepair=true,StaticCapacity=true]

Starts a local cluster (etcd, kube-apiserver, kube-scheduler, kube-controller-manager, kwok, moto),
the kerf webhook and operator, applies manifests/examples/playground/, then scales the "inflate"
Deployment through --steps, holding each for --hold, and shows NodeClaims and Nodes arriving.
  --steps     comma-separated replica counts (default 5,12,0)
  --hold      how long each step is held, a duration like 20s or 1m (default 20s)
  --keep      after the last step, keep running until Ctrl-C and print the kubeconfig for kubectl
  --interval  live view refresh interval (default 1s)
  --logs      keep the operator and webhook logs in DIR (default: a temporary directory removed at exit)
  --timeline  write the run's timeline of pods, nodes and cost as SVG to FILE (default kerf-playground-timeline.svg
              in the system's temporary directory)
  --ssm-prefix  SSM path under which the AL2023 AMI parameters are seeded (default /kerf-playground/aws/service)
  --region    the AWS region to run in, e.g. eu-west-1 (default us-east-1): the operator discovers its instance
              types, zones and prices there (moto's answers; prices from the test environment's price proxy)
  --feature-gates  the operator's feature gates, e.g. NodeRepair=true,StaticCapacity=true (default: the operator's,
              as Karpenter's); the playground prints the gates in force and the operator's /metrics address`;

function duration(flag: string, raw: string, minMs: number): number {
  let ms: number | "Never";
  try {
    ms = parseDuration(raw);
  } catch {
    throw new UsageError(`--${flag}: "${raw}" is not a duration such as 20s or 1m`);
  }
  if (ms === "Never" || ms < minMs) throw new UsageError(`--${flag}: must be at least ${minMs} ms, got "${raw}"`);
  return ms;
}

function steps(raw: string): number[] {
  const parts = raw.split(",").map((s) => s.trim());
  if (parts.some((p) => !/^\d+$/.test(p)) || parts.length === 0)
    throw new UsageError(`--steps: "${raw}" is not a comma-separated list of replica counts such as 5,12,0`);
  const counts = parts.map(Number);
  if (counts.some((n) => n > 5000)) throw new UsageError(`--steps: at most 5000 replicas per step, got "${raw}"`);
  return counts;
}

/** Parses argv (without node and script); throws UsageError. */
export function parseFlags(argv: readonly string[]): PlaygroundOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        steps: { type: "string", default: "5,12,0" },
        hold: { type: "string", default: "20s" },
        keep: { type: "boolean", default: false },
        interval: { type: "string", default: "1s" },
        "ssm-prefix": { type: "string", default: "/kerf-playground/aws/service" },
        logs: { type: "string" },
        timeline: { type: "string" },
        region: { type: "string", default: "us-east-1" },
        "feature-gates": { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message.split("\n")[0] ?? "bad flags");
  }
  const prefix = String(values["ssm-prefix"]);
  if (!/^(\/[A-Za-z0-9_.-]+)+$/.test(prefix) || prefix.startsWith("/aws/"))
    throw new UsageError(`--ssm-prefix: "${prefix}" must be an absolute SSM path outside /aws/`);
  const region = String(values["region"]);
  if (!/^[a-z]{2}(-[a-z]+)+-\d$/.test(region))
    throw new UsageError(`--region: "${region}" is not an AWS region such as eu-west-1`);
  const gates = values["feature-gates"];
  if (typeof gates === "string" && !/^\s*[A-Za-z]\w*=(true|false)(\s*,\s*[A-Za-z]\w*=(true|false))*\s*$/.test(gates)) {
    throw new UsageError(`--feature-gates: "${gates}" is not a comma-separated list of Name=true|false`);
  }
  return {
    region,
    featureGates: typeof gates === "string" ? gates : undefined,
    steps: steps(String(values["steps"])),
    holdMs: duration("hold", String(values["hold"]), 1000),
    keep: values["keep"] === true,
    intervalMs: duration("interval", String(values["interval"]), 100),
    ssmPrefix: prefix,
    logs: typeof values["logs"] === "string" && values["logs"] !== "" ? values["logs"] : undefined,
    timeline:
      typeof values["timeline"] === "string" && values["timeline"] !== ""
        ? values["timeline"]
        : path.join(os.tmpdir(), "kerf-playground-timeline.svg"),
    help: values["help"] === true,
  };
}

/**
 * `kerf check`: reads manifests, evaluates every Karpenter object with the policy engine,
 * reports, and sets the exit code.
 */
import { parseArgs } from "node:util";
import { ExitCode } from "./exit-codes.ts";
import type { CliIo } from "./io.ts";
import { readManifests } from "./inputs.ts";
import type { SourceObject } from "./documents.ts";
import { formatNames, reporters } from "./reporters/registry.ts";
import type { ObjectResult, Report } from "./reporters/report.ts";
import { causeText, isKerfError } from "../errors.ts";
import { loadEngine, type Engine, type Kind } from "../engine.ts";
import { explainNodePool } from "./explain.ts";
import { selectKarpenterApi } from "./karpenter-api.ts";
import { bundledRegions, DEFAULT_REGION, isBundledRegion } from "../../policies/domain/catalog/builtin.ts";
import { regionList } from "./regions.ts";
import { karpenterKindMistake } from "../../policies/api-kinds.ts";
import { nodeOverlayIssues, NODEOVERLAY_SINCE, servesNodeOverlay } from "../../policies/nodeoverlay/validate.ts";
import { readClusterSources, type ClusterSources } from "./cluster-audit.ts";
import {
  BUNDLED_KARPENTER_VERSIONS,
  DEFAULT_KARPENTER_VERSION,
  UnknownKarpenterVersionError,
} from "../../policies/api/releases/index.ts";

const usage = `Usage: kerf check [PATH...|-] [options]
       kerf check --cluster [--kubeconfig FILE] [options]
       kerf check --diff GIT-REF|DIR [--cluster [--kubeconfig FILE]] [PATH...]

Checks NodePool, EC2NodeClass and NodeClaim manifests against kerf's policies. PATH is a file, a
directory (searched recursively for .yaml, .yml and .json) or - for standard input
(e.g. \`helm template … | kerf check -\`). Other kinds are skipped.

Options:
  -f, --format FORMAT       ${formatNames.join("|")} (default: text)
      --policy-config FILE  policy configuration (YAML or JSON)
      --karpenter-version VERSION
                            judge against this Karpenter release's CRDs (schemas and CEL rules):
                            ${BUNDLED_KARPENTER_VERSIONS.slice(0, 5).join(", ")},
                            ${BUNDLED_KARPENTER_VERSIONS.slice(5).join(", ")}
                            ("v1.14.1" too; "1.14" is the newest bundled 1.14.x). Default ${DEFAULT_KARPENTER_VERSION}
      --karpenter-crds PATH judge against the CRDs in PATH (a file or folder of CRD YAML, e.g.
                            \`kubectl get crd nodepools.karpenter.sh nodeclaims.karpenter.sh
                            ec2nodeclasses.karpenter.k8s.aws -o yaml\`): a custom or newer install
      --region REGION       the cluster's AWS region: judge against kerf's bundled catalog of it (its
                            zones, instance types and prices; a NodePool naming another region's zone
                            is denied). Default ${DEFAULT_REGION}. Bundled:
                            ${regionList(28)}
      --show-defaults       print the JSON Patch defaulting would apply to each object
      --explain             per NodePool: matching instance types (spot, on-demand), cheapest and
                            dearest, allocatable range, worst-case hourly cost its limits allow
                            (text and json formats), and where the prices come from; spot is
                            counted, not priced, in a region whose spot prices kerf does not bundle
      --diff GIT-REF|DIR    also preview what the change from GIT-REF (paths from the repository
                            root) or from DIR (the same relative paths) does to running nodes:
                            per changed NodePool and EC2NodeClass, whether nodes are replaced, the
                            drift reason, and how the Drifted budgets pace it (text and json);
                            PATH defaults to .
      --cluster             without PATH: audit the cluster's stored NodePools and EC2NodeClasses
                            (current kubeconfig context): the objects each policy would deny or warn
                            about if created today. With --diff: count the live NodeClaims that
                            would drift. Both judge against the cluster's installed Karpenter CRDs
                            unless --karpenter-version or --karpenter-crds says
      --kubeconfig FILE     with --cluster: the kubeconfig to use
      --color, --no-color   force or disable colour (default: on when stdout is a terminal)
  -h, --help                show this help

Exit codes: 0 nothing denied, 1 something denied, 2 usage error or unreadable input. A drift
preview informs and never fails the run by itself.
`;

const options = {
  format: { type: "string", short: "f", default: "text" },
  region: { type: "string" },
  "policy-config": { type: "string" },
  "karpenter-version": { type: "string" },
  "karpenter-crds": { type: "string" },
  "show-defaults": { type: "boolean", default: false },
  explain: { type: "boolean", default: false },
  diff: { type: "string" },
  cluster: { type: "boolean", default: false },
  kubeconfig: { type: "string" },
  color: { type: "boolean" },
  "no-color": { type: "boolean" },
  help: { type: "boolean", short: "h", default: false },
} as const;

interface KarpenterObject {
  readonly source: SourceObject;
  readonly kind: Kind;
}

function field(value: unknown, ...keys: string[]): unknown {
  let current = value;
  for (const key of keys)
    current = typeof current === "object" && current !== null ? (current as Record<string, unknown>)[key] : undefined;
  return current;
}

function nameOf(value: unknown): string {
  const name = field(value, "metadata", "name");
  return typeof name === "string" && name !== "" ? name : "<unnamed>";
}

/**
 * In input order: the Karpenter objects to evaluate, and near misses (a misspelt kind, a
 * retired version) denied as they are.
 */
function classify(engine: Engine, sources: readonly SourceObject[]): Array<KarpenterObject | ObjectResult> {
  return sources.flatMap((source): Array<KarpenterObject | ObjectResult> => {
    const apiVersion = field(source.value, "apiVersion");
    const kind = engine.isKarpenterKind(apiVersion, field(source.value, "kind"));
    if (kind !== undefined) return [{ source, kind }];
    if (apiVersion === "karpenter.sh/v1alpha1" && field(source.value, "kind") === "NodeOverlay")
      return [overlayResult(engine, source)];
    const mistake = karpenterKindMistake(apiVersion, field(source.value, "kind"));
    return mistake === undefined ? [] : [mistakeResult(source, mistake)];
  });
}

/** Which cluster was audited, and the Karpenter API its objects were judged against. */
function clusterNote(cluster: ClusterSources, engine: Engine): NonNullable<Report["cluster"]> {
  const api = engine.context.api;
  return {
    context: cluster.context,
    server: cluster.server,
    karpenterApi: { source: api?.source ?? "bundled", version: api?.version ?? DEFAULT_KARPENTER_VERSION },
  };
}

/** A NodeOverlay judged by its CRD's schema and CEL rules (Karpenter v1.7+; denied outright for older releases). */
function overlayResult(engine: Engine, source: SourceObject): ObjectResult {
  const version = engine.context.api?.version ?? DEFAULT_KARPENTER_VERSION;
  const issues =
    /^\d/.test(version) && !servesNodeOverlay(version)
      ? [
          {
            path: "apiVersion",
            message:
              `Karpenter ${version} does not serve karpenter.sh/v1alpha1 NodeOverlay ` +
              `(Karpenter v${NODEOVERLAY_SINCE}+)`,
          },
        ]
      : nodeOverlayIssues(source.value);
  return {
    file: source.file,
    line: source.position.line,
    column: source.position.column,
    kind: "NodeOverlay",
    name: nameOf(source.value),
    allowed: issues.length === 0,
    violations: issues.map((i) => ({
      policy: "schema",
      severity: "deny" as const,
      path: i.path,
      message: i.message,
      ...source.locate(i.path),
    })),
    patch: [],
  };
}

/** A near miss as a denied result: the apiserver would reject it or Karpenter would never see it. */
function mistakeResult(source: SourceObject, mistake: { path: string; message: string }): ObjectResult {
  const kind = field(source.value, "kind");
  return {
    file: source.file,
    line: source.position.line,
    column: source.position.column,
    kind: typeof kind === "string" ? kind : "<no kind>",
    name: nameOf(source.value),
    allowed: false,
    violations: [
      {
        policy: "karpenter-kind",
        severity: "deny",
        path: mistake.path,
        message: mistake.message,
        ...source.locate(mistake.path),
      },
    ],
    patch: [],
  };
}

function checkObject(
  engine: Engine,
  object: KarpenterObject,
  nodeClassNames: ReadonlySet<string>,
  explain: boolean,
): ObjectResult {
  const { source, kind } = object;
  const verdict = engine.evaluate({
    kind,
    operation: "CREATE",
    object: source.value,
    context: { ...engine.context, nodeClassNames },
  });
  const explanation =
    explain && kind === "NodePool" ? explainNodePool(source.value, engine.context.catalog) : undefined;
  return {
    file: source.file,
    line: source.position.line,
    column: source.position.column,
    kind,
    name: nameOf(source.value),
    allowed: verdict.allowed,
    violations: verdict.findings.map((f) => ({
      policy: f.policy,
      severity: f.severity,
      path: f.path,
      message: f.message,
      ...source.locate(f.path),
    })),
    patch: verdict.patch,
    ...(explanation === undefined ? {} : { explain: explanation }),
  };
}

function evaluateAll(
  engine: Engine,
  entries: ReadonlyArray<KarpenterObject | ObjectResult>,
  explain: boolean,
): ObjectResult[] {
  const objects = entries.filter((e): e is KarpenterObject => "source" in e);
  const nodeClassNames = new Set(objects.filter((o) => o.kind === "EC2NodeClass").map((o) => nameOf(o.source.value)));
  return entries.map((entry) => {
    if (!("source" in entry)) return entry;
    try {
      return checkObject(engine, entry, nodeClassNames, explain);
    } catch (error) {
      const { file, position } = entry.source;
      throw new Error(
        `evaluating ${entry.kind}/${nameOf(entry.source.value)} at ${file}:${position.line}: ${causeText(error)}`,
        { cause: error },
      );
    }
  });
}

type Values = ReturnType<
  typeof parseArgs<{ args: string[]; options: typeof options; allowPositionals: true; strict: true }>
>["values"];

/** The --diff options that cannot work together; throws UsageError. */
function validateDiff(values: Values, positionals: readonly string[]): void {
  if (values.format !== "text" && values.format !== "json")
    throw new UsageError(`--diff works with --format text or json, not "${values.format}"`);
  if (positionals.includes("-"))
    throw new UsageError("--diff compares files with their other version: standard input (-) has none");
  if (values.kubeconfig !== undefined && !values.cluster)
    throw new UsageError("--kubeconfig works with --cluster only");
}

/** --region names a region kerf bundles a catalog for; throws UsageError listing them otherwise. */
function validateRegion(region: string | undefined): void {
  if (region !== undefined && !isBundledRegion(region)) {
    throw new UsageError(`--region: no bundled catalog for "${region}" (bundled: ${bundledRegions().join(", ")})`);
  }
}

/** `--cluster` without --diff reads the cluster, not files: no paths. */
function validateAudit(positionals: readonly string[]): readonly string[] {
  if (positionals.length > 0) {
    throw new UsageError(
      "--cluster without --diff audits the cluster's stored objects: give no PATH (or --diff to preview a change)",
    );
  }
  return [];
}

/** The paths to check; throws UsageError for option combinations that cannot work. */
function validate(values: Values, positionals: readonly string[]): readonly string[] {
  if (values["karpenter-version"] !== undefined && values["karpenter-crds"] !== undefined) {
    throw new UsageError("--karpenter-version and --karpenter-crds both name the Karpenter API: give one");
  }
  validateRegion(values.region);
  if (values.explain && values.format !== "text" && values.format !== "json")
    throw new UsageError(`--explain works with --format text or json, not "${values.format}"`);
  if (values.diff !== undefined) {
    validateDiff(values, positionals);
    return positionals.length === 0 ? ["."] : positionals;
  }
  if (values.kubeconfig !== undefined && !values.cluster)
    throw new UsageError("--kubeconfig works with --cluster only");
  if (values.cluster) return validateAudit(positionals);
  if (positionals.length === 0) throw new UsageError("no input: name files, directories or - for standard input");
  return positionals;
}

/** With --diff: the drift preview section (its module, and the operator's core, loaded only then). */
async function previewSection(
  values: Values,
  paths: readonly string[],
  sources: readonly SourceObject[],
): Promise<Report["driftPreview"]> {
  if (values.diff === undefined) return undefined;
  const { driftPreviewSection } = await import("./diff/drift-preview.ts");
  const checked = { paths, files: [...new Set(sources.map((s) => s.file))] };
  return driftPreviewSection(sources, checked, {
    base: values.diff,
    cluster: values.cluster,
    kubeconfig: values.kubeconfig,
    now: new Date(),
  });
}

async function check(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  if (values.help) {
    io.stdout(usage);
    return ExitCode.ok;
  }
  const reporter = reporters[values.format];
  if (reporter === undefined)
    throw new UsageError(`unknown --format "${values.format}" (one of ${formatNames.join(", ")})`);
  const paths = validate(values, positionals);
  const api = await selectKarpenterApi({
    version: values["karpenter-version"],
    crds: values["karpenter-crds"],
    cluster: values.cluster,
    kubeconfig: values.kubeconfig,
    warn: io.stderr,
  });
  const engine = await loadEngine({ policyConfigFile: values["policy-config"], api, region: values.region });
  const audit = values.cluster && values.diff === undefined;
  const cluster = audit ? await readClusterSources(values.kubeconfig) : undefined;
  const { objects: sources, skipped: skippedFiles } =
    cluster === undefined ? await readManifests(paths, io.readStdin) : { objects: cluster.sources, skipped: [] };
  const driftPreview = await previewSection(values, paths, sources);
  const results = evaluateAll(engine, classify(engine, sources), values.explain);
  const report: Report = {
    results,
    skipped: sources.length - results.length,
    files: new Set(sources.map((s) => s.file)).size,
    driftPreview,
    skippedFiles,
    ...(cluster === undefined ? {} : { cluster: clusterNote(cluster, engine) }),
  };
  const color = values["no-color"] === true ? false : (values.color ?? io.isTty);
  io.stdout(reporter(report, { color, showDefaults: values["show-defaults"] }));
  return report.results.some((r) => !r.allowed) ? ExitCode.denied : ExitCode.ok;
}

class UsageError extends Error {}

/** Runs `kerf check`; user mistakes become a one-line message and exit code 2, never a stack trace. */
export async function runCheck(args: readonly string[], io: CliIo): Promise<number> {
  try {
    return await check(args, io);
  } catch (error) {
    if (error instanceof UsageError || error instanceof UnknownKarpenterVersionError || isArgError(error)) {
      io.stderr(`kerf check: ${causeText(error)}\n(run \`kerf check --help\` for usage)\n`);
      return ExitCode.usage;
    }
    const internal = !isKerfError(error) && !(error instanceof Error && error.message.startsWith("evaluating "));
    io.stderr(`kerf check: ${causeText(error)}\n${internal && error instanceof Error ? `${error.stack ?? ""}\n` : ""}`);
    return ExitCode.usage;
  }
}

function isArgError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS");
}

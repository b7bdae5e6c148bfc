/**
 * `kerf simulate -f SCENARIO.yaml`: runs the scheduling simulation on a scenario and prints the plan
 * (NodeClaims, prices, unschedulable pods).
 */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { parse as parseYaml } from "yaml";
import {
  builtinCatalog,
  bundledRegions,
  DEFAULT_REGION,
  isBundledRegion,
} from "../../policies/domain/catalog/builtin.ts";
import { priceNote, type PriceNote } from "./explain.ts";
import { regionList } from "./regions.ts";
// The simulation is the operator's pure core; this CLI only reads, converts and prints
// (architecture §1.1 entry-point wiring).
import { parsePriorityCutoff } from "../../operator/core/provisioning/expendable.ts";
import { buildScenario, ScenarioError, type Scenario } from "../../operator/core/scheduling/scenario.ts";
import { offHolds } from "../../operator/core/provisioning/plan.ts";
import type { SchedulingInput } from "../../operator/core/provisioning/scheduling-input.ts";
import { parseSchedulerConfig, type SchedulerConfig } from "../../operator/core/scheduling/default-spread.ts";
import { simulate, type SimulateOptions, type SimulationResult } from "../../operator/core/scheduling/simulate.ts";
import { MAX_PRICE_RATIO } from "../../operator/core/scheduling/solver.ts";
import { DEFAULT_MAX_PASSES, formatWhatIf, whatIf, type WhatIf, type WhatIfOptions } from "./simulate-disruption.ts";
import type { SourceObject } from "./documents.ts";
import { readInputs } from "./inputs.ts";
import { ExitCode } from "./exit-codes.ts";
import type { CliIo } from "./io.ts";

const usage =
  `Usage: kerf simulate -f SCENARIO.yaml [-f MORE.yaml|DIR ...] [--format text|json] ` +
  `[--region REGION] [--at TIME] [--passes N]
                     [--spot-to-spot] [--max-price-ratio R] [--scheduler-config FILE]
                     [--expendable-pods-priority-cutoff N]

Simulates Karpenter's scheduling on a scenario (multi-document YAML of NodePool, EC2NodeClass,
Pod, Deployment, DaemonSet, Node, NodeClaim, PodDisruptionBudget, Namespace and RuntimeClass
objects; several -f, each a file, a directory of .yaml/.yml/.json files or - for standard input,
make one scenario) against kerf's bundled catalog of a region and prints the NodeClaims that would be
launched, the unschedulable pods, the total hourly price and where the prices come from (source
and date). When Nodes belong to a NodePool of the scenario (label karpenter.sh/nodepool), it also
prints the disruption plan kerf would execute on them, pass after pass: what each pass deletes or
replaces, the savings, what each budget allows and what keeps the other nodes.

  --region REGION  the cluster's AWS region (default ${DEFAULT_REGION}). Bundled:
                   ${regionList(19)}.
                   Outside us-east-1 the on-demand prices are us-east-1's (Karpenter's static table has no
                   other region) and spot is priced at on-demand (no spot prices are bundled there)
  --at TIME        the time the disruption budgets and kerf.dev/off-schedule windows are read at
                   (ISO 8601; default: now)
  --passes N       disruption passes to plan at most (default ${DEFAULT_MAX_PASSES}; 0: no disruption plan)
  --spot-to-spot   as the SpotToSpotConsolidation feature gate
  --scheduler-config FILE
                   the operator's --scheduler-config: a YAML or JSON document whose
                   podTopologySpread.defaultConstraints (kube-scheduler's default topology spread constraints)
                   apply to every pod without its own, the selector deduced from the Services, ReplicaSets
                   (a Deployment's), StatefulSets and ReplicationControllers of the scenario that select it
  --expendable-pods-priority-cutoff N
                   the operator's --expendable-pods-priority-cutoff: pending pods whose priority is below N
                   launch no node; they go to the scenario's Nodes when there is room, else are unschedulable
  --max-price-ratio R
                   the operator's --max-price-ratio: a planned NodeClaim never grows to an option costing
                   more than R times what its pods are worth at the NodePool's best price per resource
                   (default ${MAX_PRICE_RATIO}; ≥ 1)
`;

/** The JSON plan printed by `--format json`. */
export interface Plan {
  /** New NodeClaims; `static: true` for those a static NodePool (spec.replicas) launches to reach its replicas. */
  readonly nodeClaims: {
    nodePool: string;
    instanceType: string;
    capacityType: string;
    zone: string;
    pricePerHour: number;
    pods: string[];
    static?: true;
  }[];
  readonly unschedulable: { pod: string; reason: string }[];
  readonly totalPricePerHour: number;
  /**
   * NodePools off at --at under kerf.dev/off-schedule (kerf extension): they launch nothing; `until` is null when
   * their windows never close, `pods` are the unschedulable pods they would have launched for.
   */
  readonly offPools?: readonly { nodePool: string; until: string | null; pods: string[] }[];
  /** The disruption what-if, when the scenario has Nodes of its NodePools. */
  readonly disruption?: WhatIf;
  /** Where the prices come from: the region's bundled catalog, the on-demand and spot sources and their dates. */
  readonly prices?: PriceNote & { readonly catalog: string };
}

const podName = (p: { namespace: string; name: string }): string => `${p.namespace}/${p.name}`;

/**
 * The plan of a simulation result: the static pools' launches first (`statics`, from the scenario; no pending pod
 * goes to them before they register), then the new NodeClaims.
 */
export function toPlan(result: SimulationResult, statics: Scenario["staticClaims"] = []): Plan {
  const fixed = statics.map((s) => ({ nodePool: s.nodePool, ...s.launch, pods: [], static: true as const }));
  const planned = result.newClaims.map((c) => ({ nodePool: c.nodePool, ...c.launch, pods: c.pods.map(podName) }));
  const nodeClaims = [...fixed, ...planned];
  const total = nodeClaims.reduce((s, c) => s + c.pricePerHour, 0);
  return {
    nodeClaims,
    unschedulable: result.podErrors.map((e) => ({ pod: podName(e.pod), reason: e.reason })),
    totalPricePerHour: Math.round(total * 1e6) / 1e6,
  };
}

/** The plan for people. */
export function formatText(plan: Plan): string {
  const lines: string[] = [];
  plan.nodeClaims.forEach((c, i) => {
    const pool = `${c.nodePool}${c.static === true ? " (static: spec.replicas)" : ""}`;
    lines.push(
      `NodeClaim ${i + 1}: nodepool ${pool}, ${c.instanceType} ${c.capacityType} in ${c.zone}, ` +
        `$${c.pricePerHour.toFixed(4)}/h, ${c.pods.length} pod(s)`,
    );
    if (c.pods.length > 0) lines.push(`  ${c.pods.join(", ")}`);
  });
  if (plan.unschedulable.length > 0)
    lines.push("Unschedulable:", ...plan.unschedulable.map((u) => `  ${u.pod}: ${u.reason}`));
  for (const off of plan.offPools ?? []) {
    const until = off.until === null ? "with no end (its windows run into each other)" : `until ${off.until}`;
    const held = off.pods.length === 0 ? "" : `; it would have launched for ${off.pods.join(", ")}`;
    lines.push(`NodePool ${off.nodePool} is off (kerf.dev/off-schedule) ${until}: it launches nothing${held}`);
  }
  lines.push(`Total: ${plan.nodeClaims.length} node(s), $${plan.totalPricePerHour.toFixed(4)}/h`);
  if (plan.prices !== undefined) lines.push(...priceLines(plan.prices));
  return `${lines.join("\n")}\n${plan.disruption === undefined ? "" : `\n${formatWhatIf(plan.disruption)}`}`;
}

/** The price provenance lines of the text plan. */
function priceLines(prices: NonNullable<Plan["prices"]>): string[] {
  const spot =
    prices.spot ??
    `none bundled for ${prices.region}: spot offerings are priced at on-demand ` +
      "(the most a spot node costs), so this plan's spot prices are on-demand prices";
  return [`Prices: ${prices.catalog}`, `  on-demand: ${prices.onDemand}`, `  spot: ${spot}`];
}

interface Parsed {
  readonly region: string;
  readonly files: readonly string[];
  readonly format: "text" | "json";
  readonly options: Omit<WhatIfOptions, "nominated">;
  readonly scheduling: SimulateOptions;
  /** --scheduler-config: the file of the cluster's kube-scheduler defaults. */
  readonly schedulerConfigFile?: string;
}

/** --expendable-pods-priority-cutoff's value (undefined: off), or the message for a usage error. */
function priorityCutoff(raw: string | undefined): { value: number | undefined } | string {
  try {
    return { value: raw === undefined ? undefined : parsePriorityCutoff(raw) };
  } catch (error) {
    return `--expendable-pods-priority-cutoff: ${(error as Error).message}`;
  }
}

/** --max-price-ratio's value, or the message for a usage error. */
function priceRatio(raw: string): number | string {
  const ratio = Number(raw);
  return raw.trim() === "" || !Number.isFinite(ratio) || ratio < 1
    ? `--max-price-ratio: "${raw}" is not a number ≥ 1`
    : ratio;
}

const schedulerConfigFile = (file: string | undefined): { schedulerConfigFile?: string } =>
  file === undefined ? {} : { schedulerConfigFile: file };

/** The scheduling options of --max-price-ratio and --expendable-pods-priority-cutoff, or a usage error. */
function schedulingOptions(ratioFlag: string, cutoffFlag: string | undefined): SimulateOptions | string {
  const ratio = priceRatio(ratioFlag);
  if (typeof ratio === "string") return ratio;
  const cutoff = priorityCutoff(cutoffFlag);
  if (typeof cutoff === "string") return cutoff;
  return {
    maxPriceRatio: ratio,
    ...(cutoff.value === undefined ? {} : { expendablePodsPriorityCutoff: cutoff.value }),
  };
}

/** The options, or the message for a usage error. */
function parse(args: readonly string[], now: Date): Parsed | string | "help" {
  const { values } = parseArgs({
    args: [...args],
    options: {
      file: { type: "string", short: "f", multiple: true },
      format: { type: "string", default: "text" },
      help: { type: "boolean", short: "h" },
      at: { type: "string" },
      passes: { type: "string", default: String(DEFAULT_MAX_PASSES) },
      "spot-to-spot": { type: "boolean", default: false },
      "max-price-ratio": { type: "string", default: String(MAX_PRICE_RATIO) },
      "scheduler-config": { type: "string" },
      "expendable-pods-priority-cutoff": { type: "string" },
      region: { type: "string", default: DEFAULT_REGION },
    },
  });
  if (values.help === true) return "help";
  if (values.file === undefined) return "-f SCENARIO.yaml is required";
  if (values.format !== "text" && values.format !== "json") return `unknown format "${values.format}"`;
  if (!isBundledRegion(values.region)) {
    return `--region: no bundled catalog for "${values.region}" (bundled: ${bundledRegions().join(", ")})`;
  }
  const at = values.at === undefined ? now : new Date(values.at);
  if (Number.isNaN(at.getTime())) return `--at: "${values.at ?? ""}" is not an ISO 8601 time`;
  const passes = Number(values.passes);
  if (!Number.isInteger(passes) || passes < 0) return `--passes: "${values.passes}" is not a whole number ≥ 0`;
  const scheduling = schedulingOptions(values["max-price-ratio"], values["expendable-pods-priority-cutoff"]);
  if (typeof scheduling === "string") return scheduling;
  return {
    region: values.region,
    files: values.file,
    format: values.format,
    options: { now: at, maxPasses: passes, spotToSpot: values["spot-to-spot"] },
    scheduling,
    ...schedulerConfigFile(values["scheduler-config"]),
  };
}

/** Runs `kerf simulate`. */
export async function runSimulate(args: readonly string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args, new Date());
  } catch (error) {
    parsed = error instanceof Error ? error.message : String(error);
  }
  if (parsed === "help") {
    io.stdout(usage);
    return ExitCode.ok;
  }
  if (typeof parsed === "string") {
    io.stderr(`kerf simulate: ${parsed}\n${usage}`);
    return ExitCode.usage;
  }
  return simulateFile(parsed, io);
}

/** The scheduling plan of the scenario, with the disruption what-if when it has Nodes of its NodePools. */
function planScenario(
  documents: readonly unknown[],
  parsed: Pick<Parsed, "options" | "scheduling" | "region"> & { schedulerConfig?: SchedulerConfig },
): Plan {
  const { options, scheduling, region } = parsed;
  const catalog = builtinCatalog(region);
  const scenario = buildScenario(documents, catalog, options.now, {
    schedulerConfig: parsed.schedulerConfig,
    expendablePodsPriorityCutoff: scheduling.expendablePodsPriorityCutoff,
  });
  const result = simulate(scenario.snapshot, scenario.pending, scheduling);
  const offPools = offPoolsOf(scenario.input, result, scheduling);
  // Nodes that pending pods go to are nominated: the disruption pass leaves them alone.
  const nominated = new Set(result.existingPlacements.map((p) => p.node));
  const disruption =
    options.maxPasses === 0
      ? undefined
      : whatIf(scenario.objects, {
          ...options,
          nominated,
          scheduling: {
            ...scheduling,
            ...(parsed.schedulerConfig === undefined ? {} : { schedulerConfig: parsed.schedulerConfig }),
          },
        });
  const note = priceNote(catalog);
  const built = `kerf's bundled ${region} catalog, built ${catalog.provenance.generated}`;
  const prices = note === undefined ? {} : { prices: { catalog: built, ...note } };
  const off = offPools.length === 0 ? {} : { offPools };
  return {
    ...toPlan(result, scenario.staticClaims),
    ...off,
    ...(disruption === undefined ? {} : { disruption }),
    ...prices,
  };
}

/**
 * The pools off at the scenario's time and the unschedulable pods each would have launched for (as the provisioner).
 */
function offPoolsOf(
  input: SchedulingInput,
  result: SimulationResult,
  scheduling: SimulateOptions,
): NonNullable<Plan["offPools"]> {
  const holds = offHolds(
    input,
    result.podErrors.map((e) => e.pod),
    scheduling,
  );
  const name = (h: (typeof holds)[number]): string =>
    `${h.pod.metadata?.namespace ?? ""}/${h.pod.metadata?.name ?? ""}`;
  return input.off.map((o) => ({
    nodePool: o.view.name,
    until: o.state.until?.toISOString() ?? null,
    pods: holds.filter((h) => h.nodePool === o.view.name).map(name),
  }));
}

/** file:line:column of the scenario document a ScenarioError names. */
function where(at: SourceObject | undefined, files: readonly string[]): string {
  return at === undefined ? `${files[0] ?? ""}:1:1` : `${at.file}:${at.position.line}:${at.position.column}`;
}

/** The --scheduler-config file's configuration (undefined without one); throws with the file's name. */
async function schedulerConfigOf(file: string | undefined): Promise<SchedulerConfig | undefined> {
  if (file === undefined) return undefined;
  try {
    return parseSchedulerConfig(parseYaml(await readFile(file, "utf8")));
  } catch (error) {
    throw new Error(`--scheduler-config ${file}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}

async function simulateFile(
  { region, files, format, options, scheduling, schedulerConfigFile }: Parsed,
  io: CliIo,
): Promise<number> {
  let objects: SourceObject[];
  let schedulerConfig: SchedulerConfig | undefined;
  try {
    schedulerConfig = await schedulerConfigOf(schedulerConfigFile);
    // Files, directories and - as kerf check reads them: Helm templates and non-Kubernetes files are skipped.
    objects = await readInputs(files, io.readStdin);
  } catch (error) {
    io.stderr(`kerf simulate: ${error instanceof Error ? error.message : String(error)}\n`);
    return ExitCode.usage;
  }
  if (objects.length === 0) {
    io.stderr(`kerf simulate: no Kubernetes objects in ${files.join(", ")}\n`);
    return ExitCode.usage;
  }
  try {
    const plan = planScenario(
      objects.map((o) => o.value),
      { options, scheduling, region, ...(schedulerConfig === undefined ? {} : { schedulerConfig }) },
    );
    io.stdout(format === "json" ? `${JSON.stringify(plan, null, 2)}\n` : formatText(plan));
    return ExitCode.ok;
  } catch (error) {
    if (!(error instanceof ScenarioError)) throw error;
    io.stderr(`kerf simulate: ${where(objects[error.document], files)}: ${error.message}\n`);
    return ExitCode.usage;
  }
}

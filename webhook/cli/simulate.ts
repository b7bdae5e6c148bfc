/** `kerf simulate -f SCENARIO.yaml`: runs the scheduling simulation on a scenario and prints the plan (NodeClaims, prices, unschedulable pods). */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { builtinCatalog } from "../../policies/domain/catalog/builtin.ts";
// The simulation is the operator's pure core; this CLI only reads, converts and prints (architecture §1.1 entry-point wiring).
import { buildScenario, ScenarioError } from "../../operator/core/scheduling/scenario.ts";
import { simulate, type SimulationResult } from "../../operator/core/scheduling/simulate.ts";
import { parseDocuments, type SourceObject } from "./documents.ts";
import { ExitCode } from "./exit-codes.ts";
import type { CliIo } from "./io.ts";

const usage = `Usage: kerf simulate -f SCENARIO.yaml [--format text|json]

Simulates Karpenter's scheduling on a scenario (multi-document YAML of NodePool, EC2NodeClass,
Pod, Deployment, DaemonSet and Node objects) against the built-in us-east-1 catalog and prints
the NodeClaims that would be launched, the unschedulable pods and the total hourly price.
`;

/** The JSON plan printed by `--format json`. */
export interface Plan {
  readonly nodeClaims: { nodePool: string; instanceType: string; capacityType: string; zone: string; pricePerHour: number; pods: string[] }[];
  readonly unschedulable: { pod: string; reason: string }[];
  readonly totalPricePerHour: number;
}

const podName = (p: { namespace: string; name: string }): string => `${p.namespace}/${p.name}`;

/** The plan of a simulation result. */
export function toPlan(result: SimulationResult): Plan {
  const nodeClaims = result.newClaims.map((c) => ({ nodePool: c.nodePool, ...c.launch, pods: c.pods.map(podName) }));
  const total = nodeClaims.reduce((s, c) => s + c.pricePerHour, 0);
  return { nodeClaims, unschedulable: result.podErrors.map((e) => ({ pod: podName(e.pod), reason: e.reason })), totalPricePerHour: Math.round(total * 1e6) / 1e6 };
}

/** The plan for people. */
export function formatText(plan: Plan): string {
  const lines: string[] = [];
  plan.nodeClaims.forEach((c, i) => {
    lines.push(`NodeClaim ${i + 1}: nodepool ${c.nodePool}, ${c.instanceType} ${c.capacityType} in ${c.zone}, $${c.pricePerHour.toFixed(4)}/h, ${c.pods.length} pod(s)`);
    lines.push(`  ${c.pods.join(", ")}`);
  });
  if (plan.unschedulable.length > 0) lines.push("Unschedulable:", ...plan.unschedulable.map((u) => `  ${u.pod}: ${u.reason}`));
  lines.push(`Total: ${plan.nodeClaims.length} node(s), $${plan.totalPricePerHour.toFixed(4)}/h`);
  return `${lines.join("\n")}\n`;
}

/** Runs `kerf simulate`. */
export async function runSimulate(args: readonly string[], io: CliIo): Promise<number> {
  let file: string | undefined;
  let format: string;
  try {
    const { values } = parseArgs({ args: [...args], options: { file: { type: "string", short: "f" }, format: { type: "string", default: "text" }, help: { type: "boolean", short: "h" } } });
    if (values.help === true) {
      io.stdout(usage);
      return ExitCode.ok;
    }
    file = values.file;
    format = values.format;
  } catch (error) {
    io.stderr(`kerf simulate: ${error instanceof Error ? error.message : String(error)}\n${usage}`);
    return ExitCode.usage;
  }
  if (file === undefined || (format !== "text" && format !== "json")) {
    io.stderr(`kerf simulate: ${file === undefined ? "-f SCENARIO.yaml is required" : `unknown format "${format}"`}\n${usage}`);
    return ExitCode.usage;
  }
  return simulateFile(file, format, io);
}

async function simulateFile(file: string, format: "text" | "json", io: CliIo): Promise<number> {
  let objects: SourceObject[];
  try {
    objects = parseDocuments(file, file === "-" ? await io.readStdin() : await readFile(file, "utf8"));
  } catch (error) {
    io.stderr(`kerf simulate: ${error instanceof Error ? error.message : String(error)}\n`);
    return ExitCode.usage;
  }
  try {
    const scenario = buildScenario(objects.map((o) => o.value), builtinCatalog());
    const plan = toPlan(simulate(scenario.snapshot, scenario.pending));
    io.stdout(format === "json" ? `${JSON.stringify(plan, null, 2)}\n` : formatText(plan));
    return ExitCode.ok;
  } catch (error) {
    if (!(error instanceof ScenarioError)) throw error;
    const at = objects[error.document]?.position;
    io.stderr(`kerf simulate: ${file}:${at?.line ?? 1}:${at?.column ?? 1}: ${error.message}\n`);
    return ExitCode.usage;
  }
}

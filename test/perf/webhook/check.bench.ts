/**
 * `kerf check` over 1,000 manifests (500 NodePools + 500 EC2NodeClasses from the examples, one per
 * file, unique names), wall time of the whole command including process start. Three runs; the
 * median is the figure. The CPU time the kerf process used is reported too: on a shared host it
 * shows how much of the wall time is kerf's own work rather than waiting for a core.
 * Two corpora with the same objects: block YAML (what teams commit; the figure the target is about)
 * and JSON (generated manifests, `kubectl get -o json`).
 * Usage: node test/perf/webhook/check.bench.ts [--manifests 1000] [--runs 3]
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { parseAllDocuments, stringify } from "yaml";

const root = path.resolve(import.meta.dirname, "../../..");
const { values } = parseArgs({
  options: { manifests: { type: "string", default: "1000" }, runs: { type: "string", default: "3" } },
});
const count = Number(values.manifests);

/** Every object of the passing examples, as templates to copy. */
function templates(): unknown[] {
  const dir = path.join(root, "manifests/examples");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .flatMap((f) => parseAllDocuments(readFileSync(path.join(dir, f), "utf8")).map((d) => d.toJS() as unknown));
}

type Manifest = Record<string, unknown> & {
  kind: string;
  metadata: { name: string };
  spec: { template?: { spec: { nodeClassRef: { name: string } } } };
};

/** Half EC2NodeClasses, half NodePools, each NodePool pointing at a renamed copy of its own class. */
function writeCorpus(dir: string, format: "yaml" | "json"): void {
  const all = templates() as unknown as Manifest[];
  const pools = all.filter((o) => o.kind === "NodePool");
  const classes = all.filter((o) => o.kind === "EC2NodeClass");
  const renamed = new Map<string, string>();
  const write = (i: number, object: Manifest): void => {
    const body = format === "json" ? JSON.stringify(object, null, 2) : stringify(object);
    writeFileSync(
      path.join(dir, `manifest-${String(i).padStart(4, "0")}.${format}`),
      `# generated for the kerf check benchmark\n${body}\n`,
    );
  };
  for (let i = 1; i < count; i += 2) {
    const copy = structuredClone(classes[((i - 1) / 2) % classes.length]!);
    if (!renamed.has(copy.metadata.name)) renamed.set(copy.metadata.name, `${copy.metadata.name}-${i}`);
    copy.metadata.name = `${copy.metadata.name}-${i}`;
    write(i, copy);
  }
  for (let i = 0; i < count; i += 2) {
    const copy = structuredClone(pools[(i / 2) % pools.length]!);
    copy.metadata.name = `${copy.metadata.name}-${i}`;
    const ref = copy.spec.template?.spec.nodeClassRef;
    if (ref !== undefined) ref.name = renamed.get(ref.name) ?? ref.name;
    write(i, copy);
  }
}

const CPU_REPORTER =
  "process.on('exit', () => { const u = process.cpuUsage(); " +
  "process.stderr.write(`KERF_BENCH_CPU_US ${u.user + u.system}\\n`); });";

/** Preloaded into the kerf process: prints the CPU time it used when it exits. */
const REPORT_CPU = `data:text/javascript,${encodeURIComponent(CPU_REPORTER)}`;

function measure(format: "yaml" | "json"): void {
  const dir = mkdtempSync(path.join(os.tmpdir(), "kerf-check-bench-"));
  try {
    writeCorpus(dir, format);
    const times: number[] = [];
    const cpu: number[] = [];
    let summary = "";
    for (let run = 0; run < Number(values.runs); run++) {
      const started = performance.now();
      const result = spawnSync(
        process.execPath,
        ["--import", REPORT_CPU, path.join(root, "webhook/cli/kerf.mjs"), "check", dir],
        { encoding: "utf8" },
      );
      times.push((performance.now() - started) / 1000);
      summary = result.stdout.trim().split("\n").at(-1) ?? "";
      if (result.status !== 0) throw new Error(`kerf check exited ${result.status}: ${result.stderr}`);
      const used = /KERF_BENCH_CPU_US (\d+)/.exec(result.stderr)?.[1];
      if (used !== undefined) cpu.push(Number(used) / 1e6);
    }
    times.sort((a, b) => a - b);
    cpu.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)] ?? 0;
    const cpuMedian = cpu[Math.floor(cpu.length / 2)];
    const benchResult = {
      name: `kerf-check-${format}-${count}`,
      medianSeconds: median,
      runsSeconds: times,
      medianCpuSeconds: cpuMedian,
      runsCpuSeconds: cpu,
    };
    process.stdout.write(
      [
        `kerf check benchmark (${format}): ${count} manifests in ${count} files, wall time including process start`,
        `runs (s): ${times.map((t) => t.toFixed(2)).join(", ")}; median ${median.toFixed(2)} s`,
        `kerf process CPU (user+sys, s): ${cpu.map((t) => t.toFixed(2)).join(", ")}; ` +
          `median ${cpuMedian?.toFixed(2) ?? "n/a"} s`,
        `last run: ${summary}`,
        `BENCH_RESULT ${JSON.stringify(benchResult)}`,
        "",
      ].join("\n"),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

measure("yaml");
measure("json");

/**
 * `npm run bench`: runs every benchmark `test/perf/<suite>/*.bench.ts` in its own process, relays
 * its output, and prints a summary of the result lines (`BENCH_RESULT {json}`) it reports.
 * Usage: node test/perf/run.ts [FILTER...]   (FILTER: substring of a bench file path; extra
 * arguments after `--` go to each bench).
 */
import { globSync } from "node:fs";
import { spawnSync } from "node:child_process";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");
const dash = process.argv.indexOf("--");
const filters = process.argv.slice(2, dash < 0 ? undefined : dash);
const passThrough = dash < 0 ? [] : process.argv.slice(dash + 1);
const files = globSync("test/perf/*/*.bench.ts", { cwd: root })
  .sort()
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)));

let failed = 0;
const summary: string[] = [];
for (const file of files) {
  console.log(`\n== ${file}`);
  const child = spawnSync(process.execPath, [file, ...passThrough], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  process.stdout.write(child.stdout);
  process.stderr.write(child.stderr);
  if (child.status !== 0) failed++;
  summary.push(`${child.status === 0 ? "ok  " : "FAIL"} ${file}`);
}
console.log(`\n${summary.join("\n")}\n${files.length} benchmark file(s), ${failed} failed`);
process.exitCode = failed === 0 && files.length > 0 ? 0 : 1;

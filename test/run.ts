/**
 * `npm test` orchestrator. Unit tests (pure code, `*.test.ts` beside the sources and under
 * test/unit) run while the real test environment starts; integration tests (test/integration)
 * then run one file at a time against that single environment, which is reset between files and
 * always torn down, also when a test fails or the run is interrupted.
 *
 * Without filters it also type-checks, lints and checks the formatting of the whole tree, each counted as one test.
 *
 * Usage: node test/run.ts [--unit-only] [FILTER...]   (FILTER: substring of a test file path)
 */
import { globSync, mkdtempSync, readFileSync } from "node:fs";
import { spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { startEnvironment, type Environment } from "./harness/environment.ts";

interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}

const root = path.resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const unitOnly = args.includes("--unit-only");
const filters = args.filter((a) => !a.startsWith("--"));

function find(patterns: string[]): string[] {
  const files = patterns.flatMap((p) => globSync(p, { cwd: root, exclude: (f) => f.includes("node_modules") }));
  return [...new Set(files)].sort().filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)));
}

function runNodeTest(files: string[], concurrency: number, env: NodeJS.ProcessEnv): Promise<Tally> {
  const tap = path.join(mkdtempSync(path.join(os.tmpdir(), "kerf-tap-")), "out.tap");
  const argv = [
    "--test",
    `--test-concurrency=${concurrency}`,
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    "--test-reporter=tap",
    `--test-reporter-destination=${tap}`,
    ...files,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: root, stdio: ["ignore", "inherit", "inherit"], env });
    child.on("error", reject);
    child.on("exit", () => resolve(tallyTap(tap)));
  });
}

function tallyTap(file: string): Tally {
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return { passed: 0, failed: 1, skipped: 0 };
  }
  const count = (name: string): number => Number(text.match(new RegExp(`^# ${name} (\\d+)$`, "m"))?.[1] ?? 0);
  return {
    passed: count("pass"),
    failed: count("fail") + count("cancelled"),
    skipped: count("skipped") + count("todo"),
  };
}

/** Type check, lint and format check, each counted as one test; their output is shown only when they fail. */
async function staticChecks(): Promise<Tally> {
  const checks: [string, string[]][] = [
    ["typecheck", [path.join(root, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", "tsconfig.json"]],
    [
      "lint",
      [
        path.join(root, "node_modules", "eslint", "bin", "eslint.js"),
        "--config",
        ".ci/eslint.config.mjs",
        "--max-warnings",
        "0",
        ".",
      ],
    ],
    // Prettier (.prettierrc.json; .prettierignore limits it to kerf's TypeScript): fails on any file that
    // `npm run format` would change, and lists those files.
    ["format", [path.join(root, "node_modules", "prettier", "bin", "prettier.cjs"), "--check", "."]],
  ];
  const tally: Tally = { passed: 0, failed: 0, skipped: 0 };
  for (const [name, argv] of checks) {
    const started = performance.now();
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      let output = "";
      const child = spawn(process.execPath, argv, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
      child.stdout.on("data", (c: Buffer) => {
        output += c.toString();
      });
      child.stderr.on("data", (c: Buffer) => {
        output += c.toString();
      });
      child.on("exit", (c) => resolve({ code: c, output }));
    });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (code === 0) {
      tally.passed += 1;
      process.stdout.write(`✔ ${name} (${seconds} s)\n`);
    } else {
      tally.failed += 1;
      process.stdout.write(`✖ ${name} failed (${seconds} s)\n${output}\n`);
    }
  }
  return tally;
}

async function main(): Promise<number> {
  const unitFiles = find([
    "policies/**/*.test.ts",
    "operator/**/*.test.ts",
    "webhook/**/*.test.ts",
    "test/unit/**/*.test.ts",
  ]);
  const integrationFiles = unitOnly ? [] : find(["test/integration/**/*.test.ts"]);
  let environment: Environment | undefined;
  const stop = async (): Promise<void> => {
    await environment?.stop();
    environment = undefined;
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      void stop().finally(() => process.exit(130));
    });
  }
  const envStarting =
    integrationFiles.length > 0 ? startEnvironment({ controlPlane: true, kwok: true, moto: true }) : undefined;
  envStarting?.catch(() => undefined);
  const totals: Tally = { passed: 0, failed: 0, skipped: 0 };
  const add = (t: Tally): void => {
    totals.passed += t.passed;
    totals.failed += t.failed;
    totals.skipped += t.skipped;
  };
  try {
    if (filters.length === 0) add(await staticChecks());
    if (unitFiles.length > 0) add(await runNodeTest(unitFiles, 2, process.env));
    if (envStarting !== undefined) {
      environment = await envStarting;
      process.stdout.write(
        `[test] environment ready in ${environment.startSeconds.toFixed(1)} s (${environment.describe()})\n`,
      );
      add(await runNodeTest(integrationFiles, 1, { ...process.env, ...environment.childEnv() }));
    }
  } catch (error) {
    process.stderr.write(`[test] starting the test environment: ${(error as Error).message}\n`);
    totals.failed += 1;
  } finally {
    await stop();
  }
  process.stdout.write(`\nkerf: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
  return totals.failed > 0 || totals.passed === 0 ? 1 : 0;
}

process.exitCode = await main();

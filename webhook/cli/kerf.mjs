#!/usr/bin/env node
// The `kerf` executable. kerf's sources are TypeScript that Node >= 22.19 runs directly; on an older
// system Node (20 on Debian bookworm) this launcher re-runs itself on the Node 24 that the `node`
// dependency installs into node_modules, so `npx kerf` works wherever npm does.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import module from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..", "..");
const [major, minor] = process.versions.node.split(".").map(Number);
const modern = major > 22 || (major === 22 && minor >= 19);

if (!existsSync(path.join(root, "node_modules", "yaml"))) {
  // A fresh clone (pre-commit's, or a CI checkout): install the pinned production dependencies once, before the
  // first run; later runs need no network. --prefer-offline takes what npm's cache holds without asking the
  // registry, and on a Node >= 22.19 --ignore-scripts skips the `node` package's download of Node 24 (its only
  // install script), which this launcher needs only on an older Node.
  process.stderr.write("kerf: first run in this checkout, installing dependencies (npm ci --omit=dev)...\n");
  const args = ["ci", "--omit=dev", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", ...(modern ? ["--ignore-scripts"] : [])];
  const npm = spawnSync("npm", args, { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  if (npm.status !== 0) {
    process.stderr.write(`kerf: installing dependencies with \`npm ${args.join(" ")}\` failed in ${root}; the first run needs ` +
      "the npm registry (or npm's cache holding kerf's dependencies); later runs work offline\n");
    process.exit(2);
  }
}

if (modern) {
  // Reuse V8 code caches (and stripped TypeScript) across runs: kerf check starts ~0.5 s faster once the
  // cache is warm. Node picks the directory (NODE_COMPILE_CACHE, else <tmpdir>/node-compile-cache) and
  // NODE_DISABLE_COMPILE_CACHE=1 turns it off; a cache that cannot be written is silently skipped.
  module.enableCompileCache?.();
  const { run } = await import(pathToFileURL(path.join(here, "main.ts")).href);
  process.exitCode = await run(process.argv.slice(2));
} else {
  const node24 = path.join(root, "node_modules", "node", "bin", "node");
  if (!existsSync(node24)) {
    process.stderr.write(`kerf: needs Node >= 22.19 (this is ${process.versions.node}); run \`npm ci\` in ${root} to install Node 24\n`);
    process.exit(2);
  }
  const child = spawnSync(node24, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: "inherit" });
  process.exit(child.status ?? 1);
}

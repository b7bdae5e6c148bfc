// The GitHub Action (action.yml) and the pre-commit hook (.pre-commit-hooks.yaml), run the way
// GitHub's runner and pre-commit run them, against the example manifests.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "yaml";

const root = path.resolve(import.meta.dirname, "../..");
const broken = "manifests/examples/broken";

interface Step {
  readonly id?: string;
  readonly shell?: string;
  readonly run?: string;
  readonly uses?: string;
  readonly if?: string;
  readonly env?: Record<string, string>;
  readonly with?: Record<string, string>;
  readonly "working-directory"?: string;
}

interface Action {
  readonly inputs: Record<string, { readonly default?: string }>;
  readonly outputs: Record<string, { readonly value: string }>;
  readonly runs: { readonly using: string; readonly steps: readonly Step[] };
}

const action = parse(readFileSync(path.join(root, "action.yml"), "utf8")) as Action;

interface ActionRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly outputs: Record<string, Record<string, string>>;
}

/**
 * The `${{ … }}` expressions the run steps use: inputs (with their defaults), the
 * action path, earlier steps' outputs.
 */
function expand(text: string, inputs: Record<string, string>, outputs: ActionRun["outputs"]): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expression: string) => {
    const input = /^inputs\.([\w-]+)$/.exec(expression);
    if (input !== null) return inputs[input[1]!] ?? action.inputs[input[1]!]?.default ?? "";
    if (expression === "github.action_path") return root;
    const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expression);
    if (output !== null) return outputs[output[1]!]?.[output[2]!] ?? "";
    throw new Error(`unsupported expression in action.yml: ${expression}`);
  });
}

function readOutputs(file: string): Record<string, string> {
  return Object.fromEntries(
    readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.includes("="))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
}

/**
 * Runs the action's `run:` steps in order, as the runner does for `shell: bash`, from
 * the repository root as workspace.
 */
function runAction(inputs: Record<string, string>): ActionRun {
  const temp = mkdtempSync(path.join(os.tmpdir(), "kerf-action-"));
  const outputs: ActionRun["outputs"] = {};
  let stdout = "";
  let stderr = "";
  try {
    for (const [index, step] of action.runs.steps.entries()) {
      if (step.run === undefined) continue;
      assert.equal(step.shell, "bash");
      const script = path.join(temp, `step-${index}.sh`);
      const outputFile = path.join(temp, `output-${index}`);
      writeFileSync(script, step.run);
      writeFileSync(outputFile, "");
      const stepEnv = Object.fromEntries(
        Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(v, inputs, outputs)]),
      );
      const cwd = step["working-directory"] === undefined ? root : expand(step["working-directory"], inputs, outputs);
      const env = {
        ...process.env,
        ...stepEnv,
        GITHUB_OUTPUT: outputFile,
        GITHUB_ACTION_PATH: root,
        GITHUB_WORKSPACE: root,
      };
      const result = spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", script], {
        cwd,
        env,
        encoding: "utf8",
      });
      stdout += result.stdout;
      stderr += result.stderr;
      if (step.id !== undefined) outputs[step.id] = readOutputs(outputFile);
      if (result.status !== 0) return { code: result.status ?? -1, stdout, stderr, outputs };
    }
    return { code: 0, stdout, stderr, outputs };
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

void describe("GitHub Action (action.yml)", () => {
  void it("is a composite action whose run steps take inputs through the environment only", () => {
    assert.equal(action.runs.using, "composite");
    for (const step of action.runs.steps) {
      if (step.run !== undefined)
        assert.doesNotMatch(step.run, /\$\{\{/, "inputs spliced into a script allow injection");
    }
    assert.equal(action.outputs["exit-code"]?.value, "${{ steps.check.outputs.exit-code }}");
  });

  void it("caches its dependencies by the lockfile's hash and installs them only on a cache miss", () => {
    const cache = action.runs.steps.find((s) => s.uses?.startsWith("actions/cache@") === true);
    assert.equal(cache?.with?.["path"], "${{ github.action_path }}/node_modules");
    assert.match(cache?.with?.["key"] ?? "", /\$\{\{ steps\.deps\.outputs\.key \}\}$/);
    const install = action.runs.steps.find((s) => s.run?.includes("npm ci") === true);
    assert.equal(install?.if, "${{ steps.cache.outputs.cache-hit != 'true' }}");
    const run = runAction({ paths: "manifests/examples" });
    // This Node is >= 22.19: no Node 24 is installed, and the key says so (a runner with an older Node caches both).
    assert.match(run.outputs["deps"]?.["key"] ?? "", /^kerf-deps-[0-9a-f]{20}-system-node$/);
  });

  void it("passes the examples: exit 0, no annotations, exit-code output 0", () => {
    const run = runAction({ paths: "manifests/examples" });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.doesNotMatch(run.stdout, /^::error/m);
    assert.equal(run.outputs["check"]?.["exit-code"], "0");
  });

  void it("fails on broken manifests with one ::error annotation per denied finding at its file and line", () => {
    const run = runAction({ paths: `${broken}/spot-too-narrow.yaml\n${broken}/budget-six-field-cron.yaml` });
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(
      run.stdout,
      new RegExp(
        "^::error file=manifests\\/examples\\/broken\\/spot-too-narrow\\.yaml,line=33,col=\\d+," +
          "title=kerf spot-diversity::NodePool\\/narrow-spot ",
        "m",
      ),
    );
    assert.match(
      run.stdout,
      /^::error file=manifests\/examples\/broken\/budget-six-field-cron\.yaml,line=\d+,col=\d+,title=kerf /m,
    );
    assert.equal(run.outputs["check"]?.["exit-code"], "1");
  });

  void it("applies the policy-config input", () => {
    const temp = mkdtempSync(path.join(os.tmpdir(), "kerf-action-config-"));
    try {
      const config = path.join(temp, "policy.yaml");
      writeFileSync(config, "policies:\n  spot-diversity: warn\n");
      const run = runAction({ paths: `${broken}/spot-too-narrow.yaml`, "policy-config": config });
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(run.stdout, /^::warning file=manifests\/examples\/broken\/spot-too-narrow\.yaml,line=33,/m);
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  });

  void it("writes SARIF for code scanning when upload-sarif is true, and uploads it with codeql-action even after a failed check", () => {
    const temp = mkdtempSync(path.join(os.tmpdir(), "kerf-action-sarif-"));
    try {
      const sarifFile = path.join(temp, "kerf.sarif");
      const run = runAction({
        paths: `${broken}/spot-too-narrow.yaml`,
        "upload-sarif": "true",
        "sarif-file": sarifFile,
      });
      assert.equal(run.code, 1);
      const sarif = JSON.parse(readFileSync(sarifFile, "utf8")) as {
        version: string;
        runs: Array<{
          results: Array<{
            ruleId: string;
            level: string;
            locations: Array<{
              physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } };
            }>;
          }>;
        }>;
      };
      assert.equal(sarif.version, "2.1.0");
      const result = sarif.runs[0]?.results.find((r) => r.ruleId === "spot-diversity");
      assert.equal(result?.level, "error");
      assert.deepEqual(
        [
          result?.locations[0]?.physicalLocation.artifactLocation.uri,
          result?.locations[0]?.physicalLocation.region.startLine,
        ],
        [`${broken}/spot-too-narrow.yaml`, 33],
      );
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
    const upload = action.runs.steps.find((s) => s.uses?.startsWith("github/codeql-action/upload-sarif@") === true);
    assert.match(upload?.if ?? "", /always\(\) && inputs\.upload-sarif == 'true'/);
    assert.equal(upload?.with?.["sarif_file"], "${{ inputs.sarif-file }}");
  });

  void it("passes the karpenter-version input to kerf check (an unbundled release is a usage error, exit 2)", () => {
    const passed = runAction({ paths: "manifests/examples", "karpenter-version": "v1.10" });
    assert.equal(passed.code, 0, passed.stdout + passed.stderr);
    const refused = runAction({ paths: "manifests/examples", "karpenter-version": "1.2.0" });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /^kerf check: selecting Karpenter API "1\.2\.0": not bundled \(bundled: 1\.0\.8, /m);
    assert.equal(refused.outputs["check"]?.["exit-code"], "2");
  });

  void it("passes the region input to kerf check: a zone of another region is denied", () => {
    const denied = runAction({ paths: "manifests/examples/production.yaml", region: "eu-west-1", format: "text" });
    assert.equal(denied.code, 1, denied.stdout + denied.stderr);
    assert.match(
      denied.stdout,
      /zone us-east-1a is in region us-east-1, but kerf checks against region eu-west-1 .*\[zone-region\]/,
    );
    const allowed = runAction({ paths: "manifests/examples/production.yaml", region: "us-east-1", format: "text" });
    assert.equal(allowed.code, 0, allowed.stdout + allowed.stderr);
  });

  void it("exits 2 on unreadable input", () => {
    const run = runAction({ paths: "no/such/dir" });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /reading no\/such\/dir: no such file or directory/);
  });
});

interface Hook {
  readonly id: string;
  readonly entry: string;
  readonly language: string;
  readonly files?: string;
  readonly exclude?: string;
  readonly args?: readonly string[];
  readonly require_serial?: boolean;
  readonly pass_filenames?: boolean;
}

const hooks = parse(readFileSync(path.join(root, ".pre-commit-hooks.yaml"), "utf8")) as Hook[];

void describe("pre-commit hook (.pre-commit-hooks.yaml)", () => {
  const hook = hooks.find((h) => h.id === "kerf-check");
  let repo = "";
  const git = (...args: string[]): string => {
    const result = spawnSync("git", args, { cwd: repo, encoding: "utf8" });
    assert.equal(result.status, 0, result.stderr);
    return result.stdout;
  };

  before(() => {
    repo = mkdtempSync(path.join(os.tmpdir(), "kerf-precommit-"));
    git("init", "-q");
  });
  after(() => rmSync(repo, { recursive: true, force: true }));

  /** The staged files pre-commit would pass: `files` matched and `exclude` not, searched anywhere in the path. */
  function selected(): string[] {
    const staged = git("diff", "--cached", "--name-only", "--diff-filter=ACMR")
      .split("\n")
      .filter((f) => f !== "");
    return staged.filter(
      (f) =>
        new RegExp(hook?.files ?? "").test(f) && (hook?.exclude === undefined || !new RegExp(hook.exclude).test(f)),
    );
  }

  /**
   * As pre-commit runs a `language: script` hook: the entry is a path in (its clone of) the hook
   * repository, executed with args and then the file names, in one process (require_serial), from
   * the root of the repository being committed to.
   */
  function runHook(env: NodeJS.ProcessEnv = process.env): { code: number; out: string; files: string[] } {
    const files = selected();
    const [script, ...entryArgs] = (hook?.entry ?? "").split(" ");
    const result = spawnSync(path.join(root, script!), [...entryArgs, ...(hook?.args ?? []), ...files], {
      cwd: repo,
      encoding: "utf8",
      env,
    });
    return { code: result.status ?? -1, out: result.stdout + result.stderr, files };
  }

  function stage(file: string, text: string): void {
    mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
    writeFileSync(path.join(repo, file), text);
    git("add", file);
  }

  void it("runs kerf check in one process on the staged files", () => {
    assert.ok(hook !== undefined);
    assert.equal(hook.language, "script");
    assert.deepEqual([hook.entry, hook.args], ["webhook/cli/kerf.mjs", ["check"]]);
    assert.equal(hook.require_serial, true);
    assert.notEqual(hook.pass_filenames, false);
  });

  void it("passes a commit of one valid NodePool without its EC2NodeClass (a notice, exit 0)", () => {
    const examples = readFileSync(path.join(root, "manifests/examples/default.yaml"), "utf8").split(/^---$/m);
    stage("pools/default.yaml", examples[1]!);
    stage("README.md", "# not YAML\n");
    stage("chart/templates/nodepool.yaml", "{{- if .Values.enabled }}\nkind: NodePool\n{{- end }}\n");
    const run = runHook();
    assert.deepEqual(run.files, ["pools/default.yaml"]);
    assert.equal(run.code, 0, run.out);
    assert.match(run.out, /notice NodePool\/default .*EC2NodeClass "default" was not checked/);
  });

  void it("fails the commit when a staged manifest is denied, naming file:line", () => {
    stage("pools/narrow.yaml", readFileSync(path.join(root, broken, "spot-too-narrow.yaml"), "utf8"));
    const run = runHook();
    assert.deepEqual(run.files, ["pools/default.yaml", "pools/narrow.yaml"]);
    assert.equal(run.code, 1, run.out);
    assert.match(run.out, /^pools\/narrow\.yaml:33:\d+: deny NodePool\/narrow-spot /m);
  });

  void it("runs offline once installed: no registry, no proxy, nothing fetched", () => {
    const unreachable = "http://127.0.0.1:9/";
    const offline = {
      ...process.env,
      npm_config_registry: unreachable,
      npm_config_offline: "true",
      HTTP_PROXY: unreachable,
      HTTPS_PROXY: unreachable,
      http_proxy: unreachable,
      https_proxy: unreachable,
    };
    const run = runHook(offline);
    assert.equal(run.code, 1, run.out);
    assert.doesNotMatch(run.out, /installing dependencies/);
  });

  void it("installs only the production dependencies on first use, from npm's cache when it holds them", () => {
    // A fresh clone: the launcher alone, and an `npm` on PATH that records its arguments and fails like an offline
    // npm with an empty cache.
    const clone = mkdtempSync(path.join(os.tmpdir(), "kerf-clone-"));
    try {
      mkdirSync(path.join(clone, "webhook", "cli"), { recursive: true });
      mkdirSync(path.join(clone, "bin"));
      writeFileSync(
        path.join(clone, "webhook", "cli", "kerf.mjs"),
        readFileSync(path.join(root, "webhook", "cli", "kerf.mjs")),
      );
      writeFileSync(
        path.join(clone, "bin", "npm"),
        `#!/bin/sh\necho "$@" > "${path.join(clone, "npm-args")}"\nexit 1\n`,
        { mode: 0o755 },
      );
      const env = { ...process.env, PATH: `${path.join(clone, "bin")}${path.delimiter}${process.env["PATH"] ?? ""}` };
      const result = spawnSync(process.execPath, [path.join(clone, "webhook", "cli", "kerf.mjs"), "check", "x.yaml"], {
        env,
        encoding: "utf8",
      });
      assert.equal(result.status, 2);
      assert.match(
        result.stderr,
        /first run needs the npm registry \(or npm's cache holding kerf's dependencies\); later runs work offline/,
      );
      const args = readFileSync(path.join(clone, "npm-args"), "utf8").trim().split(" ");
      assert.deepEqual(args.slice(0, 3), ["ci", "--omit=dev", "--prefer-offline"]);
      // This Node is >= 22.19: the `node` package's Node 24 download is skipped.
      assert.ok(args.includes("--ignore-scripts"), args.join(" "));
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
  });
});

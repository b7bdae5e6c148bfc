/**
 * One log line shape for the operator and the webhook (issue 24 item 4): level names, ISO-8601 UTC timestamps and
 * the same base fields, from the one factory (webhook/logging.ts, re-exported by operator/observability/logger.ts),
 * and from `kerf webhook` itself as the container runs it.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { createLogger, type LogComponent } from "../../operator/observability/logger.ts";
import { createPki } from "../harness/certs.ts";

type Line = Record<string, unknown>;

const BASE_FIELDS = ["app", "hostname", "level", "msg", "pid", "time", "version"];
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const root = path.resolve(import.meta.dirname, "../..");

function linesOf(app: LogComponent): Line[] {
  const lines: Line[] = [];
  const logger = createLogger(
    "debug",
    {
      write: (text: string) => {
        lines.push(JSON.parse(text) as Line);
      },
    },
    app,
  );
  logger.debug("d");
  logger.info("i");
  logger.warn({ nodeclaim: "default-abc" }, "w");
  logger.error(new Error("boom"), "e");
  return lines;
}

/** Runs `kerf webhook` until it logs that it listens; answers that line. */
async function webhookListeningLine(): Promise<Line> {
  const pki = await createPki(mkdtempSync(path.join(os.tmpdir(), "kerf-logging-")));
  const args = [
    path.join(root, "webhook/cli/kerf.mjs"),
    "webhook",
    `--tls-cert=${pki.apiserver.cert}`,
    `--tls-key=${pki.apiserver.key}`,
    "--port=0",
    "--host=127.0.0.1",
    "--karpenter-api=bundled",
    "--audit-interval=0",
  ];
  const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  try {
    return await new Promise<Line>((resolve, reject) => {
      let buffered = "";
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => {
        stderr += c.toString();
      });
      child.stdout.on("data", (c: Buffer) => {
        buffered += c.toString();
        const lines = buffered.split("\n");
        buffered = lines.pop() ?? "";
        for (const text of lines) {
          const line = JSON.parse(text) as Line;
          if (line["msg"] === "kerf webhook listening") resolve(line);
        }
      });
      child.on("exit", (code) => {
        reject(new Error(`kerf webhook exited (${String(code)}) before listening: ${stderr}`));
      });
    });
  } finally {
    child.kill("SIGTERM");
  }
}

void describe("kerf's log lines", () => {
  for (const app of ["kerf-operator", "kerf-webhook"] as const) {
    void it(`should write ${app} lines with level names, an ISO UTC time and the base fields`, () => {
      const lines = linesOf(app);
      assert.deepEqual(
        lines.map((l) => l["level"]),
        ["debug", "info", "warn", "error"],
      );
      for (const line of lines) {
        assert.match(String(line["time"]), ISO_UTC);
        assert.deepEqual(
          BASE_FIELDS.filter((f) => !(f in line)),
          [],
          `${app}: ${JSON.stringify(line)}`,
        );
        assert.equal(line["app"], app);
        assert.equal(line["version"], pkg.version);
        assert.equal(line["pid"], process.pid);
      }
      assert.equal(lines[2]?.["nodeclaim"], "default-abc", "fields stay top-level");
      assert.equal((lines[3]?.["err"] as { message?: string } | undefined)?.message, "boom");
    });
  }

  void it("should give both components the same fields on the same message", () => {
    const keys = (app: LogComponent): string[] => Object.keys(linesOf(app)[1] ?? {}).sort();
    assert.deepEqual(keys("kerf-operator"), keys("kerf-webhook"));
  });

  void it("should log from `kerf webhook`, as the container runs it, in the operator's line shape", async () => {
    const line = await webhookListeningLine();
    assert.equal(line["level"], "info");
    assert.equal(line["app"], "kerf-webhook");
    assert.match(String(line["time"]), ISO_UTC);
    assert.deepEqual(
      BASE_FIELDS.filter((f) => !(f in line)),
      [],
      JSON.stringify(line),
    );
  });
});

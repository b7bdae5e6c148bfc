/**
 * The released image (test/harness/release-image.ts builds and runs it without a Docker daemon): the CLI, `kerf
 * check` on the examples and the webhook answering AdmissionReviews over TLS. The operator in the image, started
 * from the rendered chart against the test environment: release-image-operator.test.ts.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import https from "node:https";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import { createPki, issueServingCertificate } from "../harness/certs.ts";
import { containerToolUnavailable, openReleaseImage, type ImageContainer } from "../harness/release-image.ts";
import { eventually } from "../harness/wait.ts";

const execFileAsync = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version: string };

const skip = containerToolUnavailable();
if (skip !== undefined) process.stdout.write(`# release-image: skipped: ${skip}\n`);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

function post(port: number, ca: Buffer, url: string, body: unknown): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const request = https.request(
      {
        host: "127.0.0.1",
        port,
        path: url,
        method: "POST",
        ca,
        servername: "localhost",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(data) },
      },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => {
          text += c.toString();
        });
        res.on("end", () => {
          try {
            resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) });
          } catch (error) {
            reject(error as Error);
          }
        });
      },
    );
    request.on("error", reject);
    request.end(data);
  });
}

function exampleNodePool(): Record<string, unknown> & { spec: Record<string, unknown> } {
  const docs = parseAllDocuments(readFileSync(path.join(root, "manifests/examples/production.yaml"), "utf8")).map(
    (d) => d.toJS() as { kind: string },
  );
  return structuredClone(docs.find((d) => d.kind === "NodePool")) as unknown as Record<string, unknown> & {
    spec: Record<string, unknown>;
  };
}

function review(uid: string, object: unknown): Record<string, unknown> {
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid,
      operation: "CREATE",
      userInfo: { username: "release-test" },
      object,
      dryRun: false,
      kind: { group: "karpenter.sh", version: "v1", kind: "NodePool" },
      resource: { group: "karpenter.sh", version: "v1", resource: "nodepools" },
    },
  };
}

void describe("the release image built from the Dockerfile without a daemon", { skip }, () => {
  let opened: ImageContainer | undefined;
  let container = "";
  let entrypoint: string[] = [];
  const children: ChildProcess[] = [];
  const dirs: string[] = [];

  // buildah's chroot run copies the process's output through a pipe of its own; once, on a loaded machine, a
  // short-lived `kerf --help` exited 0 with nothing copied (not reproduced in 9 runs since). Such an empty
  // success is run once more; a real failure (an exit code, any output) is never retried.
  async function run(args: string[], volumes: string[] = []): Promise<Run> {
    const first = await runOnce(args, volumes);
    return first.code === 0 && first.stdout === "" && first.stderr === "" ? runOnce(args, volumes) : first;
  }

  async function runOnce(args: string[], volumes: string[]): Promise<Run> {
    const argv = [
      "run",
      "--isolation",
      "chroot",
      ...volumes.flatMap((v) => ["--volume", v]),
      container,
      "--",
      ...entrypoint,
      ...args,
    ];
    try {
      const { stdout, stderr } = await execFileAsync("buildah", argv, { maxBuffer: 16 << 20 });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
    }
  }

  before(async () => {
    opened = await openReleaseImage();
    container = opened.container;
    entrypoint = [...opened.entrypoint];
    assert.deepEqual(entrypoint, ["kerf"], "the image's entrypoint");
    assert.equal(opened.user, "65532:65532", "the image runs as a numeric non-root user");
  });

  after(async () => {
    for (const child of children) {
      if (child.exitCode === null && child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGTERM");
        } catch {
          /* already gone */
        }
      }
    }
    await opened?.remove();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  void it("prints its commands with --help", async () => {
    const { code, stdout, stderr } = await run(["--help"]);
    assert.equal(code, 0, stderr);
    for (const command of ["check", "webhook", "simulate", "operator"])
      assert.match(stdout, new RegExp(`\\b${command}\\b`));
  });

  void it("reports package.json's version with --version, the version the release is tagged with", async () => {
    const { code, stdout } = await run(["--version"]);
    assert.equal(code, 0);
    assert.equal(stdout.trim(), `kerf ${pkg.version}`);
  });

  void it("checks the repository's examples as kerf on the host does", async () => {
    const inImage = await run(["check", "/manifests/examples"], [`${path.join(root, "manifests")}:/manifests:ro`]);
    const onHost = spawnSync(
      process.execPath,
      [path.join(root, "webhook/cli/kerf.mjs"), "check", "manifests/examples"],
      { cwd: root, encoding: "utf8" },
    );
    assert.equal(inImage.code, 0, inImage.stdout + inImage.stderr);
    assert.equal(inImage.code, onHost.status);
    assert.match(inImage.stdout, /Karpenter objects checked in \d+ files/);
    assert.equal(inImage.stdout.split("\n").at(-2), onHost.stdout.split("\n").at(-2), "the summary line");
  });

  void it("answers AdmissionReviews over TLS: a valid NodePool is allowed, weight 200 is denied", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "kerf-release-"));
    dirs.push(dir);
    const pki = await createPki(dir);
    const serving = await issueServingCertificate(pki.ca, dir, "kerf-webhook");
    // The webhook runs as uid 65532 in the image: the directory and key must be readable by it.
    await execFileAsync("chmod", ["0755", dir]);
    await execFileAsync("chmod", ["0644", serving.key, serving.cert]);
    const port = await freePort();
    const argv = [
      "run",
      "--isolation",
      "chroot",
      "--volume",
      `${dir}:/certs:ro`,
      container,
      "--",
      ...entrypoint,
      "webhook",
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--tls-cert",
      `/certs/${path.basename(serving.cert)}`,
      "--tls-key",
      `/certs/${path.basename(serving.key)}`,
      "--karpenter-api",
      "bundled",
    ];
    let log = "";
    const child = spawn("buildah", argv, { detached: true, stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    child.stdout.on("data", (c: Buffer) => {
      log += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      log += c.toString();
    });
    const ca = readFileSync(pki.ca.cert);
    const valid = exampleNodePool();
    // A webhook that exits ends the wait at once (an error inside eventually would only be retried).
    const answered = (await eventually(
      "the webhook in the image answering",
      async () => {
        if (child.exitCode !== null) return { exited: child.exitCode };
        return (await post(port, ca, "/validate", review("valid-1", valid))).json;
      },
      120_000,
      250,
    )) as { exited?: number; response: { uid: string; allowed: boolean } };
    assert.equal(answered.exited, undefined, `kerf webhook exited: ${log}`);
    assert.deepEqual([answered.response.uid, answered.response.allowed], ["valid-1", true], log);
    const invalid = { ...valid, spec: { ...valid.spec, weight: 200 } };
    const denied = (await post(port, ca, "/validate", review("invalid-1", invalid))).json as {
      response: { allowed: boolean; status?: { message: string } };
    };
    assert.equal(denied.response.allowed, false);
    assert.match(denied.response.status?.message ?? "", /weight/);
    process.kill(-(child.pid ?? 0), "SIGTERM");
    await eventually("kerf webhook stopped", () => child.exitCode !== null || child.signalCode !== null, 30_000);
  });
});

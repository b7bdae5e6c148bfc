/**
 * A child process of the test environment: output goes to a log file, readiness is polled, and
 * stop() always ends it (SIGTERM, then SIGKILL). Every live child is killed when this process
 * exits, so a crashed test run leaves nothing behind.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

const live = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

/** What to run. */
export interface ProcessSpec {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly logDir: string;
  readonly env?: Readonly<Record<string, string>>;
}

/** A started child process. */
export class ManagedProcess {
  readonly name: string;
  readonly logFile: string;
  readonly spec: ProcessSpec;
  private readonly child: ChildProcess;
  private readonly exit: Promise<number | null>;
  private exited = false;

  constructor(spec: ProcessSpec) {
    this.spec = spec;
    this.name = spec.name;
    this.logFile = path.join(spec.logDir, `${spec.name}.log`);
    const fd = openSync(this.logFile, "a");
    this.child = spawn(spec.command, spec.args, { stdio: ["ignore", fd, fd], env: { ...process.env, ...spec.env } });
    closeSync(fd);
    live.add(this.child);
    this.exit = new Promise((resolve) => {
      this.child.on("exit", (code) => {
        this.exited = true;
        live.delete(this.child);
        resolve(code);
      });
      this.child.on("error", () => {
        this.exited = true;
        live.delete(this.child);
        resolve(-1);
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }
  get running(): boolean {
    return !this.exited;
  }

  /** The last `lines` lines of the process's log, for error messages. */
  tail(lines = 20): string {
    try {
      return readFileSync(this.logFile, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
    } catch {
      return "(no log)";
    }
  }

  /** Polls `ready` until it returns true; fails early if the process exits. */
  async waitReady(ready: () => Promise<boolean>, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.exited) throw new Error(`starting ${this.name}: exited early; log tail:\n${this.tail()}`);
      if (await ready().catch(() => false)) return;
      await sleep(150);
    }
    throw new Error(`starting ${this.name}: not ready after ${timeoutMs} ms; log tail:\n${this.tail()}`);
  }

  /** Lets this process exit while the child runs; the exit hook above still kills the child. */
  unref(): void {
    this.child.unref();
  }

  /** Stops the process; resolves once it has exited. Idempotent. */
  async stop(graceMs = 5_000): Promise<void> {
    if (this.exited) return;
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), graceMs);
    await this.exit;
    clearTimeout(timer);
  }

  /** Kills the process with SIGKILL (no cleanup of its own, as a crash or an OOM kill); resolves once it has exited. */
  async kill(): Promise<void> {
    if (this.exited) return;
    this.child.kill("SIGKILL");
    await this.exit;
  }
}

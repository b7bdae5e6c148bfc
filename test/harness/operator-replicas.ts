/**
 * Operator replicas as child processes (operator-replica-process.ts) that a test can SIGKILL and start
 * again. Each start is a new incarnation with its own identity (`<name>-<n>`, as a restarted pod's
 * hostname_pid differs) and its own log file.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { ManagedProcess } from "./process.ts";

/** What every incarnation of a replica runs with. */
export interface ReplicaSpec {
  readonly name: string;
  readonly logDir: string;
  readonly kubeconfig: string;
  readonly ssmPrefix: string;
  /** Operator environment variables (CLUSTER_NAME, AWS_ENDPOINT_URL, LEADER_ELECTION_*, …); the identity is added. */
  readonly env: Readonly<Record<string, string>>;
  readonly disruption?: { readonly pollMs?: number; readonly validationDelayMs?: number };
}

const entry = path.join(import.meta.dirname, "operator-replica-process.ts");

/** One replica across its incarnations. */
export class ReplicaProcess {
  readonly spec: ReplicaSpec;
  private current: ManagedProcess | undefined;
  private readonly logs: string[] = [];
  incarnations = 0;

  constructor(spec: ReplicaSpec) {
    this.spec = spec;
  }

  /** The identity of the running incarnation (its Lease holderIdentity when it leads). */
  get identity(): string {
    return `${this.spec.name}-${this.incarnations}`;
  }

  get running(): boolean {
    return this.current?.running === true;
  }

  /** Starts a new incarnation; does not wait for it to be ready (see ready()). */
  start(): void {
    if (this.running) throw new Error(`starting replica ${this.spec.name}: already running`);
    this.incarnations += 1;
    const name = `${this.spec.name}-${this.incarnations}`;
    this.current = new ManagedProcess({
      name,
      command: process.execPath,
      args: [entry],
      logDir: this.spec.logDir,
      env: {
        KERF_REPLICA_ENV: JSON.stringify({ ...this.spec.env, LEADER_ELECTION_IDENTITY: name }),
        KERF_REPLICA_KUBECONFIG: this.spec.kubeconfig,
        KERF_REPLICA_SSM_PREFIX: this.spec.ssmPrefix,
        KERF_REPLICA_DISRUPTION: JSON.stringify(this.spec.disruption ?? {}),
      },
    });
    this.logs.push(this.current.logFile);
  }

  /** Whether the running incarnation has printed READY. */
  ready(): boolean {
    return this.running && this.logLines(this.logs.at(-1) ?? "").includes("READY");
  }

  /** SIGKILL: no Lease release, no cleanup, whatever it was doing. */
  async kill(): Promise<void> {
    await this.current?.kill();
  }

  /** SIGTERM: a polite stop (the Lease is released). */
  async stop(): Promise<void> {
    await this.current?.stop();
  }

  /** Every log line of every incarnation, oldest first. */
  allLogLines(): string[] {
    return this.logs.flatMap((file) => this.logLines(file));
  }

  private logLines(file: string): string[] {
    try {
      return readFileSync(file, "utf8").split("\n");
    } catch {
      return [];
    }
  }
}

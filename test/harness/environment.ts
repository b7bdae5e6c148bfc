/**
 * One real test environment: etcd + kube-apiserver, and on request kube-scheduler +
 * kube-controller-manager, kwok and moto, each on a free loopback port. The orchestrator
 * (test/run.ts) starts one per test run and hands its address to test files through the state file
 * named by KERF_TEST_ENV; a test file run on its own starts a private one (use-environment.ts).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureBinaries, type Binaries } from "./binaries.ts";
import { createPki, type Pki } from "./certs.ts";
import {
  startApiserver,
  startControllerManager,
  startEtcd,
  startKwok,
  startMoto,
  startPriceProxy,
  startScheduler,
  type Started,
  type Workspace,
} from "./components.ts";
import { writeKubeconfig } from "./kubeconfig.ts";

/** Which optional components to start. etcd and kube-apiserver always run. */
export interface EnvironmentOptions {
  /** kube-scheduler and kube-controller-manager (workload, PDB, GC, namespace and PV binder controllers). */
  readonly controlPlane?: boolean;
  readonly kwok?: boolean;
  readonly moto?: boolean;
}

/** What a test needs to reach the environment; serialised into the state file. */
export interface EnvironmentState {
  readonly dir: string;
  readonly ownerPid: number;
  readonly kubeconfig: string;
  readonly apiserverUrl: string;
  readonly etcdUrl: string;
  readonly ca: { readonly cert: string; readonly key: string };
  readonly awsEndpoint?: string;
  readonly kwok: boolean;
  readonly controlPlane: boolean;
  readonly pids: number[];
}

const root = path.resolve(import.meta.dirname, "..", "..");
const statePrefix = "kerf-env-";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Kills what an earlier, crashed run left behind (its owner is gone) and removes its files. */
export function reapStaleEnvironments(): void {
  for (const name of readdirSync(os.tmpdir()).filter((n) => n.startsWith(statePrefix))) {
    const dir = path.join(os.tmpdir(), name);
    let state: EnvironmentState | undefined;
    try {
      state = JSON.parse(readFileSync(path.join(dir, "state.json"), "utf8")) as EnvironmentState;
    } catch {
      state = undefined;
    }
    // A directory without a state file may belong to an environment that is being created right now.
    if (state === undefined && Date.now() - statSync(dir).mtimeMs < 10 * 60_000) continue;
    if (state !== undefined && alive(state.ownerPid)) continue;
    for (const pid of state?.pids ?? []) if (alive(pid)) process.kill(pid, "SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    rmSync(path.join("/dev/shm", `kerf-etcd-${name}`), { recursive: true, force: true });
  }
}

/** A running environment. stop() is idempotent and always tears everything down. */
export class Environment {
  readonly state: EnvironmentState;
  readonly startSeconds: number;
  private readonly ws: Workspace;
  private readonly pki: Pki;
  private readonly components: Map<string, Started>;

  constructor(args: {
    state: EnvironmentState;
    startSeconds: number;
    ws: Workspace;
    pki: Pki;
    components: Map<string, Started>;
  }) {
    this.state = args.state;
    this.startSeconds = args.startSeconds;
    this.ws = args.ws;
    this.pki = args.pki;
    this.components = args.components;
  }

  /** One line naming the components and their addresses. */
  describe(): string {
    return [...this.components].map(([name, c]) => `${name} ${c.url}`).join(", ");
  }

  /** Environment variables handing this environment to a child test process. */
  childEnv(): Record<string, string> {
    return { KERF_TEST_ENV: path.join(this.state.dir, "state.json") };
  }

  /** Stops kube-apiserver and starts it again on the same port (etcd keeps the data). */
  async restartApiserver(): Promise<void> {
    const current = this.components.get("kube-apiserver");
    if (current === undefined) throw new Error("restarting kube-apiserver: not running");
    await current.process.stop();
    const port = Number(new URL(current.url).port);
    this.components.set("kube-apiserver", await startApiserver(this.ws, this.pki, this.state.etcdUrl, port));
    this.writeState();
  }

  /** Stops every component, newest first, and deletes the environment's files. */
  async stop(): Promise<void> {
    for (const started of [...this.components.values()].reverse()) await started.process.stop();
    this.components.clear();
    rmSync(this.state.dir, { recursive: true, force: true });
    rmSync(path.join("/dev/shm", `kerf-etcd-${path.basename(this.state.dir)}`), { recursive: true, force: true });
  }

  /**
   * For a test file that owns a private environment: tear it down when the test process exits
   * (children killed, files removed, synchronously), without keeping the process alive.
   */
  stopOnExit(): void {
    for (const c of this.components.values()) c.process.unref();
    process.once("exit", () => {
      for (const c of this.components.values())
        if (c.process.pid !== undefined && c.process.running) process.kill(c.process.pid, "SIGKILL");
      rmSync(this.state.dir, { recursive: true, force: true });
      rmSync(path.join("/dev/shm", `kerf-etcd-${path.basename(this.state.dir)}`), { recursive: true, force: true });
    });
  }

  /** Records the current pids so a later run can reap them if this process dies. */
  writeState(): void {
    const pids = [...this.components.values()].flatMap((c) => (c.process.pid === undefined ? [] : [c.process.pid]));
    (this.state as { pids: number[] }).pids = pids;
    if (existsSync(this.state.dir))
      writeFileSync(path.join(this.state.dir, "state.json"), JSON.stringify(this.state, null, 2));
  }
}

async function startOptional(
  ws: Workspace,
  kubeconfig: string,
  options: EnvironmentOptions,
  add: (name: string, s: Started) => void,
): Promise<void> {
  const jobs: Promise<void>[] = [];
  if (options.controlPlane === true) {
    jobs.push(startScheduler(ws, kubeconfig).then((s) => add("kube-scheduler", s)));
    jobs.push(startControllerManager(ws, kubeconfig).then((s) => add("kube-controller-manager", s)));
  }
  if (options.kwok === true) jobs.push(startKwok(ws, kubeconfig).then((s) => add("kwok", s)));
  await Promise.all(jobs);
}

/** Builds (or finds cached) binaries, then starts the environment. On any failure, everything started is stopped. */
export async function startEnvironment(options: EnvironmentOptions = {}, binaries?: Binaries): Promise<Environment> {
  const started = performance.now();
  reapStaleEnvironments();
  const ws: Workspace = {
    dir: mkdtempSync(path.join(os.tmpdir(), statePrefix)),
    binaries: binaries ?? (await ensureBinaries(root)),
  };
  const components = new Map<string, Started>();
  const add = (name: string, s: Started): void => {
    components.set(name, s);
  };
  const partial = {
    dir: ws.dir,
    ownerPid: process.pid,
    kwok: options.kwok === true,
    controlPlane: options.controlPlane === true,
    pids: [] as number[],
  };
  writeFileSync(path.join(ws.dir, "state.json"), JSON.stringify(partial));
  try {
    const [pki, etcd, moto] = await Promise.all([
      createPki(ws.dir),
      startEtcd(ws),
      options.moto === true ? startMoto(ws) : Promise.resolve(undefined),
    ]);
    add("etcd", etcd);
    if (moto !== undefined) add("moto", moto);
    // Every AWS client talks to moto through the price proxy (seeded spot prices and a Pricing API).
    const aws = moto === undefined ? undefined : await startPriceProxy(ws, moto.url);
    if (aws !== undefined) add("price-proxy", aws);
    const apiserver = await startApiserver(ws, pki, etcd.url);
    add("kube-apiserver", apiserver);
    const kubeconfig = path.join(ws.dir, "kubeconfig");
    writeKubeconfig(kubeconfig, apiserver.url, pki);
    await startOptional(ws, kubeconfig, options, add);
    const state: EnvironmentState = {
      ...partial,
      kubeconfig,
      apiserverUrl: apiserver.url,
      etcdUrl: etcd.url,
      ca: pki.ca,
      ...(aws === undefined ? {} : { awsEndpoint: aws.url }),
    };
    const env = new Environment({ state, startSeconds: (performance.now() - started) / 1000, ws, pki, components });
    env.writeState();
    return env;
  } catch (error) {
    for (const c of [...components.values()].reverse()) await c.process.stop();
    rmSync(ws.dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Where the disruption controller's pure planner runs. PlannerThread runs it on one long-lived
 * worker thread (planner-thread.ts) so a pass — about a second of CPU at 1,000 nodes, several at
 * 5,000 — never holds the event loop that provisioning, termination and the leader Lease renewal
 * share; InProcessPlanner runs it inline (tests compare the two). A thread that dies (crash, out of
 * memory, a request past its deadline) is logged; the request fails, the controller retries the pass,
 * and the next request starts a fresh thread with a full sync. The operator never goes down with it.
 */
import module from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { Logger } from "pino";
import { planDisruption, type DisruptionInput } from "../../core/disruption/plan.ts";
import type { Command, DisruptionPlan } from "../../core/disruption/types.ts";
import { revalidate, type Validation } from "../../core/disruption/validation.ts";
import {
  digestOf,
  ObjectSync,
  paramsOf,
  rehydratePlan,
  rehydrateValidation,
  slimCommand,
  viewSource,
  type ObjectSource,
  type Reply,
  type Request,
  type WirePlan,
  type WireValidation,
} from "./planner-wire.ts";

/** A pass's plan and the CPU the planner spent on it. */
export interface PlanResult {
  readonly plan: DisruptionPlan;
  readonly cpuMs: number;
}

export interface Planner {
  /**
   * Gets ready without a cluster: the thread starts and loads its modules (~0.3 s of CPU) while the
   * informers still list, instead of inside the first pass.
   */
  warm(): void;
  /** Brings the planner up to `input` and answers its skipped-pass digest (planner-wire.ts digestOf). */
  sync(input: DisruptionInput): Promise<string>;
  plan(input: DisruptionInput): Promise<PlanResult>;
  revalidate(input: DisruptionInput, command: Command): Promise<Validation>;
  close(): Promise<void>;
}

/** The planner on the calling thread. */
export class InProcessPlanner implements Planner {
  private readonly objects = new ObjectSync();

  warm(): void {
    /* nothing to start */
  }

  sync(input: DisruptionInput): Promise<string> {
    this.objects.diff(input.cluster, input.instanceTypes);
    return Promise.resolve(digestOf(this.objects.version, paramsOf(input)));
  }

  plan(input: DisruptionInput): Promise<PlanResult> {
    const started = process.cpuUsage();
    const plan = planDisruption(input);
    const used = process.cpuUsage(started);
    return Promise.resolve({ plan, cpuMs: (used.user + used.system) / 1000 });
  }

  revalidate(input: DisruptionInput, command: Command): Promise<Validation> {
    return Promise.resolve(revalidate(input, command));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** A failure of the planner thread (it died, or a request ran past its deadline). */
export class PlannerThreadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PlannerThreadError";
  }
}

export interface PlannerThreadOptions {
  readonly logger: Logger;
  /** Where plans' NodeClaims, Nodes and Pods are read back from (the operator's caches). */
  readonly objects: ObjectSource;
  /** A request still unanswered after this long kills the thread (default 5 minutes). */
  readonly requestTimeoutMs?: number;
  /** Objects per sync message; the event loop turns between messages (default 2,000). */
  readonly chunk?: number;
}

interface Waiting {
  readonly resolve: (reply: Reply) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

const THREAD_URL = new URL("./planner-thread.ts", import.meta.url);
/** Node flags about the main entry point (a worker thread refuses --input-type). */
const ENTRY_FLAGS = ["--input-type", "--eval", "-e", "--print", "-p"];

/**
 * The thread's environment: the process's, with the process's compile cache named. The thread otherwise
 * strips and compiles its TypeScript modules again, loading Node's type stripper into its own heap
 * (~10-30 MiB RSS): module.enableCompileCache() (the kerf launcher's call) reaches only the calling
 * thread, NODE_COMPILE_CACHE (the image's) every thread. getCompileCacheDir() names the per-version
 * directory Node made inside the one it was given.
 */
function threadEnv(): NodeJS.ProcessEnv | undefined {
  const dir = module.getCompileCacheDir();
  if (dir === undefined || process.env["NODE_COMPILE_CACHE"] !== undefined) return undefined;
  return { ...process.env, NODE_COMPILE_CACHE: path.dirname(dir) };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The planner on its own long-lived worker thread. */
export class PlannerThread implements Planner {
  private readonly opts: PlannerThreadOptions;
  private worker: Worker | undefined;
  private objects = new ObjectSync({ project: true });
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  /** Syncs run one after another (a second waits for the first). */
  private syncing: Promise<unknown> = Promise.resolve();
  private synced: { cluster: unknown; types: unknown } | undefined;

  constructor(opts: PlannerThreadOptions) {
    this.opts = opts;
  }

  /** Threads started so far (the first one included): a figure for logs and tests. */
  started = 0;

  private thread(): Worker {
    if (this.worker !== undefined) return this.worker;
    // The thread inherits the process's Node flags, unless one describes the main entry (--input-type,
    // -e: a worker refuses them); then it runs with none.
    const entry = process.execArgv.some((a) => ENTRY_FLAGS.some((f) => a === f || a.startsWith(`${f}=`)));
    const env = threadEnv();
    const options = { ...(entry ? { execArgv: [] } : {}), ...(env === undefined ? {} : { env }) };
    const worker = new Worker(THREAD_URL, options);
    this.started += 1;
    worker.on("message", (reply: Reply) => this.received(reply));
    worker.on("error", (error) => this.died(worker, error));
    worker.on("exit", (code) => this.died(worker, new Error(`exited with code ${code}`)));
    // After the listeners (adding a 'message' listener refs the worker's port again): an idle thread
    // never keeps the process alive; one working on a request does (request()).
    worker.unref();
    this.worker = worker;
    return worker;
  }

  warm(): void {
    this.thread();
  }

  /** Forgets the thread and everything it held; waiting requests fail. */
  private died(worker: Worker, cause: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.objects = new ObjectSync({ project: true });
    this.synced = undefined;
    this.opts.logger.error({ err: cause }, "the disruption planner thread died; the pass is retried on a fresh thread");
    const error = new PlannerThreadError(`disruption planner thread: ${cause.message}`, { cause });
    for (const w of this.waiting.values()) {
      clearTimeout(w.timer);
      w.reject(error);
    }
    this.waiting.clear();
  }

  private received(reply: Reply): void {
    const w = this.waiting.get(reply.id);
    if (w === undefined) return;
    this.waiting.delete(reply.id);
    clearTimeout(w.timer);
    if (this.waiting.size === 0) this.worker?.unref();
    w.resolve(reply);
  }

  async sync(input: DisruptionInput): Promise<string> {
    const run = this.syncing.then(() => this.syncNow(input));
    this.syncing = run.catch(() => undefined);
    await run;
    return digestOf(this.objects.version, paramsOf(input));
  }

  private async syncNow(input: DisruptionInput): Promise<void> {
    const same = this.synced?.cluster === input.cluster && this.synced.types === input.instanceTypes;
    if (same && this.worker !== undefined) return;
    const worker = this.thread();
    const messages = this.objects.diff(input.cluster, input.instanceTypes, this.opts.chunk);
    for (const [i, message] of messages.entries()) {
      if (this.worker !== worker) throw new PlannerThreadError("disruption planner thread: died while syncing");
      worker.postMessage(message);
      if (i < messages.length - 1) await turn();
    }
    this.synced = { cluster: input.cluster, types: input.instanceTypes };
  }

  private async request(input: DisruptionInput, make: (id: number) => Request): Promise<Reply> {
    await this.sync(input);
    const worker = this.worker;
    if (worker === undefined) throw new PlannerThreadError("disruption planner thread: died while syncing");
    const id = this.nextId;
    this.nextId += 1;
    const reply = new Promise<Reply>((resolve, reject) => {
      const ms = this.opts.requestTimeoutMs ?? 5 * 60_000;
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new PlannerThreadError(`disruption planner thread: no answer within ${ms / 1000}s`));
        void worker.terminate();
      }, ms);
      timer.unref();
      this.waiting.set(id, { resolve, reject, timer });
    });
    worker.ref();
    worker.postMessage(make(id));
    const answer = await reply;
    if (answer.type === "error") throw new Error(`disruption planner: ${answer.message}`);
    return answer;
  }

  async plan(input: DisruptionInput): Promise<PlanResult> {
    const reply = await this.request(input, (id) => ({ type: "plan", id, params: paramsOf(input) }));
    const { plan, cpuMs } = reply as { plan: WirePlan; cpuMs: number };
    return { plan: rehydratePlan(plan, this.opts.objects, input.instanceTypes), cpuMs };
  }

  async revalidate(input: DisruptionInput, command: Command): Promise<Validation> {
    const params = paramsOf(input);
    const slim = slimCommand(command);
    const reply = await this.request(input, (id) => ({ type: "revalidate", id, params, command: slim }));
    const { validation } = reply as { validation: WireValidation };
    return rehydrateValidation(validation, this.opts.objects, input.instanceTypes);
  }

  /** Ends the thread (waiting requests fail). */
  async close(): Promise<void> {
    const worker = this.worker;
    if (worker === undefined) return;
    this.worker = undefined;
    const error = new PlannerThreadError("disruption planner thread: closed");
    for (const w of this.waiting.values()) {
      clearTimeout(w.timer);
      w.reject(error);
    }
    this.waiting.clear();
    await worker.terminate();
  }
}

/** Objects read back from a DisruptionInput's own cluster (tests). */
export const sourceOf = (input: DisruptionInput): ObjectSource => viewSource(input.cluster);

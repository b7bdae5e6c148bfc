/**
 * The playground run: a real local cluster with the kerf webhook and operator, the example NodePool
 * and EC2NodeClass, and the inflate Deployment scaled through the requested steps while the live view
 * shows NodeClaims and Nodes arriving. Everything started is stopped again, newest first, on every path.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { CustomObjectsApi, KubeConfig, VersionApi } from "@kubernetes/client-node";
import { builtinCatalog } from "../../policies/domain/catalog/builtin.ts";
import { installCrds } from "../harness/crds.ts";
import { startEnvironment } from "../harness/environment.ts";
import { generatedCrds } from "../harness/karpenter-crds.ts";
import { KubeletSim } from "../harness/kubelet-sim.ts";
import type { AwsTestConfig } from "../harness/use-environment.ts";
import type { PlaygroundOptions } from "./flags.ts";
import { startPlaygroundOperator } from "./operator.ts";
import { seedMoto } from "./seed.ts";
import { catalogPrices, observe, render, type ViewState } from "./view.ts";
import { timelineSvg, type TimelineSample, type TimelineStep } from "./timeline.ts";
import { startPlaygroundWebhook } from "./webhook.ts";
import { applyExamples, createInflate, scaleInflate } from "./workload.ts";

export const CLUSTER = "kerf-playground";

/** Where the playground writes, and how it is stopped. */
export interface PlaygroundIo {
  readonly out: (line: string) => void;
  readonly color: boolean;
  /** Aborted on Ctrl-C: the run stops everything and resolves. */
  readonly signal: AbortSignal;
}

/** Highest figures seen by the live view, for the closing summary. */
interface Peaks {
  claims: number;
  readyNodes: number;
  running: number;
  types: Set<string>;
}

class Interrupted extends Error {}

/** Things to stop, newest first; each gets a deadline so a dead apiserver cannot hang the exit. */
class Teardown {
  private readonly steps: { what: string; stop: () => Promise<void> }[] = [];
  add(what: string, stop: () => Promise<void>): void {
    this.steps.push({ what, stop });
  }
  async run(out: (line: string) => void): Promise<void> {
    for (const step of this.steps.reverse()) {
      const deadline = sleep(15_000, "timeout", { ref: false });
      const result = await Promise.race([
        step.stop().then(
          () => "ok",
          (e: unknown) => (e as Error).message,
        ),
        deadline,
      ]);
      if (result !== "ok") out(`stopping ${step.what}: ${result}`);
    }
  }
}

/** The operator's gates as `Name=bool, …`, sorted by name (what --feature-gates set, over the defaults). */
export function gateList(gates: Readonly<Record<string, boolean>>): string {
  return Object.entries(gates)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, on]) => `${name}=${on}`)
    .join(", ");
}

async function kubernetesMinor(kc: KubeConfig): Promise<string> {
  const v = await kc.makeApiClient(VersionApi).getCode();
  return `${v.major}.${v.minor.replace(/\D+$/, "")}`;
}

function check(signal: AbortSignal): void {
  if (signal.aborted) throw new Interrupted();
}

/** Sleeps `ms`; returns false when interrupted first. */
async function hold(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/** Polls the cluster every interval and prints a frame whenever it differs from the previous one. */
function liveView(
  kc: KubeConfig,
  o: { intervalMs: number; io: PlaygroundIo; since: () => number; peaks: Peaks; samples: TimelineSample[] },
): () => Promise<void> {
  const price = catalogPrices(builtinCatalog());
  let last = "";
  let stopped = false;
  const frame = (state: ViewState): void => {
    o.samples.push({
      atMs: o.since(),
      running: state.running,
      readyNodes: state.readyNodes,
      costPerHour: state.costPerHour,
    });
    o.peaks.claims = Math.max(o.peaks.claims, state.claims.length);
    o.peaks.readyNodes = Math.max(o.peaks.readyNodes, state.readyNodes);
    o.peaks.running = Math.max(o.peaks.running, state.running);
    for (const c of state.claims) if (c.instanceType !== "-") o.peaks.types.add(`${c.instanceType}/${c.capacityType}`);
    const lines = render(state, { color: o.io.color });
    const text = lines.join("\n");
    if (text === last) return;
    last = text;
    const stamp = `[${(o.since() / 1000).toFixed(1).padStart(6)}s]`;
    o.io.out(`${stamp} ${lines[0] ?? ""}`);
    for (const line of lines.slice(1)) o.io.out(`${" ".repeat(stamp.length)}${line}`);
  };
  const loop = (async () => {
    while (!stopped) {
      try {
        frame(await observe(kc, price));
      } catch {
        /* the next tick retries; the apiserver may be busy */
      }
      await sleep(o.intervalMs);
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}

/** How much longer than --hold the last step waits for consolidation to remove empty nodes after scaling to 0. */
const CONSOLIDATION_GRACE_MS = 60_000;

/** After a step to 0: waits (up to the grace) until no NodeClaim is left, and says how it went. */
async function awaitConsolidation(
  kc: KubeConfig,
  io: PlaygroundIo,
  since: () => number,
  startedAt: number,
): Promise<boolean> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const count = async (): Promise<number> =>
    (
      (await custom.listClusterCustomObject({ group: "karpenter.sh", version: "v1", plural: "nodeclaims" })) as {
        items: unknown[];
      }
    ).items.length;
  const deadline = since() + CONSOLIDATION_GRACE_MS;
  let left = await count();
  while (left > 0 && since() < deadline) {
    if (!(await hold(500, io.signal))) return false;
    left = await count();
  }
  const took = ((since() - startedAt) / 1000).toFixed(1);
  io.out(
    left === 0
      ? `consolidation: every empty node removed ${took} s after scaling to 0`
      : `consolidation: ${left} NodeClaim(s) still there ${took} s after scaling to 0 (see the operator log)`,
  );
  return true;
}

async function scaleThroughSteps(
  kc: KubeConfig,
  options: PlaygroundOptions,
  io: PlaygroundIo,
  timing: { since: () => number; steps: TimelineStep[] },
): Promise<boolean> {
  const { since } = timing;
  for (const [i, replicas] of options.steps.entries()) {
    check(io.signal);
    await scaleInflate(kc, replicas);
    const at = since();
    timing.steps.push({ atMs: at, replicas });
    io.out(
      `[${(at / 1000).toFixed(1).padStart(6)}s] step ${i + 1}/${options.steps.length}: ` +
        `inflate → ${replicas} replicas (holding ${options.holdMs / 1000} s)`,
    );
    if (!(await hold(options.holdMs, io.signal))) return false;
    if (replicas === 0 && i === options.steps.length - 1 && !(await awaitConsolidation(kc, io, since, at)))
      return false;
  }
  return true;
}

async function bringUp(
  options: PlaygroundOptions,
  io: PlaygroundIo,
  teardown: Teardown,
  logDir: string,
): Promise<{ kc: KubeConfig; kubeconfig: string }> {
  io.out(
    "kerf playground: starting etcd, kube-apiserver, kube-scheduler, kube-controller-manager, " +
      "kwok and moto (the first run builds them: ~35 min)",
  );
  const env = await startEnvironment({ controlPlane: true, kwok: true, moto: true });
  teardown.add("the environment", () => env.stop());
  io.out(`environment ready in ${env.startSeconds.toFixed(1)} s: ${env.describe()}`);
  check(io.signal);
  const kc = new KubeConfig();
  kc.loadFromFile(env.state.kubeconfig);
  const aws: AwsTestConfig = {
    endpoint: env.state.awsEndpoint ?? "",
    region: options.region,
    credentials: { accessKeyId: "testing", secretAccessKey: "testing" },
  };
  await installCrds(kc, generatedCrds());
  const seeded = await seedMoto(aws, {
    clusterName: CLUSTER,
    ssmPrefix: options.ssmPrefix,
    kubernetesVersion: await kubernetesMinor(kc),
    zones: [`${options.region}a`, `${options.region}b`],
  });
  io.out(`region ${options.region}: the operator discovers instance types, zones and prices there (moto, price proxy)`);
  io.out(
    `moto seeded: subnets ${[...seeded.subnets.values()].join(", ")}, ` +
      `security groups ${seeded.securityGroups.join(", ")}, ` +
      `AMIs ${Object.values(seeded.amis).join(", ")} under ${options.ssmPrefix}, node role ${seeded.nodeRole}`,
  );
  check(io.signal);
  const webhook = await startPlaygroundWebhook({
    kubeConfig: kc,
    kubeconfigFile: env.state.kubeconfig,
    ca: env.state.ca,
    dir: logDir,
    logFile: path.join(logDir, "webhook.log"),
    region: options.region,
  });
  teardown.add("the webhook", () => webhook.stop());
  const operator = await startPlaygroundOperator({
    kubeConfig: kc,
    aws,
    clusterName: CLUSTER,
    ssmPrefix: options.ssmPrefix,
    logFile: path.join(logDir, "operator.log"),
    featureGates: options.featureGates,
  });
  teardown.add("the operator", () => operator.stop());
  io.out(`kerf operator metrics: http://127.0.0.1:${operator.servers.at(-1)?.port ?? 0}/metrics`);
  io.out(`kerf operator feature gates: ${gateList(operator.config.featureGates)}`);
  const sim = new KubeletSim({ kubeConfig: kc, aws, clusterName: CLUSTER });
  sim.start();
  teardown.add("the kubelet simulator", () => sim.stop());
  io.out(
    `kerf webhook on https://127.0.0.1:${webhook.port} (registered), kerf operator running, ` +
      `kubelet simulator joining instances as kwok Nodes`,
  );
  check(io.signal);
  const applied = await applyExamples(kc);
  await createInflate(kc);
  io.out(
    `applied ${applied.join(", ")} (manifests/examples/playground/) and deployment/inflate ` +
      `(0 replicas, 1Gi pause pods)`,
  );
  io.out(`kubeconfig: ${env.state.kubeconfig}   logs: ${logDir}`);
  return { kc, kubeconfig: env.state.kubeconfig };
}

/** Runs the playground; resolves to the exit code (0 after the steps or on Ctrl-C, 1 when something fails to start). */
export async function runPlayground(options: PlaygroundOptions, io: PlaygroundIo): Promise<number> {
  const logs = options.logs;
  const teardown = new Teardown();
  const logDir = logs ?? mkdtempSync(path.join(os.tmpdir(), "kerf-playground-"));
  if (logs === undefined)
    teardown.add("the log directory", async () => {
      rmSync(logDir, { recursive: true, force: true });
    });
  else mkdirSync(logDir, { recursive: true });
  const peaks: Peaks = { claims: 0, readyNodes: 0, running: 0, types: new Set() };
  let code = 0;
  try {
    const { kc, kubeconfig } = await bringUp(options, io, teardown, logDir);
    const started = performance.now();
    const since = (): number => performance.now() - started;
    const samples: TimelineSample[] = [];
    const steps: TimelineStep[] = [];
    teardown.add("the live view", liveView(kc, { intervalMs: options.intervalMs, io, since, peaks, samples }));
    // Added after the live view, so it runs first at teardown: the picture of everything seen so far.
    teardown.add("the timeline", async () => {
      writeFileSync(
        options.timeline,
        timelineSvg(samples, steps, `kerf playground: inflate ${options.steps.join(" → ")}`),
      );
      io.out(`timeline (pods, nodes, $/h): ${options.timeline}`);
    });
    const finished = await scaleThroughSteps(kc, options, io, { since, steps });
    if (finished && options.keep) {
      io.out(
        `all steps done; still running until Ctrl-C. ` +
          `Try: KUBECONFIG=${kubeconfig} kubectl get nodeclaims,nodes,pods -o wide`,
      );
      await new Promise<void>((resolve) => {
        if (io.signal.aborted) resolve();
        else io.signal.addEventListener("abort", () => resolve(), { once: true });
      });
    }
  } catch (error) {
    if (!(error instanceof Interrupted) && !io.signal.aborted) {
      io.out(`kerf playground: ${(error as Error).message}`);
      code = 1;
    }
  } finally {
    io.out("stopping: live view, kubelet simulator, operator, webhook, environment");
    await teardown.run(io.out);
  }
  io.out(
    `summary: peak ${peaks.claims} NodeClaims (${[...peaks.types].sort().join(", ") || "none"}), ` +
      `${peaks.readyNodes} Nodes ready, ${peaks.running} inflate pods running; everything stopped`,
  );
  return code;
}

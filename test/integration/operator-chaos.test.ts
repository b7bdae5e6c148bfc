/**
 * Chaos on the real environment: two operator replicas as child processes with leader election, the
 * kubelet simulation, a NodePool that consolidates at once under a 50% budget, and a workload scaled
 * up and down on a seeded schedule, with a NodePool label change partway (drift) and one spot
 * interruption message on a moto SQS queue. Meanwhile a replica is SIGKILLed at seeded moments (and
 * started again), kube-apiserver restarts once, and the fault proxy throttles, fails (5xx) and times
 * out a seeded share of the EC2, SQS and SSM requests. Sampled every 250 ms: no NodePool over its
 * disruption budget. Afterwards, with faults stopped and the workload settled: no running instance
 * without a NodeClaim, no NodeClaim without an instance or still drifted, no Node without a NodeClaim, no stale
 * karpenter.sh/disrupted taint, every pod Running.
 *
 * A second test then kills the leader at a disruption command's most fragile moments: right after
 * the command is marked and right after its replacement launches, in a drift-only NodePool
 * (`consolidateAfter: Never`, where emptiness would never remove an orphan replacement). The next
 * leader resumes or abandons the command from the intent recorded on its NodeClaims; afterwards no
 * stale taint, no recorded command, and no NodeClaim the pods do not need.
 *
 * KERF_CHAOS_SEED picks the seed (printed; the default is fixed so `npm test` reproduces), and
 * KERF_CHAOS_KILLS the number of SIGKILLs (12 here; `npm run chaos` runs 100). The seed fixes the
 * schedule (kill moments and targets, scale steps, fault draws), not the interleaving with the
 * processes' own timing. This file runs its own environment: it restarts kube-apiserver.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { CreateQueueCommand, SendMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { AppsV1Api, CoordinationV1Api, CoreV1Api, CustomObjectsApi, KubeConfig, Watch } from "@kubernetes/client-node";
import { mergePatch } from "../../operator/adapters/kube/client.ts";
import { COMMAND_ANNOTATION, parseIntent } from "../../operator/core/disruption/intent.ts";
import { allowedDisruptions, DISRUPTION_REASONS, type BudgetSpec } from "../../policies/domain/budgets.ts";
import { startEnvironment, type Environment } from "../harness/environment.ts";
import { startFaultProxy, type FaultProxy } from "../harness/fault-proxy.ts";
import { KubeletSim } from "../harness/kubelet-sim.ts";
import { ReplicaProcess } from "../harness/operator-replicas.ts";
import { createTestNamespace } from "../harness/reset.ts";
import type { TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { prng } from "../perf/scheduling/generator.ts";
import { CLUSTER, SSM_PREFIX } from "./aws-fixtures.ts";
import { consistency, prepareCluster, WORKSHOP_FAMILIES, type Claim } from "./provisioning-fixtures.ts";

const SEED = Number(process.env["KERF_CHAOS_SEED"] ?? 15_14);
const KILLS = Number(process.env["KERF_CHAOS_KILLS"] ?? 12);
const POOL = "chaos";
const BUDGETS: BudgetSpec[] = [{ nodes: "50%" }];
/** Share of EC2/SQS/SSM requests that get a fault while the chaos lasts. */
const FAULT_RATE = 0.15;
/** Large and xlarge only, with 3Gi pods: a handful of nodes, so a 50% budget has something to limit. */
const SIZES = { key: "karpenter.k8s.aws/instance-size", operator: "In", values: ["large", "xlarge"] };
const NODEPOOLS = { group: "karpenter.sh", version: "v1", plural: "nodepools" } as const;
/** The second test's drift-only pool and its one-pod-per-node workload. */
const DRIFT_POOL = "chaos-drift";
const DRIFT_REPLICAS = 3;

type Rand = () => number;
const between = (rand: Rand, lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));

/** One planned action of the schedule, `at` ms after the chaos starts. */
type Step =
  | { at: number; kind: "kill"; leader: boolean; pick: number; restartAfterMs: number }
  | { at: number; kind: "scale"; replicas: number }
  | { at: number; kind: "drift" | "apiserver" | "interrupt" };

/**
 * The whole seeded schedule: KILLS kills 5–12 s apart (a restarted replica needs a few seconds to
 * start and take the Lease, so closer kills leave the leader no time to disrupt anything), scale steps 6–14 s
 * apart, and the three one-off events. */
function plan(rand: Rand): { steps: Step[]; durationMs: number; finalReplicas: number } {
  const steps: Step[] = [];
  let t = 0;
  for (let i = 0; i < KILLS; i += 1) {
    t += between(rand, 5_000, 12_000);
    steps.push({ at: t, kind: "kill", leader: rand() < 0.7, pick: rand(), restartAfterMs: between(rand, 0, 3_000) });
  }
  const durationMs = t + 5_000;
  for (let s = between(rand, 2_000, 6_000); s < durationMs; s += between(rand, 6_000, 14_000))
    steps.push({ at: s, kind: "scale", replicas: between(rand, 0, 16) });
  steps.push(
    { at: Math.round(durationMs * 0.3), kind: "interrupt" },
    { at: Math.round(durationMs * 0.4), kind: "apiserver" },
    { at: Math.round(durationMs * 0.5), kind: "drift" },
  );
  steps.sort((a, b) => a.at - b.at);
  return { steps, durationMs, finalReplicas: between(rand, 3, 10) };
}

interface Sample {
  claims: Claim[];
  tainted: Set<string>;
}

/**
 * The pool's NodeClaims followed by a watch: after each event the map is the state at that
 * resourceVersion, so every NodeClaim deleted while initialized is seen, however briefly (polled
 * samples on a busy host missed all of them once). Relists and watches again after an error (the
 * apiserver restarts once). `onState` runs after every event.
 */
class ClaimWatch {
  private readonly claims = new Map<string, Claim>();
  private running = true;
  private abort: (() => void) | undefined;
  private loop: Promise<void> = Promise.resolve();
  private readonly kc: KubeConfig;
  private readonly onState: (claims: Claim[]) => void;

  constructor(kc: KubeConfig, onState: (claims: Claim[]) => void) {
    this.kc = kc;
    this.onState = onState;
  }

  start(): void {
    this.loop = (async () => {
      while (this.running) {
        await this.session().catch(() => undefined);
        if (this.running) await sleep(250);
      }
    })();
  }

  private async session(): Promise<void> {
    const custom = this.kc.makeApiClient(CustomObjectsApi);
    const ref = { group: "karpenter.sh", version: "v1", plural: "nodeclaims" };
    type ClaimList = { items: Claim[]; metadata?: { resourceVersion?: string } };
    const list = (await custom.listClusterCustomObject(ref)) as ClaimList;
    this.claims.clear();
    const ours = list.items.filter((x) => x.metadata.labels?.["karpenter.sh/nodepool"] === POOL);
    for (const c of ours) this.claims.set(c.metadata.name, c);
    this.onState([...this.claims.values()]);
    const onEvent = (phase: string, obj: Claim): void => {
      if (obj.metadata?.labels?.["karpenter.sh/nodepool"] !== POOL) return;
      if (phase === "DELETED") this.claims.delete(obj.metadata.name);
      else this.claims.set(obj.metadata.name, obj);
      this.onState([...this.claims.values()]);
    };
    const from = { resourceVersion: list.metadata?.resourceVersion ?? "" };
    await new Promise<void>((resolve) => {
      void new Watch(this.kc)
        .watch("/apis/karpenter.sh/v1/nodeclaims", from, onEvent, () => resolve())
        .then(
          (req) => {
            this.abort = () => {
              req.abort();
              resolve();
            };
          },
          () => resolve(),
        );
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    this.abort?.();
    await this.loop;
  }
}

const initialized = (c: Claim): boolean =>
  c.status?.conditions?.some((x) => x.type === "Initialized" && x.status === "True") ?? false;
const drifted = (c: Claim): boolean =>
  c.status?.conditions?.some((x) => x.type === "Drifted" && x.status === "True") ?? false;
const claimKey = (claims: Claim[]): string =>
  claims
    .map((c) => `${c.metadata.name}/${c.metadata.deletionTimestamp ?? ""}/${initialized(c)}`)
    .sort()
    .join(",");

void describe("the operator under chaos: SIGKILLed replicas, an apiserver restart and AWS faults", () => {
  let cluster: Environment;
  let env: TestEnvironment;
  let proxy: FaultProxy;
  let sim: KubeletSim;
  let replicas: ReplicaProcess[] = [];
  /** The replicas' logs, removed when the test passes (kept, and printed, when it fails). */
  let logDir = "";
  let passed = false;
  let claimWatch: ClaimWatch | undefined;

  before(async () => {
    cluster = await startEnvironment({ controlPlane: true, kwok: true, moto: true });
    cluster.stopOnExit();
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(cluster.state.kubeconfig);
    const endpoint = cluster.state.awsEndpoint ?? "";
    env = {
      state: cluster.state,
      kubeConfig,
      reset: () => Promise.resolve(),
      aws: () => ({
        endpoint,
        region: "us-east-1",
        credentials: { accessKeyId: "testing", secretAccessKey: "testing" },
      }),
    };
    await prepareCluster(env);
    proxy = await startFaultProxy(endpoint);
    sim = new KubeletSim({ kubeConfig, aws: env.aws(), clusterName: CLUSTER });
    sim.start();
  });
  after(async () => {
    await claimWatch?.stop();
    await Promise.all(replicas.map((r) => r.stop()));
    await sim?.stop();
    await proxy?.stop();
    await cluster?.stop();
    if (passed && logDir !== "") rmSync(logDir, { recursive: true, force: true });
  });

  void it(`should stay within the disruption budget and converge with no leak (${KILLS} SIGKILLs)`, async () => {
    process.stdout.write(`# chaos seed ${SEED} (KERF_CHAOS_SEED=${SEED} reproduces the schedule), ${KILLS} kills\n`);
    const rand = prng(SEED);
    const schedule = plan(rand);
    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const apps = env.kubeConfig.makeApiClient(AppsV1Api);
    const leases = env.kubeConfig.makeApiClient(CoordinationV1Api);
    const sqs = new SQSClient(env.aws());
    const queue = `kerf-chaos-${SEED}`;
    const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: queue }))).QueueUrl ?? "";

    await custom.createClusterCustomObject({
      ...NODEPOOLS,
      body: {
        apiVersion: "karpenter.sh/v1",
        kind: "NodePool",
        metadata: { name: POOL },
        spec: {
          disruption: { consolidationPolicy: "WhenEmptyOrUnderutilized", consolidateAfter: "0s", budgets: BUDGETS },
          template: {
            spec: {
              nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
              requirements: [
                { key: "karpenter.sh/capacity-type", operator: "In", values: ["spot", "on-demand"] },
                WORKSHOP_FAMILIES,
                SIZES,
              ],
            },
          },
        },
      },
    });
    const namespace = await createTestNamespace(env.kubeConfig, POOL);
    const labels = { app: POOL };
    await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: POOL },
        spec: {
          replicas: 0,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              terminationGracePeriodSeconds: 0,
              nodeSelector: { "karpenter.sh/nodepool": POOL },
              containers: [
                {
                  name: "pause",
                  image: "public.ecr.aws/eks-distro/kubernetes/pause:3.7",
                  resources: { requests: { memory: "3Gi" } },
                },
              ],
            },
          },
        },
      },
    });

    logDir = mkdtempSync(path.join(os.tmpdir(), "kerf-chaos-"));
    const replicaEnv = {
      CLUSTER_NAME: CLUSTER,
      AWS_REGION: "us-east-1",
      AWS_ENDPOINT_URL: proxy.url,
      CLUSTER_ENDPOINT: cluster.state.apiserverUrl,
      LEADER_ELECTION_NAMESPACE: "default",
      LEADER_ELECTION_NAME: "kerf-chaos-leader",
      LEADER_ELECTION_LEASE_DURATION: "3s",
      LEADER_ELECTION_RENEW_DEADLINE: "2s",
      LEADER_ELECTION_RETRY_PERIOD: "250ms",
      INTERRUPTION_QUEUE: queue,
    };
    replicas = ["a", "b"].map(
      (name) =>
        new ReplicaProcess({
          name: `chaos-${name}`,
          logDir,
          kubeconfig: cluster.state.kubeconfig,
          ssmPrefix: SSM_PREFIX,
          env: replicaEnv,
          disruption: { pollMs: 1000, validationDelayMs: 2000 },
        }),
    );
    for (const r of replicas) r.start();
    await eventually("both replicas to start", () => replicas.every((r) => r.ready()), 120_000, 250);

    // Sampling: a budget check per consistent read (NodeClaims, Nodes, NodeClaims again, unchanged).
    let interrupted = "";
    let sampling = true;
    const figures = {
      samples: 0,
      skipped: 0,
      maxOvershoot: 0,
      worst: "",
      kills: 0,
      crashes: 0,
      mostInitialized: 0,
      mostDisrupting: 0,
    };
    const seen = new Set<string>();
    const disrupted = new Set<string>();
    /**
     * Checks the budget on one consistent state; `tainted`: providerIDs of Nodes with
     * the disrupted taint (if known).
     */
    const check = (claims: Claim[], tainted: ReadonlySet<string>): void => {
      figures.samples += 1;
      const counted = claims.filter(initialized);
      // The interrupted node goes whatever the budget says (Karpenter's interruption is not a disruption method).
      const going = (c: Claim): boolean =>
        c.metadata.deletionTimestamp !== undefined || tainted.has(c.status?.providerID ?? "");
      const disrupting = counted.filter((c) => c.metadata.name !== interrupted && going(c));
      for (const c of claims) seen.add(c.metadata.name);
      for (const c of disrupting) disrupted.add(c.metadata.name);
      figures.mostInitialized = Math.max(figures.mostInitialized, counted.length);
      figures.mostDisrupting = Math.max(figures.mostDisrupting, disrupting.length);
      const allowedFor = (r: (typeof DISRUPTION_REASONS)[number]): number =>
        allowedDisruptions(BUDGETS, r, counted.length, new Date()).allowed;
      const allowed = Math.max(...DISRUPTION_REASONS.map(allowedFor));
      if (disrupting.length - allowed > figures.maxOvershoot) {
        figures.maxOvershoot = disrupting.length - allowed;
        const names = disrupting.map((c) => c.metadata.name).join(", ");
        const disruptingOf = `${disrupting.length} disrupting of ${counted.length} initialized`;
        figures.worst = `${disruptingOf} (allowed ${allowed}): ${names}`;
      }
    };
    // NodeClaims deleted while initialized, checked at every watch event (tainted, not deleted ones: the sampler's).
    claimWatch = new ClaimWatch(env.kubeConfig, (claims) => check(claims, new Set()));
    claimWatch.start();
    const sampleOnce = async (): Promise<Sample | undefined> => {
      const ofPool = async (): Promise<Claim[]> =>
        (
          (await custom.listClusterCustomObject({ group: "karpenter.sh", version: "v1", plural: "nodeclaims" })) as {
            items: Claim[];
          }
        ).items.filter((c) => c.metadata.labels?.["karpenter.sh/nodepool"] === POOL);
      const first = await ofPool();
      const nodes = await core.listNode();
      const second = await ofPool();
      if (claimKey(first) !== claimKey(second)) return undefined;
      const tainted = new Set(
        nodes.items
          .filter((n) => (n.spec?.taints ?? []).some((t) => t.key === "karpenter.sh/disrupted"))
          .map((n) => n.spec?.providerID ?? ""),
      );
      return { claims: second, tainted };
    };
    const sampler = (async (): Promise<void> => {
      while (sampling) {
        const sample = await sampleOnce().catch(() => undefined);
        if (sample === undefined) figures.skipped += 1;
        else check(sample.claims, sample.tainted);
        await sleep(250);
      }
    })();

    const retry = <T>(what: string, fn: () => Promise<T>): Promise<T> =>
      eventually(what, async () => ({ value: await fn() }), 90_000, 500).then((v) => v.value);
    const leaderIdentity = async (): Promise<string | undefined> =>
      (await leases.readNamespacedLease({ name: "kerf-chaos-leader", namespace: "default" }).catch(() => undefined))
        ?.spec?.holderIdentity;
    const restarts: Promise<void>[] = [];
    const background: Promise<void>[] = [];
    const pendingRestart = new Set<ReplicaProcess>();
    // A replica that exited without being killed is counted and started again, as its Deployment would.
    const reviveCrashed = (): void => {
      for (const r of replicas)
        if (!r.running && !pendingRestart.has(r)) {
          figures.crashes += 1;
          r.start();
        }
    };

    const faultRand = prng(SEED ^ 0x5bd1e995);
    proxy.chaos({
      random: faultRand,
      rate: FAULT_RATE,
      timeoutMs: 3_000,
      applies: (action) => !/InstanceProfile|Role/.test(action),
    });
    const started = Date.now();
    for (const step of schedule.steps) {
      while (Date.now() - started < step.at) {
        reviveCrashed();
        await sleep(Math.min(200, step.at - (Date.now() - started)));
      }
      if (step.kind === "kill") {
        const leader = await leaderIdentity();
        const alive = replicas.filter((r) => r.running);
        // The leader when the step says so and it lives; otherwise any live replica, drawn from the schedule.
        const target =
          (step.leader ? alive.find((r) => r.identity === leader) : undefined) ??
          alive[Math.floor(step.pick * alive.length)];
        if (target === undefined) continue;
        await target.kill();
        figures.kills += 1;
        pendingRestart.add(target);
        restarts.push(
          sleep(step.restartAfterMs).then(() => {
            target.start();
            pendingRestart.delete(target);
          }),
        );
      } else if (step.kind === "scale") {
        background.push(
          retry("scaling the workload", () =>
            apps.patchNamespacedDeployment(
              { name: POOL, namespace, body: { spec: { replicas: step.replicas } } },
              mergePatch,
            ),
          ).then(() => undefined),
        );
      } else if (step.kind === "drift") {
        background.push(
          retry("relabelling the NodePool", () =>
            custom.patchClusterCustomObject(
              {
                ...NODEPOOLS,
                name: POOL,
                body: { spec: { template: { metadata: { labels: { "chaos-round": "b" } } } } },
              },
              mergePatch,
            ),
          ).then(() => undefined),
        );
      } else if (step.kind === "apiserver") {
        background.push(cluster.restartApiserver());
      } else {
        background.push(
          (async () => {
            const claim = await retry("a launched NodeClaim to interrupt", async () => {
              const { claims } = await consistency(env);
              const launched = claims
                .filter((c) => (c.status?.providerID ?? "") !== "" && c.metadata.deletionTimestamp === undefined)
                .sort((x, y) => x.metadata.name.localeCompare(y.metadata.name));
              if (launched.length === 0) throw new Error("no launched NodeClaim yet");
              return launched[0] as Claim;
            });
            interrupted = claim.metadata.name;
            const instance = /(i-[0-9a-z]+)$/.exec(claim.status?.providerID ?? "")?.[1] ?? "";
            const detail = { "instance-id": instance, "instance-action": "terminate" };
            const body = JSON.stringify({
              version: "0",
              id: crypto.randomUUID(),
              "detail-type": "EC2 Spot Instance Interruption Warning",
              source: "aws.ec2",
              account: "123456789012",
              time: new Date().toISOString(),
              region: "us-east-1",
              resources: [],
              detail,
            });
            await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
          })(),
        );
      }
    }
    await Promise.all([...restarts, ...background]);
    proxy.calm();
    const chaosMs = Date.now() - started;
    reviveCrashed();
    await retry("scaling the workload to its final size", () =>
      apps.patchNamespacedDeployment(
        { name: POOL, namespace, body: { spec: { replicas: schedule.finalReplicas } } },
        mergePatch,
      ),
    );
    // The budget check needs something to check. On a busy host the kills can starve the leaders of
    // any disruption during the chaos: then drift the pool once more, now that faults are off, once it
    // has an initialized NodeClaim (the settled state below has none drifted, so that one is replaced).
    if (disrupted.size === 0) {
      await eventually(
        "an initialized NodeClaim of the pool to drift",
        async () => {
          const { claims } = await consistency(env);
          return claims.some((c) => c.metadata.labels?.["karpenter.sh/nodepool"] === POOL && initialized(c))
            ? true
            : undefined;
        },
        180_000,
        500,
      );
      await retry("relabelling the NodePool again", () =>
        custom.patchClusterCustomObject(
          { ...NODEPOOLS, name: POOL, body: { spec: { template: { metadata: { labels: { "chaos-round": "c" } } } } } },
          mergePatch,
        ),
      );
    }

    // Settled: the GC window (30 s) and a few disruption rounds fit in the deadline.
    const settled = await eventually(
      "the cluster to settle with no leak",
      async () => {
        const [{ claims, instances, leaked, withoutInstance }, nodes, pods] = await Promise.all([
          consistency(env),
          core.listNode(),
          core.listNamespacedPod({ namespace }),
        ]);
        const claimed = new Set(claims.map((c) => c.status?.providerID ?? ""));
        const orphanNodes = nodes.items.filter((n) => !claimed.has(n.spec?.providerID ?? ""));
        const staleTaints = nodes.items.filter((n) =>
          (n.spec?.taints ?? []).some((t) => t.key === "karpenter.sh/disrupted"),
        );
        const running = pods.items.filter(
          (p) => p.status?.phase === "Running" && p.metadata?.deletionTimestamp === undefined,
        );
        const ok =
          leaked.length === 0 &&
          withoutInstance.length === 0 &&
          orphanNodes.length === 0 &&
          staleTaints.length === 0 &&
          running.length === schedule.finalReplicas &&
          pods.items.length === schedule.finalReplicas &&
          claims.every((c) => initialized(c) && c.metadata.deletionTimestamp === undefined && !drifted(c));
        return ok ? { claims: claims.length, instances: instances.length } : undefined;
      },
      300_000,
      500,
    );
    sampling = false;
    await sampler;
    await claimWatch.stop();
    claimWatch = undefined;

    const errorLines = replicas.flatMap((r) => r.allLogLines()).filter((l) => l.includes('"level":"error"'));
    const byMessage = new Map<string, number>();
    for (const line of errorLines) {
      const msg = (JSON.parse(line) as { msg?: string }).msg ?? "";
      byMessage.set(msg, (byMessage.get(msg) ?? 0) + 1);
    }
    const faults = [...proxy.injected].map(([k, v]) => `${k}: ${v}`).join(", ");
    process.stdout.write(
      `# chaos seed ${SEED}: ${figures.kills} SIGKILLs, ${figures.crashes} replicas exited on their own, ` +
        `chaos ${Math.round(chaosMs / 1000)} s, settled with ${settled.claims} NodeClaims / ` +
        `${settled.instances} instances and ${schedule.finalReplicas} pods Running; ` +
        `${seen.size} NodeClaims seen, ${disrupted.size} of them disrupted ` +
        `(at most ${figures.mostDisrupting} at once, of at most ${figures.mostInitialized} initialized); ` +
        `${figures.samples} budget samples (${figures.skipped} skipped as inconsistent), ` +
        `max overshoot ${figures.maxOvershoot}; ` +
        `${errorLines.length} operator error lines; faults injected: ${faults}\n`,
    );
    for (const [msg, n] of [...byMessage].sort((x, y) => y[1] - x[1]).slice(0, 8))
      process.stdout.write(`#   ${n} × ${msg}\n`);
    process.stdout.write(`# replica logs (removed if the test passes): ${logDir}\n`);

    assert.ok(figures.kills >= KILLS, `${figures.kills} kills, planned ${KILLS}`);
    assert.ok(figures.samples > 20, `only ${figures.samples} budget samples`);
    assert.ok(disrupted.size >= 1, "no NodeClaim was disrupted: the budget check saw nothing to check");
    assert.equal(figures.maxOvershoot, 0, `a NodePool went over its disruption budget: ${figures.worst}`);
    passed = true;
  });

  void it("should resume or abandon a drift command killed right after marking and right after launching (consolidateAfter: Never)", async () => {
    passed = false;
    assert.equal(replicas.length, 2, "the replicas the first test started");
    for (const r of replicas) if (!r.running) r.start();
    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const apps = env.kubeConfig.makeApiClient(AppsV1Api);
    const leases = env.kubeConfig.makeApiClient(CoordinationV1Api);
    await custom.createClusterCustomObject({
      ...NODEPOOLS,
      body: {
        apiVersion: "karpenter.sh/v1",
        kind: "NodePool",
        metadata: { name: DRIFT_POOL },
        spec: {
          disruption: { consolidationPolicy: "WhenEmpty", consolidateAfter: "Never", budgets: [{ nodes: "1" }] },
          template: {
            spec: {
              nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
              requirements: [
                { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
                WORKSHOP_FAMILIES,
                SIZES,
              ],
            },
          },
        },
      },
    });
    const namespace = await createTestNamespace(env.kubeConfig, DRIFT_POOL);
    const labels = { app: DRIFT_POOL };
    // One pod per node (required anti-affinity): each drifted node needs its own replacement, and an
    // orphan replacement stays empty, visible as a NodeClaim no pod needs.
    await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: DRIFT_POOL },
        spec: {
          replicas: DRIFT_REPLICAS,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              terminationGracePeriodSeconds: 0,
              nodeSelector: { "karpenter.sh/nodepool": DRIFT_POOL },
              affinity: {
                podAntiAffinity: {
                  requiredDuringSchedulingIgnoredDuringExecution: [
                    { topologyKey: "kubernetes.io/hostname", labelSelector: { matchLabels: labels } },
                  ],
                },
              },
              containers: [
                {
                  name: "pause",
                  image: "public.ecr.aws/eks-distro/kubernetes/pause:3.7",
                  resources: { requests: { memory: "1Gi" } },
                },
              ],
            },
          },
        },
      },
    });
    const ofPool = async (): Promise<Claim[]> =>
      (await consistency(env)).claims.filter((c) => c.metadata.labels?.["karpenter.sh/nodepool"] === DRIFT_POOL);
    const intentOf = (c: Claim) =>
      parseIntent((c.metadata as { annotations?: Record<string, string> }).annotations?.[COMMAND_ANNOTATION]);
    /** The pool settled: exactly the NodeClaims the pods need, none drifted, no taint, no recorded command, no leak. */
    const settled = async (): Promise<Claim[] | undefined> => {
      const [claims, { leaked, withoutInstance }, nodes, pods] = await Promise.all([
        ofPool(),
        consistency(env),
        core.listNode(),
        core.listNamespacedPod({ namespace }),
      ]);
      const running = pods.items.filter(
        (p) => p.status?.phase === "Running" && p.metadata?.deletionTimestamp === undefined,
      );
      const hosts = new Set(running.map((p) => p.spec?.nodeName ?? ""));
      const tainted = nodes.items.filter(
        (n) =>
          n.metadata?.labels?.["karpenter.sh/nodepool"] === DRIFT_POOL &&
          (n.spec?.taints ?? []).some((t) => t.key === "karpenter.sh/disrupted"),
      );
      const ok =
        leaked.length === 0 &&
        withoutInstance.length === 0 &&
        tainted.length === 0 &&
        running.length === DRIFT_REPLICAS &&
        pods.items.length === DRIFT_REPLICAS &&
        claims.length === DRIFT_REPLICAS &&
        claims.every(
          (c) =>
            initialized(c) &&
            c.metadata.deletionTimestamp === undefined &&
            !drifted(c) &&
            hosts.has(c.status?.nodeName ?? "") &&
            intentOf(c) === undefined,
        );
      return ok ? claims : undefined;
    };
    let before = await eventually(
      `${DRIFT_REPLICAS} pods on ${DRIFT_REPLICAS} NodeClaims of the drift-only pool`,
      settled,
      300_000,
      500,
    );
    const taintedNodes = async (): Promise<Set<string>> =>
      new Set(
        (await core.listNode()).items
          .filter(
            (n) =>
              n.metadata?.labels?.["karpenter.sh/nodepool"] === DRIFT_POOL &&
              (n.spec?.taints ?? []).some((t) => t.key === "karpenter.sh/disrupted"),
          )
          .map((n) => n.metadata?.name ?? ""),
      );

    const leaderIdentity = async (): Promise<string | undefined> =>
      (await leases.readNamespacedLease({ name: "kerf-chaos-leader", namespace: "default" }).catch(() => undefined))
        ?.spec?.holderIdentity;
    const restarts: Promise<void>[] = [];
    /** Kills the running leader (false while no live replica holds the Lease); it is started again 500 ms later. */
    const killLeader = async (): Promise<boolean> => {
      const leader = await leaderIdentity();
      const target = replicas.find((r) => r.running && r.identity === leader);
      if (target === undefined) return false;
      await target.kill();
      restarts.push(
        sleep(500).then(() => {
          target.start();
        }),
      );
      return true;
    };
    // The long run (KERF_CHAOS_KILLS) drifts the pool more than once.
    const rounds = Math.max(1, Math.floor(KILLS / 30));
    let kills = 0;
    for (let round = 1; round <= rounds; round += 1) {
      const moments = { marked: false, launched: false };
      let watching = true;
      // Polled every 100 ms: the moments below come and go within a few API calls of the leader.
      // Marked: a candidate carries the recorded command or its Node the disrupted taint. Launched: a
      // NodeClaim the pool did not have before the drift has an instance.
      const old = new Set(before.map((c) => c.metadata.name));
      const watcher = (async (): Promise<void> => {
        while (watching && !(moments.marked && moments.launched)) {
          const [claims, tainted] = await Promise.all([ofPool(), taintedNodes()]).catch(
            () => [[] as Claim[], new Set<string>()] as const,
          );
          const marked = claims.some((c) => intentOf(c)?.role === "candidate" || tainted.has(c.status?.nodeName ?? ""));
          if (!moments.marked && marked && (await killLeader())) {
            moments.marked = true;
            kills += 1;
          }
          const launched = claims.some((c) => !old.has(c.metadata.name) && (c.status?.providerID ?? "") !== "");
          if (moments.marked && !moments.launched && launched && (await killLeader())) {
            moments.launched = true;
            kills += 1;
          }
          await sleep(100);
        }
      })();
      await custom.patchClusterCustomObject(
        {
          ...NODEPOOLS,
          name: DRIFT_POOL,
          body: { spec: { template: { metadata: { labels: { "drift-round": String(round) } } } } },
        },
        mergePatch,
      );
      await eventually(
        `round ${round}: the leader killed right after a command was marked and right after its replacement launched`,
        () => (moments.marked && moments.launched ? true : undefined),
        300_000,
        250,
      );
      watching = false;
      await watcher;
      await Promise.all(restarts.splice(0));
      before = await eventually(
        `round ${round}: the drift-only pool to settle with only the NodeClaims its pods need`,
        settled,
        300_000,
        500,
      );
      process.stdout.write(
        `# drift-only round ${round}: ` +
          `settled with ${before.length} NodeClaims (${before.map((c) => c.metadata.name).join(", ")})\n`,
      );
    }
    assert.equal(kills, 2 * rounds);
    // The next leaders took the killed commands over from their recorded intent (logs of every incarnation).
    const takeovers = replicas
      .flatMap((r) => r.allLogLines())
      .filter((l) => l.includes("disruption command a previous leader started"));
    process.stdout.write(`# drift-only: ${takeovers.length} commands taken over by a new leader\n`);
    assert.ok(takeovers.length >= 1, "no new leader resumed or abandoned a killed command");
    passed = true;
  });
});

/**
 * The bench's workloads and phases, the same for both controllers. Deployments of pause pods in the
 * `bench` namespace (kube-controller-manager makes the pods, kube-scheduler places them, kwok runs
 * them on the simulated kubelets' Nodes):
 *
 * - up100, up300: the workshop's `inflate` (requests cpu 1, memory 1.5Gi) scaled 0 → 100 → 300;
 *   the phase ends when every pod is Running.
 * - down30: inflate scaled to 30; ends when Nodes and NodeClaims stop changing (consolidation).
 * - drift: a NodePool template label changes; ends when every NodeClaim from before is gone, every
 *   pod Running and Nodes and NodeClaims stop changing.
 * - memory: a memory-heavy Deployment beside inflate (20 × cpu 250m, memory 8Gi); every pod Running.
 * - mixed: four Deployments of other shapes beside those; every pod Running.
 *
 * "Stop changing" is a quiet window of consolidateAfter + 60 s, counted from the phase's change at the
 * earliest, without a Node or NodeClaim coming or going or a NodeClaim's deletion beginning, and with
 * no NodeClaim still deleting: a node emptied by a scale-down becomes a candidate consolidateAfter
 * after its last pod left, both controllers look for disruptions every 10 s, and Karpenter validates
 * a consolidation for 15 s before acting (a first run with consolidateAfter + 40 s counted from the
 * last change before the scale-down ended the phase 7 s before Karpenter's first deletion). The time
 * reported for these phases is the last change, not the end of the window.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import { rawRequest } from "../../harness/raw.ts";
import { NAMESPACE, type ClusterWatch } from "./observe.ts";

/** One Deployment of pause pods. */
export interface Workload {
  readonly name: string;
  readonly replicas: number;
  readonly cpu: string;
  readonly memory: string;
}

export const INFLATE = "inflate";
const PAUSE = "public.ecr.aws/eks-distro/kubernetes/pause:3.7";

export const MEMORY_HEAVY: Workload = { name: "memory-heavy", replicas: 20, cpu: "250m", memory: "8Gi" };
export const MIXED: readonly Workload[] = [
  { name: "web", replicas: 60, cpu: "250m", memory: "256Mi" },
  { name: "api", replicas: 30, cpu: "1", memory: "2Gi" },
  { name: "worker", replicas: 20, cpu: "2", memory: "4Gi" },
  { name: "cache", replicas: 10, cpu: "500m", memory: "6Gi" },
];

function deployment(w: Workload): object {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: w.name, namespace: NAMESPACE },
    spec: {
      replicas: w.replicas,
      selector: { matchLabels: { app: w.name } },
      template: {
        metadata: { labels: { app: w.name } },
        spec: {
          terminationGracePeriodSeconds: 0,
          containers: [{ name: w.name, image: PAUSE, resources: { requests: { cpu: w.cpu, memory: w.memory } } }],
        },
      },
    },
  };
}

/** The bench namespace and inflate at 0 replicas. */
export async function prepareWorkloads(kc: KubeConfig): Promise<void> {
  await rawRequest(kc, { method: "POST", path: "/api/v1/namespaces", body: { metadata: { name: NAMESPACE } } });
  await createWorkload(kc, { name: INFLATE, replicas: 0, cpu: "1", memory: "1.5Gi" });
}

async function createWorkload(kc: KubeConfig, w: Workload): Promise<void> {
  const deployments = `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`;
  await rawRequest(kc, { method: "POST", path: deployments, body: deployment(w) });
}

async function scale(kc: KubeConfig, name: string, replicas: number): Promise<void> {
  await rawRequest(kc, {
    method: "PATCH",
    path: `/apis/apps/v1/namespaces/${NAMESPACE}/deployments/${name}/scale`,
    body: { spec: { replicas } },
    contentType: "application/merge-patch+json",
  });
}

/** A change to the NodePool's template that both controllers see as drift (its hash changes). */
async function rollNodePool(kc: KubeConfig, value: string): Promise<void> {
  await rawRequest(kc, {
    method: "PATCH",
    path: "/apis/karpenter.sh/v1/nodepools/default",
    body: { spec: { template: { metadata: { labels: { "bench.kerf.dev/rollout": value } } } } },
    contentType: "application/merge-patch+json",
  });
}

/** What a phase waits for. */
export type Wait = "running" | "settled";

/** Replicas the bench asked for, by Deployment: what "every pod Running" counts against. */
export type Desired = Map<string, number>;

/** One phase: what it does (recording the replicas it asks for), what it waits for, its default timeout. */
export interface Phase {
  readonly name: string;
  readonly wait: Wait;
  readonly timeoutS: number;
  act(kc: KubeConfig, desired: Desired): Promise<void>;
}

function scaleInflate(replicas: number): (kc: KubeConfig, desired: Desired) => Promise<void> {
  return (kc, desired) => {
    desired.set(INFLATE, replicas);
    return scale(kc, INFLATE, replicas);
  };
}

async function create(kc: KubeConfig, desired: Desired, workloads: readonly Workload[]): Promise<void> {
  for (const w of workloads) {
    desired.set(w.name, w.replicas);
    await createWorkload(kc, w);
  }
}

/** Every phase in the order they run; each builds on the previous ones' workloads. */
export const PHASES: readonly Phase[] = [
  { name: "up100", wait: "running", timeoutS: 240, act: scaleInflate(100) },
  { name: "up300", wait: "running", timeoutS: 300, act: scaleInflate(300) },
  { name: "down30", wait: "settled", timeoutS: 420, act: scaleInflate(30) },
  { name: "drift", wait: "settled", timeoutS: 420, act: (kc) => rollNodePool(kc, "2") },
  { name: "memory", wait: "running", timeoutS: 240, act: (kc, desired) => create(kc, desired, [MEMORY_HEAVY]) },
  { name: "mixed", wait: "running", timeoutS: 240, act: (kc, desired) => create(kc, desired, MIXED) },
];

/** How a phase ended. */
export interface PhaseEnd {
  readonly status: "ok" | "timed out";
  /** Seconds from the change to every pod Running ("running"), or to the last Node/NodeClaim change ("settled"). */
  readonly seconds: number;
}

/** What waitPhase waits for and how long. */
export interface PhaseWait {
  readonly phase: Phase;
  /** Pods the Deployments ask for once the phase's change is made. */
  readonly pods: number;
  readonly start: number;
  readonly timeoutMs: number;
  readonly quietMs: number;
  readonly before: ReadonlySet<string>;
}

/**
 * Waits until the phase's condition holds or `timeoutMs` passes, checking the informer caches every
 * 250 ms. For "settled", `before` is the NodeClaims that existed when the phase began (drift waits for
 * all of them to be gone; a scale-down has none to wait for: it passes an empty set).
 */
export async function waitPhase(watch: ClusterWatch, o: PhaseWait): Promise<PhaseEnd> {
  const deadline = o.start + o.timeoutMs;
  for (;;) {
    const now = Date.now();
    const { live, running } = watch.podCounts();
    const allRunning = live === o.pods && running === live;
    if (o.phase.wait === "running" && allRunning) return { status: "ok", seconds: (now - o.start) / 1000 };
    const oldLeft = [...watch.nodeClaims.keys()].some((k) => o.before.has(k));
    // Quiet since the phase's change at least: a change from before it says nothing about what it started.
    const quietSince = Math.max(watch.lastChange, o.start);
    if (o.phase.wait === "settled" && allRunning && !oldLeft && !watch.anyDeleting() && now - quietSince >= o.quietMs) {
      return { status: "ok", seconds: Math.max(0, watch.lastChange - o.start) / 1000 };
    }
    if (now >= deadline) return { status: "timed out", seconds: o.timeoutMs / 1000 };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * The metrics.pod controller: one `karpenter_pods_state` series (value 1) per pod in the cluster
 * state, relabelled when the pod or its Node changes and removed when the pod goes away, so the
 * gauge's cardinality follows the pods; plus `karpenter_pods_startup_duration_seconds` (rules in
 * core/metrics/pods.ts). Keys are "namespace/name"; the SWEEP key, enqueued when the controller
 * starts, reconciles every cached pod and drops series of pods no longer there.
 */
import type { Node, Pod } from "../../core/lifecycle/objects.ts";
import {
  nodeLabelDigest,
  podStateLabels,
  sameSeries,
  startupStep,
  type PodStateLabels,
} from "../../core/metrics/pods.ts";
import type { Metrics } from "../../observability/metrics.ts";
import type { ControllerDeps } from "../controller-deps.ts";
import type { ControllerSpec, WatchVerb } from "../controller-spec.ts";
import type { Result } from "../runtime.ts";

/** The singleton key of the full sweep ("/" never appears alone in a pod key). */
export const SWEEP = "/";

/** What the controller reads. */
export interface PodMetricsDeps {
  readonly cluster: {
    readonly synced: boolean;
    pod(namespace: string, name: string): Pod | undefined;
    pods(): readonly Pod[];
    node(name: string): Node | undefined;
    podsOnNode(nodeName: string): readonly Pod[];
  };
  readonly metrics: Pick<Metrics, "podsState" | "podsStartupDuration">;
}

/** A Node as much as the series read (the controller manager's watched objects fit). */
type LabelledNode = {
  readonly metadata?:
    { readonly name?: string | undefined; readonly labels?: Readonly<Record<string, string>> | undefined } | undefined;
};

/** A pod's queue key. */
export function podKey(obj: {
  readonly metadata?: { readonly namespace?: string | undefined; readonly name?: string | undefined } | undefined;
}): string {
  return `${obj.metadata?.namespace ?? ""}/${obj.metadata?.name ?? ""}`;
}

/** The series this process exports and the pods it waits on to start. */
export class PodMetrics {
  private readonly deps: PodMetricsDeps;
  private readonly series = new Map<string, PodStateLabels>();
  private readonly pending = new Set<string>();
  private readonly nodeDigests = new Map<string, string>();

  constructor(deps: PodMetricsDeps) {
    this.deps = deps;
  }

  /** Reconciles one pod key, or everything for SWEEP (after the state has synced). */
  reconcile(key: string): Result {
    if (key === SWEEP) return this.sweep();
    const slash = key.indexOf("/");
    const pod = this.deps.cluster.pod(key.slice(0, slash), key.slice(slash + 1));
    if (pod === undefined) this.forget(key);
    else this.record(key, pod);
    return {};
  }

  /**
   * The pod keys a Node change concerns: its pods, when a Node label the series carry
   * changed (or the Node came or went).
   */
  nodeChanged(node: LabelledNode, verb: WatchVerb): readonly string[] {
    const name = node.metadata?.name ?? "";
    const digest = verb === "delete" ? undefined : nodeLabelDigest(node);
    if (this.nodeDigests.get(name) === digest) return [];
    if (digest === undefined) this.nodeDigests.delete(name);
    else this.nodeDigests.set(name, digest);
    return this.deps.cluster.podsOnNode(name).map(podKey);
  }

  /** How many series are exported (for tests and logs). */
  get size(): number {
    return this.series.size;
  }

  private sweep(): Result {
    if (!this.deps.cluster.synced) return { requeueAfter: 1000 };
    const seen = new Set<string>();
    for (const pod of this.deps.cluster.pods()) {
      const key = podKey(pod);
      seen.add(key);
      this.record(key, pod);
    }
    for (const key of [...this.series.keys()]) if (!seen.has(key)) this.forget(key);
    return {};
  }

  private record(key: string, pod: Pod): void {
    const nodeName = pod.spec?.nodeName ?? "";
    const labels = podStateLabels(pod, nodeName === "" ? undefined : this.deps.cluster.node(nodeName));
    const old = this.series.get(key);
    if (old === undefined || !sameSeries(old, labels)) {
      if (old !== undefined) this.deps.metrics.podsState.remove(old);
      this.deps.metrics.podsState.set(labels, 1);
      this.series.set(key, labels);
    }
    const step = startupStep(pod, this.pending.has(key));
    if (step.seconds !== undefined) this.deps.metrics.podsStartupDuration.observe(step.seconds);
    if (step.pending) this.pending.add(key);
    else this.pending.delete(key);
  }

  private forget(key: string): void {
    const old = this.series.get(key);
    if (old !== undefined) this.deps.metrics.podsState.remove(old);
    this.series.delete(key);
    this.pending.delete(key);
  }
}

/** The registry entry: pod keys from pod events, a Node's pods when its labels change, and a sweep on start. */
export function podMetricsController(deps: ControllerDeps): ControllerSpec {
  const pods = new PodMetrics({ cluster: deps.cluster, metrics: deps.metrics });
  return {
    name: "metrics.pod",
    singleton: SWEEP,
    reconcile: async (key) => pods.reconcile(key),
    watches: { pods: (pod) => [podKey(pod)], nodes: (node, verb) => pods.nodeChanged(node, verb) },
  };
}

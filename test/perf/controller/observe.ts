/**
 * What the bench watches while a phase runs: Nodes, NodeClaims and the bench namespace's Pods through
 * informers, the moment the set of Nodes or NodeClaims last changed, and what each controller costs
 * (CPU seconds and peak RSS from /proc, AWS calls from the moto bridge, launched instances and their
 * catalog price from moto).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { EC2Client, paginateDescribeInstances, type Instance } from "@aws-sdk/client-ec2";
import {
  CoreV1Api,
  CustomObjectsApi,
  makeInformer,
  type Informer,
  type KubeConfig,
  type KubernetesObject,
  type V1Node,
  type V1Pod,
} from "@kubernetes/client-node";
import type { AwsTestConfig } from "../../harness/use-environment.ts";
import { priceOf, type TypePrices } from "./moto-bridge.ts";

export const NAMESPACE = "bench";

interface NodeClaimObject extends KubernetesObject {
  metadata?: KubernetesObject["metadata"] & { deletionTimestamp?: Date | string };
}

function deleting(o: KubernetesObject): boolean {
  return (o.metadata as { deletionTimestamp?: unknown } | undefined)?.deletionTimestamp !== undefined;
}

/** Informer caches of the objects a phase waits on, and when Nodes or NodeClaims last came or went. */
export class ClusterWatch {
  private readonly informers: Informer<KubernetesObject>[] = [];
  readonly nodes = new Map<string, V1Node>();
  readonly nodeClaims = new Map<string, NodeClaimObject>();
  readonly pods = new Map<string, V1Pod>();
  /**
   * Date.now() of the last Node or NodeClaim added or deleted, or NodeClaim whose deletion began (a
   * scale-up, a replacement, a removal: what "the nodes changed" means to the settled phases).
   */
  lastChange = Date.now();
  /** NodeClaims created since the watch began: what karpenter_nodeclaims_created_total counts, read from the API. */
  nodeClaimsCreated = 0;
  private stopped = false;

  private track<T extends KubernetesObject>(informer: Informer<T>, into: Map<string, T>, counts: boolean): void {
    const key = (o: T): string => `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;
    informer.on("add", (o) => {
      into.set(key(o), o);
      if (counts) this.lastChange = Date.now();
    });
    informer.on("update", (o) => {
      const was = into.get(key(o));
      into.set(key(o), o);
      if (counts && deleting(o) && (was === undefined || !deleting(was))) this.lastChange = Date.now();
    });
    informer.on("delete", (o) => {
      into.delete(key(o));
      if (counts) this.lastChange = Date.now();
    });
    // client-node's informers stop on any error other than 410: start again, as a controller would.
    informer.on("error", () => {
      if (!this.stopped)
        setTimeout(() => {
          void informer.start().catch(() => undefined);
        }, 1_000);
    });
    this.informers.push(informer as unknown as Informer<KubernetesObject>);
  }

  static async start(kc: KubeConfig): Promise<ClusterWatch> {
    const watch = new ClusterWatch();
    const core = kc.makeApiClient(CoreV1Api);
    const custom = kc.makeApiClient(CustomObjectsApi);
    watch.track(
      makeInformer<V1Node>(kc, "/api/v1/nodes", () => core.listNode()),
      watch.nodes,
      true,
    );
    const claims = { group: "karpenter.sh", version: "v1", plural: "nodeclaims" };
    const listClaims = (): never => custom.listClusterCustomObject(claims) as never;
    const claimInformer = makeInformer<NodeClaimObject>(kc, "/apis/karpenter.sh/v1/nodeclaims", listClaims);
    watch.track(claimInformer, watch.nodeClaims, true);
    claimInformer.on("add", () => {
      watch.nodeClaimsCreated += 1;
    });
    const listPods = (): ReturnType<CoreV1Api["listNamespacedPod"]> => core.listNamespacedPod({ namespace: NAMESPACE });
    watch.track(makeInformer<V1Pod>(kc, `/api/v1/namespaces/${NAMESPACE}/pods`, listPods), watch.pods, false);
    await Promise.all(watch.informers.map((i) => i.start()));
    return watch;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.informers.map((i) => i.stop()));
  }

  /** Pods of the bench namespace that are not being deleted: how many, and how many Running. */
  podCounts(): { live: number; running: number } {
    let live = 0;
    let running = 0;
    for (const p of this.pods.values()) {
      if (p.metadata?.deletionTimestamp !== undefined) continue;
      live++;
      if (p.status?.phase === "Running") running++;
    }
    return { live, running };
  }

  /** NodeClaims not being deleted. */
  liveNodeClaims(): NodeClaimObject[] {
    return [...this.nodeClaims.values()].filter((c) => !deleting(c));
  }

  /** Whether a NodeClaim is being deleted (its instance still terminating, its Node draining). */
  anyDeleting(): boolean {
    return [...this.nodeClaims.values()].some(deleting);
  }
}

/** Process CPU seconds (user + system, reaped children included) and peak RSS of a process. */
export interface ProcessUsage {
  readonly cpuSeconds: number;
  readonly peakRssMiB: number;
}

let ticks: number | undefined;
function clockTicks(): number {
  ticks ??= Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;
  return ticks;
}

/** /proc/<pid>/stat utime + stime + cutime + cstime, and VmHWM from /proc/<pid>/status. */
export function processUsage(pid: number): ProcessUsage {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces): state is field 3, utime 14 … cstime 17.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const cpuTicks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0);
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return { cpuSeconds: cpuTicks / clockTicks(), peakRssMiB: Number(hwm ?? 0) / 1024 };
}

/** Running instances of the cluster, priced from the catalog. */
export interface Fleet {
  readonly instances: number;
  readonly pricePerHour: number;
  /** "type capacity-type" → count. */
  readonly types: Readonly<Record<string, number>>;
}

/** Reads moto's running instances of the cluster (every page) and prices each at its type and capacity type. */
export async function fleet(
  moto: AwsTestConfig,
  cluster: string,
  prices: ReadonlyMap<string, TypePrices>,
): Promise<Fleet> {
  const ec2 = new EC2Client({ ...moto });
  try {
    const filters = [
      { Name: "tag-key", Values: [`kubernetes.io/cluster/${cluster}`] },
      { Name: "instance-state-name", Values: ["pending", "running"] },
    ];
    const instances: Instance[] = [];
    for await (const page of paginateDescribeInstances({ client: ec2 }, { Filters: filters })) {
      instances.push(...(page.Reservations ?? []).flatMap((r) => r.Instances ?? []));
    }
    const types: Record<string, number> = {};
    let pricePerHour = 0;
    for (const i of instances) {
      const capacityType = i.InstanceLifecycle === "spot" ? "spot" : "on-demand";
      const key = `${i.InstanceType ?? "?"} ${capacityType}`;
      types[key] = (types[key] ?? 0) + 1;
      pricePerHour += priceOf(prices, i.InstanceType ?? "", capacityType) ?? 0;
    }
    return { instances: instances.length, pricePerHour, types };
  } finally {
    ec2.destroy();
  }
}

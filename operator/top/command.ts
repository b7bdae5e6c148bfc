/**
 * `kerf top`: a terminal view of a live cluster's NodePools, NodeClaims and nodes (operator/core/top/view.ts), read
 * through the kubeconfig and redrawn every --interval seconds; --once prints one frame for scripts.
 */
import { parseArgs } from "node:util";
import { setTimeout as sleep } from "node:timers/promises";
import { CoreV1Api, CustomObjectsApi, KubeConfig, PolicyV1Api } from "@kubernetes/client-node";
import { builtinCatalog, DEFAULT_REGION, isBundledRegion } from "../../policies/domain/catalog/builtin.ts";
import { toInstanceTypes } from "../../policies/domain/catalog/catalog.ts";
import type { InstanceType } from "../../policies/domain/instance-types.ts";
import type { CliIo } from "../../webhook/cli/io.ts";
import type { Node, NodeClaim, PdbLike, Pod } from "../core/lifecycle/objects.ts";
import type { PoolObject } from "../core/disruption/pool-budgets.ts";
import { buildView, renderView, type TopInput } from "../core/top/view.ts";

const USAGE = `Usage: kerf top [--once] [--interval SECONDS] [--kubeconfig FILE] [--region REGION]

A live view of the cluster's NodePools (nodes, $/h, disruption budgets), nodes (pod requests against allocatable,
$/h from kerf's bundled catalog, disruption state: what the operator would do with the node or why not) and
NodeClaims without a node yet.

Options:
  --once            print one frame and exit (for scripts)
  --interval        seconds between refreshes (default 2)
  --kubeconfig      kubeconfig file (default: KUBECONFIG, ~/.kube/config, or the pod's ServiceAccount)
  --region          region of the price catalog (default: the nodes' topology.kubernetes.io/region, else AWS_REGION,
                    else ${DEFAULT_REGION})
  -h, --help        show this help
`;

interface Options {
  readonly once: boolean;
  readonly intervalMs: number;
  readonly kubeconfig?: string | undefined;
  readonly region?: string | undefined;
}

function parse(args: readonly string[]): Options | string {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        once: { type: "boolean" },
        interval: { type: "string" },
        kubeconfig: { type: "string" },
        region: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    return (error as Error).message;
  }
  if (values.help === true) return "";
  const interval = Number(values.interval ?? "2");
  if (!Number.isFinite(interval) || interval <= 0)
    return `--interval: "${values.interval ?? ""}" is not a positive number of seconds`;
  if (values.region !== undefined && !isBundledRegion(values.region))
    return `--region: no bundled catalog for "${values.region}"`;
  return {
    once: values.once === true,
    intervalMs: interval * 1000,
    kubeconfig: values.kubeconfig,
    region: values.region,
  };
}

interface Clients {
  readonly core: CoreV1Api;
  readonly objects: CustomObjectsApi;
  readonly policy: PolicyV1Api;
}

async function listKarpenter(objects: CustomObjectsApi, plural: string): Promise<unknown[]> {
  const list = (await objects.listClusterCustomObject({ group: "karpenter.sh", version: "v1", plural })) as {
    items?: unknown[];
  };
  return list.items ?? [];
}

/** One snapshot; the catalog's region is chosen once, from the first snapshot's nodes. */
type Snapshot = Omit<TopInput, "types" | "now">;

async function read(clients: Clients): Promise<Snapshot> {
  const [nodePools, nodeClaims, nodes, pods, pdbs] = await Promise.all([
    listKarpenter(clients.objects, "nodepools"),
    listKarpenter(clients.objects, "nodeclaims"),
    clients.core.listNode().then((l) => l.items),
    clients.core.listPodForAllNamespaces().then((l) => l.items),
    clients.policy.listPodDisruptionBudgetForAllNamespaces().then((l) => l.items),
  ]);
  // client-node's objects carry Date timestamps; the pure core reads the apiserver's JSON shapes (strings).
  const plain = <T>(o: unknown): T => JSON.parse(JSON.stringify(o)) as T;
  return {
    nodePools: plain<PoolObject[]>(nodePools),
    nodeClaims: plain<NodeClaim[]>(nodeClaims),
    nodes: plain<Node[]>(nodes),
    pods: plain<Pod[]>(pods),
    pdbs: plain<PdbLike[]>(pdbs),
  };
}

function regionOf(options: Options, nodes: readonly Node[]): string {
  if (options.region !== undefined) return options.region;
  const fromNodes = nodes
    .map((n) => n.metadata?.labels?.["topology.kubernetes.io/region"])
    .find((r) => r !== undefined);
  for (const candidate of [fromNodes, process.env["AWS_REGION"]]) {
    if (candidate !== undefined && isBundledRegion(candidate)) return candidate;
  }
  return DEFAULT_REGION;
}

function clientsOf(options: Options): Clients {
  const kc = new KubeConfig();
  if (options.kubeconfig !== undefined) kc.loadFromFile(options.kubeconfig);
  else kc.loadFromDefault();
  return {
    core: kc.makeApiClient(CoreV1Api),
    objects: kc.makeApiClient(CustomObjectsApi),
    policy: kc.makeApiClient(PolicyV1Api),
  };
}

/** One frame, or the error that kept it from being read. */
async function nextFrame(
  clients: Clients,
  options: Options,
  catalog: { types?: ReadonlyMap<string, InstanceType> },
): Promise<{ frame: string } | { error: string }> {
  try {
    const snapshot = await read(clients);
    const types = (catalog.types ??= new Map(
      toInstanceTypes(builtinCatalog(regionOf(options, snapshot.nodes))).map((t) => [t.name, t]),
    ));
    const now = new Date();
    return { frame: renderView(buildView({ ...snapshot, types, now: now.getTime() }), now.toISOString()) };
  } catch (error) {
    const e = error as { code?: number; message: string };
    return {
      error: `kerf top: reading the cluster: ${e.code === undefined ? e.message : `HTTP ${e.code}: ${e.message}`}\n`,
    };
  }
}

/** Runs `kerf top`; resolves to the exit code. */
export async function runTop(args: readonly string[], io: CliIo): Promise<number> {
  const options = parse(args);
  if (typeof options === "string") {
    if (options === "") {
      io.stdout(USAGE);
      return 0;
    }
    io.stderr(`kerf top: ${options}\n`);
    return 2;
  }
  let clients: Clients;
  try {
    clients = clientsOf(options);
  } catch (error) {
    io.stderr(
      `kerf top: reading the kubeconfig` +
        `${options.kubeconfig === undefined ? "" : ` ${options.kubeconfig}`}: ${(error as Error).message}\n`,
    );
    return 2;
  }
  const catalog: { types?: ReadonlyMap<string, InstanceType> } = {};
  for (;;) {
    const next = await nextFrame(clients, options, catalog);
    if (options.once) {
      if ("error" in next) {
        io.stderr(next.error);
        return 1;
      }
      io.stdout(next.frame);
      return 0;
    }
    // Home and clear, then the frame: a full redraw each interval, as top does.
    io.stdout(`\x1b[H\x1b[2J${"error" in next ? next.error : next.frame}`);
    await sleep(options.intervalMs);
  }
}

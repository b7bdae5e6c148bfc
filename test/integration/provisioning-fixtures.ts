/**
 * Shared set-up for the operator-provisioning tests: the workshop NodePool, the `inflate` Deployment, and
 * reads of NodeClaims, instances and pods.
 */
import { DescribeInstancesCommand } from "@aws-sdk/client-ec2";
import assert from "node:assert/strict";
import { AppsV1Api, CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { mergePatch } from "../../operator/adapters/kube/client.ts";
import type { OperatorOverrides, RunningOperator } from "../../operator/main.ts";
import { KubeletSim } from "../harness/kubelet-sim.ts";
import { createTestNamespace } from "../harness/reset.ts";
import type { TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { CLUSTER, clients, nodeClass, seedAl2023Alias, seedNodeRole, tagDefaultSubnets } from "./aws-fixtures.ts";
import { installKarpenterCrds, replica } from "./operator-fixtures.ts";

export const NODECLAIMS = { group: "karpenter.sh", version: "v1", plural: "nodeclaims" } as const;
const NODEPOOLS = { group: "karpenter.sh", version: "v1", plural: "nodepools" } as const;

/** The NodeClaim fields the tests read. */
export interface Claim {
  metadata: { name: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec: { requirements: { key: string; operator: string; values?: string[] }[] };
  status?: { providerID?: string; nodeName?: string; conditions?: { type: string; status: string }[] };
}

/** A running (or pending) instance of the test cluster in moto. */
export interface Instance {
  id: string;
  type: string;
  zone: string;
  nodeClaim: string;
  providerID: string;
}

export const ON_DEMAND = { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] };
export const WORKSHOP_FAMILIES = {
  key: "karpenter.k8s.aws/instance-family",
  operator: "In",
  values: ["c5", "m5", "r5"],
};

/**
 * CRDs, the al2023 alias AMI, tagged subnets in two zones (`<region>a` and `b`), the node role, and the
 * `default` EC2NodeClass; in us-east-1 unless a region is given.
 */
export async function prepareCluster(env: TestEnvironment, region = "us-east-1"): Promise<void> {
  const aws = { ...env.aws(), region };
  await installKarpenterCrds(env);
  await seedAl2023Alias(aws, "x86_64");
  await seedNodeRole(aws);
  await tagDefaultSubnets(aws, [`${region}a`, `${region}b`]);
  const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
  await custom.createClusterCustomObject({
    group: "karpenter.k8s.aws",
    version: "v1",
    plural: "ec2nodeclasses",
    body: {
      apiVersion: "karpenter.k8s.aws/v1",
      kind: "EC2NodeClass",
      metadata: { name: "default" },
      spec: nodeClass("default").spec,
    },
  });
}

/** One operator replica (no leader election) and the kubelet simulation on a prepared cluster. */
export interface OperatorOnCluster {
  readonly operator: RunningOperator;
  readonly sim: KubeletSim;
  stop(): Promise<void>;
}

/**
 * prepareCluster, then a replica named `identity` (settings in `extra`) and the kubelet simulation, in
 * `overrides.region` (us-east-1 by default).
 */
export async function runOperatorOnCluster(
  env: TestEnvironment,
  identity: string,
  extra: Record<string, string> = {},
  overrides: Pick<OperatorOverrides, "disruption" | "catalogRefreshMs"> & { region?: string } = {},
): Promise<OperatorOnCluster> {
  const { region = "us-east-1", ...operatorOverrides } = overrides;
  await prepareCluster(env, region);
  const operator = await replica(
    env,
    identity,
    { DISABLE_LEADER_ELECTION: "true", AWS_REGION: region, ...extra },
    operatorOverrides,
  );
  const sim = new KubeletSim({ kubeConfig: env.kubeConfig, aws: { ...env.aws(), region }, clusterName: CLUSTER });
  sim.start();
  return {
    operator,
    sim,
    stop: async () => {
      await sim.stop();
      await operator.stop();
    },
  };
}

/** Creates a NodePool on the `default` EC2NodeClass. */
export async function createNodePool(
  env: TestEnvironment,
  name: string,
  opts: { requirements: readonly object[]; weight?: number; limits?: Record<string, string> },
): Promise<void> {
  await env.kubeConfig.makeApiClient(CustomObjectsApi).createClusterCustomObject({
    ...NODEPOOLS,
    body: {
      apiVersion: "karpenter.sh/v1",
      kind: "NodePool",
      metadata: { name },
      spec: {
        ...(opts.weight === undefined ? {} : { weight: opts.weight }),
        ...(opts.limits === undefined ? {} : { limits: opts.limits }),
        template: {
          spec: {
            nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
            requirements: opts.requirements,
          },
        },
      },
    },
  });
}

/** The `inflate` Deployment of pause pods requesting 1Gi of memory each; returns its namespace. */
export async function createInflate(env: TestEnvironment, replicas: number): Promise<string> {
  const namespace = await createTestNamespace(env.kubeConfig, "inflate");
  await env.kubeConfig.makeApiClient(AppsV1Api).createNamespacedDeployment({
    namespace,
    body: {
      metadata: { name: "inflate" },
      spec: {
        replicas,
        selector: { matchLabels: { app: "inflate" } },
        template: {
          metadata: { labels: { app: "inflate" } },
          spec: {
            terminationGracePeriodSeconds: 0,
            containers: [
              {
                name: "inflate",
                image: "public.ecr.aws/eks-distro/kubernetes/pause:3.7",
                resources: { requests: { memory: "1Gi" } },
              },
            ],
          },
        },
      },
    },
  });
  return namespace;
}

export async function scaleInflate(env: TestEnvironment, namespace: string, replicas: number): Promise<void> {
  await env.kubeConfig
    .makeApiClient(AppsV1Api)
    .patchNamespacedDeployment({ name: "inflate", namespace, body: { spec: { replicas } } }, mergePatch);
}

export async function runningPods(env: TestEnvironment, namespace: string): Promise<{ name: string; node: string }[]> {
  const pods = await env.kubeConfig.makeApiClient(CoreV1Api).listNamespacedPod({ namespace });
  return pods.items
    .filter((p) => p.status?.phase === "Running" && p.metadata?.deletionTimestamp === undefined)
    .map((p) => ({ name: p.metadata?.name ?? "", node: p.spec?.nodeName ?? "" }));
}

export async function nodeClaims(env: TestEnvironment): Promise<Claim[]> {
  return (
    (await env.kubeConfig.makeApiClient(CustomObjectsApi).listClusterCustomObject(NODECLAIMS)) as { items: Claim[] }
  ).items;
}

export const isReady = (c: Claim): boolean =>
  c.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True") ?? false;
export const isLaunched = (c: Claim): boolean =>
  c.status?.conditions?.some((x) => x.type === "Launched" && x.status === "True") ?? false;

/** The cluster's instances that are pending or running in moto. */
export async function liveInstances(env: TestEnvironment): Promise<Instance[]> {
  const out = await clients(env.aws()).ec2.send(
    new DescribeInstancesCommand({
      Filters: [
        { Name: "tag-key", Values: [`kubernetes.io/cluster/${CLUSTER}`] },
        { Name: "instance-state-name", Values: ["pending", "running"] },
      ],
    }),
  );
  return (out.Reservations ?? [])
    .flatMap((r) => r.Instances ?? [])
    .map((i) => {
      const zone = i.Placement?.AvailabilityZone ?? "";
      return {
        id: i.InstanceId ?? "",
        type: i.InstanceType ?? "",
        zone,
        nodeClaim: i.Tags?.find((t) => t.Key === "karpenter.sh/nodeclaim")?.Value ?? "",
        providerID: `aws:///${zone}/${i.InstanceId ?? ""}`,
      };
    });
}

/**
 * The convergence check of the restart tests: as many live instances as NodeClaims, every NodeClaim
 * with a providerID of a live instance, and no live instance without its NodeClaim (leaked).
 */
export async function consistency(
  env: TestEnvironment,
): Promise<{ claims: Claim[]; instances: Instance[]; leaked: Instance[]; withoutInstance: Claim[] }> {
  const [claims, instances] = await Promise.all([nodeClaims(env), liveInstances(env)]);
  const providers = new Set(instances.map((i) => i.providerID));
  const claimed = new Set(claims.map((c) => c.status?.providerID ?? ""));
  return {
    claims,
    instances,
    leaked: instances.filter((i) => !claimed.has(i.providerID)),
    withoutInstance: claims.filter((c) => !providers.has(c.status?.providerID ?? "")),
  };
}

/**
 * Waits until the `pods` inflate pods run on a single Ready NodeClaim other than `replacing`, with no
 * leaked instance and no NodeClaim without one (a replaced node's pods have moved); returns it.
 */
export function replacementClaim(
  env: TestEnvironment,
  namespace: string,
  pods: number,
  replacing: Claim,
): Promise<Claim> {
  return eventually(
    `${pods} pods Running on one Ready NodeClaim replacing ${replacing.metadata.name}, no leaked instance`,
    async () => {
      const { claims, leaked, withoutInstance } = await consistency(env);
      const running = await runningPods(env, namespace);
      const ok =
        running.length === pods &&
        claims.length === 1 &&
        claims[0]?.metadata.name !== replacing.metadata.name &&
        isReady(claims[0]!) &&
        leaked.length === 0 &&
        withoutInstance.length === 0;
      return ok ? claims[0] : undefined;
    },
    90_000,
    250,
  );
}

/** Waits until the `pods` inflate pods run and the cluster has exactly one NodeClaim, Ready; returns it. */
export function singleReadyClaim(env: TestEnvironment, namespace: string, pods: number): Promise<Claim> {
  return eventually(
    `${pods} pods Running on one Ready NodeClaim`,
    async () => {
      const { claims } = await consistency(env);
      return (await runningPods(env, namespace)).length === pods && claims.length === 1 && isReady(claims[0]!)
        ? claims[0]
        : undefined;
    },
    60_000,
    250,
  );
}

/** Creates a bare pause pod (nothing re-creates it once evicted) that asks for `requests`, on `nodeSelector`. */
export async function createPausePod(
  env: TestEnvironment,
  namespace: string,
  name: string,
  options: { readonly requests: Record<string, string>; readonly nodeSelector?: Record<string, string> },
): Promise<void> {
  await env.kubeConfig.makeApiClient(CoreV1Api).createNamespacedPod({
    namespace,
    body: {
      metadata: { name },
      spec: {
        terminationGracePeriodSeconds: 0,
        ...(options.nodeSelector === undefined ? {} : { nodeSelector: options.nodeSelector }),
        containers: [{ name: "pause", image: "registry.k8s.io/pause:3.10", resources: { requests: options.requests } }],
      },
    },
  });
}

/**
 * Creates a bare pause pod `name` (500m CPU, 1 GiB; nothing re-creates it once evicted) in `namespace` and waits
 * until it runs on the node of a Ready NodeClaim; returns that NodeClaim.
 */
export async function podOnReadyClaim(
  env: TestEnvironment,
  namespace: string,
  name: string,
  timeoutMs: number,
): Promise<Claim> {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  await createPausePod(env, namespace, name, { requests: { cpu: "500m", memory: "1Gi" } });
  return eventually(
    "a Ready NodeClaim with the pod Running on its node",
    async () => {
      const [claims, pod] = await Promise.all([nodeClaims(env), core.readNamespacedPod({ name, namespace })]);
      const ready = claims.find(isReady);
      return ready !== undefined && pod.status?.phase === "Running" && pod.spec?.nodeName === ready.status?.nodeName
        ? ready
        : undefined;
    },
    timeoutMs,
    250,
  );
}

/**
 * Creates a NodeClaim of the `default` NodePool and EC2NodeClass, without a NodePool's scheduling behind it, that
 * launches exactly one on-demand m5.large (in `zone` when given).
 */
export async function createM5NodeClaim(
  env: TestEnvironment,
  name: string,
  options: { readonly zone?: string; readonly terminationGracePeriod?: string } = {},
): Promise<void> {
  const requirements = [ON_DEMAND, { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.large"] }];
  if (options.zone !== undefined)
    requirements.push({ key: "topology.kubernetes.io/zone", operator: "In", values: [options.zone] });
  await env.kubeConfig.makeApiClient(CustomObjectsApi).createClusterCustomObject({
    ...NODECLAIMS,
    body: {
      apiVersion: "karpenter.sh/v1",
      kind: "NodeClaim",
      metadata: { name, labels: { "karpenter.sh/nodepool": "default" } },
      spec: {
        nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
        ...(options.terminationGracePeriod === undefined
          ? {}
          : { terminationGracePeriod: options.terminationGracePeriod }),
        requirements,
      },
    },
  });
}

/** Waits until NodeClaim `name` has condition `type` True; returns it. */
export function claimWithCondition(
  env: TestEnvironment,
  name: string,
  type: string,
  timeoutMs: number,
): Promise<Claim> {
  const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
  return eventually(
    `NodeClaim ${name} to be ${type}`,
    async () => {
      const c = (await custom.getClusterCustomObject({ ...NODECLAIMS, name })) as Claim;
      return c.status?.conditions?.some((x) => x.type === type && x.status === "True") === true ? c : undefined;
    },
    timeoutMs,
    250,
  );
}

/** The id of the instance `claim` launched, once it is seen running in moto. */
export async function runningInstanceOf(env: TestEnvironment, claim: Claim): Promise<string> {
  const instanceID = claim.status?.providerID?.split("/").pop() ?? "";
  assert.ok(
    (await liveInstances(env)).some((i) => i.id === instanceID),
    "the NodeClaim's instance runs in moto",
  );
  return instanceID;
}

/**
 * Deletes `claim` and waits until it, its Node, its instance and the pods of `namespace` (evicted by the drain)
 * are gone.
 */
export async function deleteClaimUntilGone(
  env: TestEnvironment,
  claim: Claim,
  namespace: string,
  timeoutMs: number,
): Promise<void> {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const instanceID = claim.status?.providerID?.split("/").pop() ?? "";
  await env.kubeConfig
    .makeApiClient(CustomObjectsApi)
    .deleteClusterCustomObject({ ...NODECLAIMS, name: claim.metadata.name });
  await eventually(
    "the NodeClaim, its Node, its instance and the evicted pod to be gone",
    async () => {
      const [claims, nodes, live, pods] = await Promise.all([
        nodeClaims(env),
        core.listNode(),
        liveInstances(env),
        core.listNamespacedPod({ namespace }),
      ]);
      return (
        claims.length === 0 &&
        !nodes.items.some((n) => n.metadata?.name === claim.status?.nodeName) &&
        !live.some((i) => i.id === instanceID) &&
        pods.items.length === 0
      );
    },
    timeoutMs,
    250,
  );
}

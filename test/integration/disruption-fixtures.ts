/**
 * Shared set-up of the disruption integration tests: one NodePool per test (on-demand c5/m5/r5, the
 * `default` EC2NodeClass), a Deployment of pause pods that selects it, and waits on its NodeClaims.
 */
import { AppsV1Api, CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { mergePatch } from "../../operator/adapters/kube/client.ts";
import { createTestNamespace } from "../harness/reset.ts";
import type { TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { nodeClaims, ON_DEMAND, WORKSHOP_FAMILIES, type Claim } from "./provisioning-fixtures.ts";

export const NODEPOOLS = { group: "karpenter.sh", version: "v1", plural: "nodepools" } as const;

export interface PoolOptions {
  budgets?: object[];
  labels?: Record<string, string>;
  nodeClass?: string;
  consolidateAfter?: string;
  annotations?: Record<string, string>;
}

export async function createPool(env: TestEnvironment, name: string, o: PoolOptions = {}): Promise<void> {
  await env.kubeConfig.makeApiClient(CustomObjectsApi).createClusterCustomObject({
    ...NODEPOOLS,
    body: {
      apiVersion: "karpenter.sh/v1",
      kind: "NodePool",
      metadata: { name, ...(o.annotations === undefined ? {} : { annotations: o.annotations }) },
      spec: {
        disruption: {
          consolidationPolicy: "WhenEmptyOrUnderutilized",
          consolidateAfter: o.consolidateAfter ?? "0s",
          ...(o.budgets === undefined ? {} : { budgets: o.budgets }),
        },
        template: {
          metadata: { labels: o.labels ?? {} },
          spec: {
            nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: o.nodeClass ?? "default" },
            requirements: [ON_DEMAND, WORKSHOP_FAMILIES],
          },
        },
      },
    },
  });
}

export async function patchPool(env: TestEnvironment, name: string, spec: object): Promise<void> {
  await env.kubeConfig
    .makeApiClient(CustomObjectsApi)
    .patchClusterCustomObject({ ...NODEPOOLS, name, body: { spec } }, mergePatch);
}

export interface DeployOptions {
  annotations?: Record<string, string>;
  spreadOverNodes?: boolean;
  memory?: string;
}

/** A Deployment of pause pods on `pool`'s nodes; returns its namespace. */
export async function deploy(
  env: TestEnvironment,
  pool: string,
  replicas: number,
  o: DeployOptions = {},
): Promise<string> {
  const namespace = await createTestNamespace(env.kubeConfig, pool);
  const labels = { app: pool };
  const affinity =
    o.spreadOverNodes === true
      ? {
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { topologyKey: "kubernetes.io/hostname", labelSelector: { matchLabels: labels } },
            ],
          },
        }
      : undefined;
  await env.kubeConfig.makeApiClient(AppsV1Api).createNamespacedDeployment({
    namespace,
    body: {
      metadata: { name: pool },
      spec: {
        replicas,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels, annotations: o.annotations ?? {} },
          spec: {
            terminationGracePeriodSeconds: 0,
            nodeSelector: { "karpenter.sh/nodepool": pool },
            ...(affinity === undefined ? {} : { affinity }),
            containers: [
              {
                name: "pause",
                image: "public.ecr.aws/eks-distro/kubernetes/pause:3.7",
                resources: { requests: { memory: o.memory ?? "1Gi" } },
              },
            ],
          },
        },
      },
    },
  });
  return namespace;
}

export async function scale(env: TestEnvironment, namespace: string, name: string, replicas: number): Promise<void> {
  await env.kubeConfig
    .makeApiClient(AppsV1Api)
    .patchNamespacedDeployment({ name, namespace, body: { spec: { replicas } } }, mergePatch);
}

export async function running(env: TestEnvironment, namespace: string): Promise<{ name: string; node: string }[]> {
  const pods = await env.kubeConfig.makeApiClient(CoreV1Api).listNamespacedPod({ namespace });
  return pods.items
    .filter((p) => p.status?.phase === "Running" && p.metadata?.deletionTimestamp === undefined)
    .map((p) => ({ name: p.metadata?.name ?? "", node: p.spec?.nodeName ?? "" }));
}

export const ofPool = async (env: TestEnvironment, pool: string): Promise<Claim[]> =>
  (await nodeClaims(env)).filter((c) => c.metadata.labels?.["karpenter.sh/nodepool"] === pool);
export const ready = (c: Claim): boolean =>
  c.status?.conditions?.some((x) => x.type === "Initialized" && x.status === "True") ?? false;
export const typeOf = (c: Claim): string => c.metadata.labels?.["node.kubernetes.io/instance-type"] ?? "";

/**
 * Waits until `pods` pods run on `count` initialized NodeClaims of the pool (and no
 * other of its claims); returns them.
 */
export function settled(
  env: TestEnvironment,
  pool: string,
  namespace: string,
  want: { pods: number; claims: number },
): Promise<Claim[]> {
  const { pods, claims: count } = want;
  return eventually(
    `${pods} pods Running on ${count} initialized NodeClaim(s) of ${pool}`,
    async () => {
      const claims = await ofPool(env, pool);
      const ok =
        (await running(env, namespace)).length === pods &&
        claims.length === count &&
        claims.every((c) => ready(c) && c.metadata.deletionTimestamp === undefined);
      return ok ? claims : undefined;
    },
    90_000,
    250,
  );
}

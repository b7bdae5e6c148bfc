/**
 * The stored NodePools and EC2NodeClasses of a cluster (karpenter.sh/v1, karpenter.k8s.aws/v1), listed page by
 * page: what `kerf check --cluster` and the webhook's periodic audit judge. Read-only.
 */
import { CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import type { Kind } from "../engine.ts";

const PAGE = 500;

/** One stored object with its kind (a list's items carry none) and the plural it was listed under. */
export interface StoredObject {
  readonly kind: Kind;
  readonly plural: string;
  readonly object: Record<string, unknown>;
}

/** The kinds audited: the ones admission judges (NodeClaims are Karpenter's own writes). */
const AUDITED = [
  { kind: "NodePool", group: "karpenter.sh", version: "v1", plural: "nodepools" },
  { kind: "EC2NodeClass", group: "karpenter.k8s.aws", version: "v1", plural: "ec2nodeclasses" },
] as const;

async function listAll(api: CustomObjectsApi, type: (typeof AUDITED)[number]): Promise<StoredObject[]> {
  const objects: StoredObject[] = [];
  let token: string | undefined;
  do {
    const request = {
      group: type.group,
      version: type.version,
      plural: type.plural,
      limit: PAGE,
      ...(token === undefined ? {} : { _continue: token }),
    };
    const page = (await api.listClusterCustomObject(request)) as {
      items?: Record<string, unknown>[];
      metadata?: { _continue?: string; continue?: string };
    };
    for (const item of page.items ?? []) {
      objects.push({
        kind: type.kind,
        plural: type.plural,
        object: { apiVersion: `${type.group}/${type.version}`, kind: type.kind, ...item },
      });
    }
    const next = page.metadata?._continue ?? page.metadata?.continue;
    token = next === undefined || next === "" ? undefined : next;
  } while (token !== undefined);
  return objects;
}

/** Every stored NodePool and EC2NodeClass, NodePools first, each kind in the apiserver's (name) order. */
export async function listStoredObjects(kubeConfig: KubeConfig): Promise<StoredObject[]> {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const lists = await Promise.all(AUDITED.map((type) => listAll(api, type)));
  return lists.flat();
}

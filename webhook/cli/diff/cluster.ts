/**
 * `kerf check --diff --cluster`: the live NodeClaims and NodePools (karpenter.sh/v1) the preview measures
 * against, read with the current kubeconfig context (or `--kubeconfig FILE`), page by page. Read-only.
 */
import { CustomObjectsApi, KubeConfig } from "@kubernetes/client-node";
import { kubeconfigCABundle } from "../../../operator/adapters/kube/ca-bundle.ts";
import { causeText, KerfError } from "../../errors.ts";

const PAGE = 500;

/** What the preview reads from the cluster: plain objects as the apiserver returns them. */
export interface ClusterObjects {
  readonly nodeClaims: readonly Record<string, unknown>[];
  readonly nodePools: readonly Record<string, unknown>[];
  /** The API server read, for the report. */
  readonly server: string;
  /** The kubeconfig's CA bundle for that server (the operator's default CA, hashed into EC2NodeClass hashes). */
  readonly caBundle?: string | undefined;
}

async function listAll(api: CustomObjectsApi, plural: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let token: string | undefined;
  do {
    const page = (await api.listClusterCustomObject({
      group: "karpenter.sh",
      version: "v1",
      plural,
      limit: PAGE,
      ...(token === undefined ? {} : { _continue: token }),
    })) as {
      items?: Record<string, unknown>[];
      metadata?: { _continue?: string; continue?: string };
    };
    items.push(...(page.items ?? []));
    const next = page.metadata?._continue ?? page.metadata?.continue;
    token = next === undefined || next === "" ? undefined : next;
  } while (token !== undefined);
  return items;
}

/** The current kubeconfig context (or `kubeconfig`); a KerfError (exit 2) naming the file when it cannot be read. */
export function loadKubeConfig(kubeconfig: string | undefined): KubeConfig {
  const kc = new KubeConfig();
  try {
    if (kubeconfig === undefined) kc.loadFromDefault();
    else kc.loadFromFile(kubeconfig);
  } catch (error) {
    throw new KerfError("KERF_ERR_CONFIG", `reading kubeconfig ${kubeconfig ?? "(default)"}: ${causeText(error)}`, {
      cause: error,
    });
  }
  return kc;
}

/** The kubeconfig's CA, or undefined when its CA file cannot be read (the preview then hashes without it). */
function caBundleOf(kc: KubeConfig): string | undefined {
  try {
    return kubeconfigCABundle(kc);
  } catch {
    return undefined;
  }
}

/** Reads the cluster's NodeClaims and NodePools; a KerfError (exit 2) naming the server when it cannot. */
export async function readCluster(kubeconfig: string | undefined): Promise<ClusterObjects> {
  const kc = loadKubeConfig(kubeconfig);
  const server = kc.getCurrentCluster()?.server ?? "(no current cluster)";
  const api = kc.makeApiClient(CustomObjectsApi);
  try {
    const [nodeClaims, nodePools] = await Promise.all([listAll(api, "nodeclaims"), listAll(api, "nodepools")]);
    return { nodeClaims, nodePools, server, caBundle: caBundleOf(kc) };
  } catch (error) {
    throw new KerfError(
      "KERF_ERR_INPUT_UNREADABLE",
      `reading NodeClaims and NodePools from ${server}: ${causeText(error)}`,
      { cause: error },
    );
  }
}

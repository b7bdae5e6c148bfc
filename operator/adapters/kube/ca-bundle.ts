/** The cluster CA of the operator's kubeconfig, as node user data wants it (base64 PEM). */
import { readFileSync } from "node:fs";
import type { KubeConfig } from "@kubernetes/client-node";
import { ClusterDiscoveryError } from "../../core/launch-template/cluster-info.ts";

/**
 * The current cluster's `certificate-authority-data` as is, else its `certificate-authority` file
 * read and encoded (in a pod: the ServiceAccount's ca.crt); undefined when the kubeconfig has neither.
 */
export function kubeconfigCABundle(kc: KubeConfig): string | undefined {
  const cluster = kc.getCurrentCluster();
  if (cluster?.caData !== undefined && cluster.caData !== "") return cluster.caData.replace(/\s+/g, "");
  if (cluster?.caFile === undefined || cluster.caFile === "") return undefined;
  try {
    return readFileSync(cluster.caFile).toString("base64");
  } catch (error) {
    throw new ClusterDiscoveryError(`reading the kubeconfig's CA file ${cluster.caFile}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

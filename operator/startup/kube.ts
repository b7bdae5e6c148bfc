/**
 * The Kubernetes side of `kerf operator`'s start: which API to talk to (failing in one line when there is none)
 * and the cluster's Kubernetes version. Called by the composition root (operator/main.ts) only.
 */
import { KubeConfig } from "@kubernetes/client-node";
import { KubernetesVersionProvider, apiserverVersion } from "../adapters/kube/cluster-facts.ts";
import type { OperatorConfig } from "../config.ts";
import type { Logger } from "../observability/logger.ts";

/** No Kubernetes API to talk to: a setting to fix, reported in one line. */
export class KubeConfigNotFoundError extends Error {
  constructor(message: string) {
    super(`finding the Kubernetes API: ${message}`);
    this.name = "KubeConfigNotFoundError";
  }
}

/** The kubeconfig: --kubeconfig, else client-node's default (KUBECONFIG, ~/.kube/config, in-cluster). */
export function loadKubeConfig(config: OperatorConfig): KubeConfig {
  const kc = new KubeConfig();
  if (config.kubeconfig !== "") {
    kc.loadFromFile(config.kubeconfig);
    return kc;
  }
  kc.loadFromDefault();
  // With no ~/.kube/config and no in-cluster token, client-node falls back to an unauthenticated
  // http://localhost:8080, which it then refuses on every request ("HTTP protocol is not allowed"): say so now.
  const cluster = kc.getCurrentCluster();
  if (
    cluster?.name === "cluster" &&
    cluster.server === "http://localhost:8080" &&
    kc.getCurrentUser()?.name === "user"
  ) {
    throw new KubeConfigNotFoundError(
      "no --kubeconfig (KUBECONFIG), no ~/.kube/config and no in-cluster " +
        "ServiceAccount token at /var/run/secrets/kubernetes.io/serviceaccount/token; run it in a pod with a " +
        "ServiceAccount or pass --kubeconfig",
    );
  }
  return kc;
}

/** The version AMI aliases resolve for when the apiserver cannot tell it at start. */
const FALLBACK_KUBERNETES_VERSION = "1.36";

/** The cluster's Kubernetes version, read now and again by providers.version (AMI aliases follow an upgrade). */
export function kubernetesMinor(kc: KubeConfig, logger: Logger): Promise<KubernetesVersionProvider> {
  return KubernetesVersionProvider.start(apiserverVersion(kc), logger, FALLBACK_KUBERNETES_VERSION);
}

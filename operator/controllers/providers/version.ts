/**
 * providers.version: re-reads the cluster's Kubernetes version every 5 minutes (Karpenter's
 * providers.version controller), so AMI aliases follow an EKS upgrade without a restart: the next
 * EC2NodeClass status refresh resolves the new version's AMIs and nodes on the old ones drift (AMIDrift).
 */
import type { ControllerSpec } from "../controller-spec.ts";

/** Karpenter's cadence. */
export const VERSION_REFRESH_MS = 5 * 60_000;

/** The version provider as the controller sees it (adapters/kube/cluster-facts.ts implements it). */
export interface VersionRefresher {
  /** Reads the version again; throws when it cannot (the last good version stays in force). */
  refresh(): Promise<unknown>;
}

/** The singleton controller; a failed read is retried with the runtime's backoff, then every `periodMs`. */
export function versionController(o: {
  readonly provider: VersionRefresher;
  readonly periodMs?: number | undefined;
}): ControllerSpec {
  const periodMs = o.periodMs ?? VERSION_REFRESH_MS;
  return {
    name: "providers.version",
    singleton: "version",
    watches: {},
    reconcile: async () => {
      await o.provider.refresh();
      return { requeueAfter: periodMs };
    },
  };
}

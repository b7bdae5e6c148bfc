/**
 * Cluster facts the apiserver tells: its Kubernetes version (AMI aliases resolve for it; re-read
 * periodically, as Karpenter's version provider does) and the clusterIP of the `kube-dns` Service
 * (node user data's cluster DNS address, read once at start as Karpenter does).
 */
import { CoreV1Api, VersionApi, type KubeConfig } from "@kubernetes/client-node";
import { kube, kubeIgnoreNotFound } from "./client.ts";
import { kubernetesMinor } from "../../core/launch-template/cluster-info.ts";
import type { Logger } from "../../observability/logger.ts";

/** The apiserver's /version answer, as much as kerf reads. */
export interface ApiserverVersion {
  readonly major: string;
  readonly minor: string;
  readonly gitVersion?: string | undefined;
}

/** GET /version. */
export function apiserverVersion(kc: KubeConfig): () => Promise<ApiserverVersion> {
  const api = kc.makeApiClient(VersionApi);
  return () => kube("reading the apiserver version", () => api.getCode());
}

/** The clusterIP of Service kube-system/kube-dns; undefined when there is no such Service. */
export function kubeDnsClusterIP(kc: KubeConfig): () => Promise<string | undefined> {
  const api = kc.makeApiClient(CoreV1Api);
  return async () => {
    const read = (): ReturnType<CoreV1Api["readNamespacedService"]> =>
      api.readNamespacedService({ name: "kube-dns", namespace: "kube-system" });
    const service = await kubeIgnoreNotFound("reading Service kube-system/kube-dns", read);
    return service?.spec?.clusterIP;
  };
}

/** The version could not be read or made no sense; the last good one stays in force. */
export class KubernetesVersionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(`reading the Kubernetes version: ${message}`, options);
    this.name = "KubernetesVersionError";
  }
}

/** What a refresh found. */
export interface VersionRefresh {
  readonly version: string;
  readonly previous: string;
  readonly changed: boolean;
}

/**
 * The cluster's Kubernetes minor version ("1.36"), read at start and again on every refresh() (the
 * providers.version controller calls it every 5 minutes, Karpenter's cadence). A failed refresh keeps
 * the last good version, as Karpenter does.
 */
export class KubernetesVersionProvider {
  private current: string;
  private readonly read: () => Promise<ApiserverVersion>;
  private readonly logger: Pick<Logger, "info" | "warn">;

  private constructor(initial: string, read: () => Promise<ApiserverVersion>, logger: Pick<Logger, "info" | "warn">) {
    this.current = initial;
    this.read = read;
    this.logger = logger;
  }

  /**
   * Reads the version once. A failure at start is not fatal (a cluster with the apiserver unreachable
   * now may answer later): `fallback` is used until a refresh succeeds, with a warning.
   */
  static async start(
    read: () => Promise<ApiserverVersion>,
    logger: Pick<Logger, "info" | "warn">,
    fallback: string,
  ): Promise<KubernetesVersionProvider> {
    const provider = new KubernetesVersionProvider(fallback, read, logger);
    try {
      provider.current = await provider.fetch();
      logger.info({ version: provider.current }, "discovered kubernetes version");
    } catch (error) {
      const why = (error as Error).message;
      logger.warn({ err: error, version: fallback }, `${why}; AMI aliases resolve for ${fallback} until it is read`);
    }
    return provider;
  }

  /** The version in force (a bound function: pass it where a version getter is wanted). */
  readonly get = (): string => this.current;

  /** Reads the version again; throws KubernetesVersionError (keeping the last good one) when it cannot. */
  async refresh(): Promise<VersionRefresh> {
    const previous = this.current;
    const version = await this.fetch();
    this.current = version;
    const changed = version !== previous;
    if (changed) this.logger.info({ version, previous }, "kubernetes version changed: AMI aliases resolve for it now");
    return { version, previous, changed };
  }

  private async fetch(): Promise<string> {
    let answer: ApiserverVersion;
    try {
      answer = await this.read();
    } catch (error) {
      throw new KubernetesVersionError((error as Error).message, { cause: error });
    }
    const version = kubernetesMinor(answer);
    if (version === undefined) {
      const { major, minor } = answer;
      const answered = `major ${JSON.stringify(major)}, minor ${JSON.stringify(minor)}`;
      throw new KubernetesVersionError(`the apiserver answered ${answered}`);
    }
    return version;
  }
}

/**
 * The webhook's Karpenter API: the cluster's installed NodePool, NodeClaim and EC2NodeClass CRDs, each watched by
 * name (a fieldSelector on metadata.name, so RBAC can name the three CRDs), reduced to a KarpenterApi whenever one
 * of them changes. While they cannot be read (no RBAC, not installed, apiserver down before the first list, a CRD
 * without a v1 schema) the fallback release is used; the reason is logged once, never failing a review.
 */
import {
  ApiException,
  CustomObjectsApi,
  ListWatch,
  Watch,
  type KubeConfig,
  type KubernetesObject,
  type KubernetesListObject,
} from "@kubernetes/client-node";
import type { Logger } from "pino";
import { KARPENTER_CRD_NAMES, karpenterApiFromCrds } from "../../policies/api/releases/from-crds.ts";
import type { KarpenterApi } from "../../policies/api/releases/index.ts";
import { causeText } from "../errors.ts";

const PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const NAMES: readonly string[] = Object.values(KARPENTER_CRD_NAMES);

type Crd = KubernetesObject & { metadata?: { generation?: number } };

/** What is known of one CRD: not read yet (or never read, with the error), read and absent, or read. */
export type CrdState =
  | { readonly state: "unknown"; readonly error?: unknown }
  | { readonly state: "absent" }
  | { readonly state: "present"; readonly crd: Crd };

/** The CRDs to build the API from (with a key that changes only when a schema may have), or why there are none. */
export type CrdSelection = { readonly key: string; readonly crds: readonly Crd[] } | { readonly reason: string };

function errorText(error: unknown): string {
  if (error instanceof ApiException) {
    const code = error.code;
    if (code === 403) return "forbidden (the webhook's RBAC does not allow list/watch on customresourcedefinitions)";
    return `HTTP ${code} from the apiserver`;
  }
  // fetch's own message is "fetch failed"; the reason (ECONNREFUSED, a TLS error, …) is its cause.
  const cause = (error as { cause?: unknown } | null)?.cause;
  const text = cause === undefined ? causeText(error) : `${causeText(error)}: ${causeText(cause)}`;
  return text.split("\n")[0] ?? "unknown error";
}

/** Which CRDs to use, from what is known of each; pure. */
export function selectCrds(states: ReadonlyMap<string, CrdState>): CrdSelection {
  const known = NAMES.map((name) => [name, states.get(name) ?? { state: "unknown" as const }] as const);
  const unread = known.filter(([, s]) => s.state === "unknown");
  if (unread.length > 0) {
    const errors = [
      ...new Set(
        unread.map(([, s]) => (s.state === "unknown" && s.error !== undefined ? errorText(s.error) : "not read yet")),
      ),
    ];
    return { reason: `reading CRDs ${unread.map(([n]) => n).join(", ")}: ${errors.join("; ")}` };
  }
  const absent = known.filter(([, s]) => s.state === "absent").map(([n]) => n);
  if (absent.length > 0) return { reason: `CRDs not installed: ${absent.join(", ")}` };
  const crds = known.map(([, s]) => (s as { crd: Crd }).crd);
  // A status update (conditions, accepted names) keeps the generation: only a spec change rebuilds the API.
  const key = crds
    .map((c) => `${c.metadata?.uid ?? ""}/${c.metadata?.generation ?? c.metadata?.resourceVersion ?? ""}`)
    .join(",");
  return { key, crds };
}

/** What the cluster API source needs. */
export interface ClusterApiOptions {
  readonly kubeConfig: KubeConfig;
  /** Used while the cluster's CRDs cannot be read. */
  readonly fallback: KarpenterApi;
  readonly logger: Logger;
  /** Called with the API to judge against each time it changes, before it is used; a throw rejects a cluster API. */
  readonly onChange: (api: KarpenterApi, reason: string | undefined) => void;
  /** Restart delays of a failed watch: doubled from initialMs up to maxMs. */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
}

/** Watches the three CRDs; `current` is the API every review uses. */
export class ClusterKarpenterApi {
  private readonly options: ClusterApiOptions;
  private readonly states = new Map<string, CrdState>();
  private readonly watches = new Map<string, ListWatch<Crd>>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly delays = new Map<string, number>();
  private stopped = true;
  /** False until start() has waited for the first reads: nothing is decided (or logged) from a partial start. */
  private started = false;
  private key = "";
  private loggedReason: string | undefined;
  private api: KarpenterApi;

  constructor(options: ClusterApiOptions) {
    this.options = options;
    this.api = options.fallback;
    const objects = options.kubeConfig.makeApiClient(CustomObjectsApi);
    for (const name of NAMES) this.watches.set(name, this.makeWatch(name, objects));
  }

  /** The API reviews are judged against now. */
  get current(): KarpenterApi {
    return this.api;
  }

  /** Starts the watches; resolves once each has listed or failed (or after `waitMs`), with `current` chosen. */
  async start(waitMs: number): Promise<void> {
    this.stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const attempts = Promise.all(NAMES.map((name) => this.attempt(name)));
    await Promise.race([
      attempts,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, waitMs);
      }),
    ]);
    clearTimeout(timer);
    this.started = true;
    this.refresh();
  }

  /** Stops every watch and pending restart. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await Promise.all([...this.watches.values()].map((w) => w.stop()));
  }

  private makeWatch(name: string, objects: CustomObjectsApi): ListWatch<Crd> {
    const fieldSelector = `metadata.name=${name}`;
    const list = async (): Promise<KubernetesListObject<Crd>> => {
      const page = (await objects.listClusterCustomObject({
        group: "apiextensions.k8s.io",
        version: "v1",
        plural: "customresourcedefinitions",
        fieldSelector,
      })) as KubernetesListObject<Crd>;
      this.delays.delete(name);
      // A list's items carry no kind (the list does); watch events do. Name them as the watch would.
      for (const item of page.items)
        Object.assign(item, { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition" });
      if (page.items.length === 0) {
        this.states.set(name, { state: "absent" });
        this.refresh();
      }
      return page;
    };
    const watch = new ListWatch<Crd>(PATH, new Watch(this.options.kubeConfig), list, false, undefined, fieldSelector);
    const present = (crd: Crd): void => {
      this.states.set(name, { state: "present", crd });
      this.refresh();
    };
    watch.on("add", present);
    watch.on("update", present);
    watch.on("delete", () => {
      this.states.set(name, { state: "absent" });
      this.refresh();
    });
    watch.on("error", (error) => this.failed(name, error));
    return watch;
  }

  private async attempt(name: string): Promise<void> {
    try {
      await this.watches.get(name)?.start();
    } catch (error) {
      this.failed(name, error);
    }
  }

  /** A failed list or watch: what was read stays in use; the watch restarts after a backoff delay. */
  private failed(name: string, error: unknown): void {
    if (this.states.get(name)?.state !== "present" && this.states.get(name)?.state !== "absent") {
      this.states.set(name, { state: "unknown", error });
      this.refresh();
    }
    if (this.stopped || this.timers.has(name)) return;
    const backoff = this.options.backoff ?? { initialMs: 1000, maxMs: 60_000 };
    const delay = this.delays.get(name) ?? backoff.initialMs;
    this.delays.set(name, Math.min(delay * 2, backoff.maxMs));
    this.options.logger.debug(
      { crd: name, error: errorText(error), retryInMs: delay },
      "watching Karpenter CRD failed; retrying",
    );
    this.timers.set(
      name,
      setTimeout(() => {
        this.timers.delete(name);
        if (!this.stopped) void this.attempt(name);
      }, delay),
    );
  }

  /** Rebuilds the API when the CRDs changed, or falls back (logging why when the reason is new). */
  private refresh(): void {
    if (this.stopped || !this.started) return;
    const selection = selectCrds(this.states);
    if ("reason" in selection) {
      this.fallBack(selection.reason);
      return;
    }
    if (selection.key === this.key) return;
    let api: KarpenterApi;
    try {
      api = karpenterApiFromCrds(selection.crds);
    } catch (error) {
      this.fallBack(`reading the CRDs' schemas: ${causeText(error)}`);
      return;
    }
    try {
      this.use(api, undefined);
    } catch (error) {
      this.fallBack(`preparing validators for the cluster's CRDs: ${causeText(error)}`);
      return;
    }
    this.key = selection.key;
    this.loggedReason = undefined;
  }

  private fallBack(reason: string): void {
    if (reason !== this.loggedReason) {
      this.loggedReason = reason;
      this.options.logger.warn(
        { reason, karpenterApi: { source: "bundled", version: this.options.fallback.version } },
        "cannot use the cluster's Karpenter CRDs; judging against the bundled release",
      );
    }
    if (this.key === "fallback") return;
    this.key = "fallback";
    this.use(this.options.fallback, reason);
  }

  /** Switches to `api`; onChange (preparing validators) runs first, so a failure leaves the previous API in use. */
  private use(api: KarpenterApi, reason: string | undefined): void {
    this.options.onChange(api, reason);
    this.api = api;
    this.options.logger.info(
      { karpenterApi: { source: api.source, version: api.version } },
      "judging Karpenter objects against this API",
    );
  }
}

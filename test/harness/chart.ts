/**
 * kerf's Helm charts (manifests/charts) as tests and tools see them: rendered by the real helm that
 * .ci/testenv/ensure.sh builds from the Go module proxy, parsed into objects. Nothing here re-implements
 * helm's templating.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import type { V1MutatingWebhookConfiguration, V1ValidatingWebhookConfiguration } from "@kubernetes/client-node";
import { ensureBinaries } from "./binaries.ts";
import { parseManifests, type ManifestObject } from "./manifests.ts";

const run = promisify(execFile);

export const root = path.resolve(import.meta.dirname, "../..");
/** The operator + webhook chart. */
export const KERF_CHART = path.join(root, "manifests/charts/kerf");
/** The CRD chart (CRDs as templates, so `helm upgrade` upgrades them). */
export const KERF_CRD_CHART = path.join(root, "manifests/charts/kerf-crd");
/** The chart's CI values: a configured install (cluster, region, queue, IRSA, policies). */
export const CI_VALUES = path.join(KERF_CHART, "ci/ci-values.yaml");
/** cert-manager certificates and ServiceMonitors: rendered only (the test apiserver lacks those CRDs). */
export const CERT_MANAGER_VALUES = path.join(KERF_CHART, "ci/cert-manager-values.yaml");

let karpenterValuesPath: Promise<string> | undefined;

/**
 * Karpenter v1.15.1's own chart values file, fetched once from the Go module proxy
 * (.ci/testenv/karpenter-chart-values.sh).
 */
export function karpenterValues(): Promise<string> {
  karpenterValuesPath ??= run("bash", [path.join(root, ".ci/testenv/karpenter-chart-values.sh"), "1.15.1"]).then(
    ({ stdout }) => stdout.trim(),
    (error: unknown) => {
      throw new Error(`fetching Karpenter's chart values: ${(error as { stderr?: string }).stderr ?? ""}`, {
        cause: error,
      });
    },
  );
  return karpenterValuesPath;
}
/** The --set that makes Karpenter's values file install kerf: kerf's image instead of Karpenter's controller. */
export const KERF_IMAGE_OVER_KARPENTER: Readonly<Record<string, string>> = {
  "controller.image.repository": "registry.example/kerf",
  "controller.image.digest": "",
  "controller.image.tag": "0.1.0",
};

let helmPath: Promise<string> | undefined;

/** The helm binary (ensure.sh builds it once, then finds it in the cache). */
export function helm(): Promise<string> {
  helmPath ??= ensureBinaries(root).then((b) => b.helm);
  return helmPath;
}

/** What helm printed, or an error with helm's stderr (a template `fail` message, a lint finding). */
export async function runHelm(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<{ stdout: string; stderr: string }> {
  const binary = await helm();
  try {
    return await run(binary, [...args], { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...env } });
  } catch (error) {
    const e = error as { stderr?: string; stdout?: string };
    throw new Error(`helm ${args.join(" ")}: ${(e.stderr ?? "").trim() || (e.stdout ?? "").trim()}`, { cause: error });
  }
}

/**
 * How to render: release name and namespace, values files, --set and --set-string pairs,
 * and whether crds/ is included.
 */
export interface RenderOptions {
  readonly chart?: string;
  readonly release?: string;
  readonly namespace?: string;
  readonly values?: readonly string[];
  /** `--set`: helm types the values (true, 400), as a user's `--set` does. */
  readonly set?: Readonly<Record<string, string>>;
  /** `--set-string`: kept strings (label values such as "true"). */
  readonly setString?: Readonly<Record<string, string>>;
  readonly includeCrds?: boolean;
}

function renderArgs(o: RenderOptions): string[] {
  return [
    o.release ?? "kerf",
    o.chart ?? KERF_CHART,
    "--namespace",
    o.namespace ?? "kerf-system",
    ...(o.values ?? []).flatMap((f) => ["--values", f]),
    ...Object.entries(o.set ?? {}).flatMap(([k, v]) => ["--set", `${k}=${v}`]),
    ...Object.entries(o.setString ?? {}).flatMap(([k, v]) => ["--set-string", `${k}=${v}`]),
    ...(o.includeCrds === true ? ["--include-crds"] : []),
  ];
}

/** `helm template` output as text (what `helm template … | kerf check -` reads). */
export async function renderChartText(o: RenderOptions = {}): Promise<string> {
  return (await runHelm(["template", ...renderArgs(o)])).stdout;
}

/** `helm template` output as objects, in helm's install order. */
export async function renderChart(o: RenderOptions = {}): Promise<ManifestObject[]> {
  return parseManifests(await renderChartText(o), `helm template ${o.chart ?? KERF_CHART}`);
}

/** `helm upgrade --install` against a real cluster (the test apiserver), so `lookup` sees its objects. */
export async function installChart(
  kubeconfig: string,
  o: RenderOptions,
  env: Readonly<Record<string, string>> = {},
): Promise<string> {
  return (await runHelm(["upgrade", "--install", ...renderArgs(o), "--kubeconfig", kubeconfig], env)).stdout;
}

/** The objects of one chart component (app.kubernetes.io/component: operator | webhook). */
export function component(objects: readonly ManifestObject[], name: "operator" | "webhook"): ManifestObject[] {
  return objects.filter(
    (o) => (o.metadata["labels"] as Record<string, string> | undefined)?.["app.kubernetes.io/component"] === name,
  );
}

/** The chart's webhook configurations, pointed at a webhook served outside the cluster. */
export interface WebhookRegistrations {
  readonly validating: V1ValidatingWebhookConfiguration;
  readonly mutating: V1MutatingWebhookConfiguration;
}

/**
 * The webhook configurations the chart renders with its default values (rules, failure policies, timeouts,
 * matchConditions) with the client config replaced by `https://127.0.0.1:PORT<path>` and `caBundle` (base64
 * PEM), named `<name><nameSuffix>` with only `labels`: what tests and the playground register with their apiserver.
 */
export async function webhookRegistrations(o: {
  port: number;
  caBundle: string;
  nameSuffix?: string;
  labels?: Record<string, string>;
}): Promise<WebhookRegistrations> {
  const objects = await renderChart();
  const point = <T extends V1ValidatingWebhookConfiguration | V1MutatingWebhookConfiguration>(kind: string): T => {
    const config = structuredClone(objects.find((obj) => obj.kind === kind)) as unknown as T | undefined;
    if (config === undefined) throw new Error(`the chart renders no ${kind}`);
    config.metadata = {
      name: `${config.metadata?.name ?? "kerf"}${o.nameSuffix ?? ""}`,
      ...(o.labels === undefined ? {} : { labels: o.labels }),
    };
    for (const webhook of config.webhooks ?? []) {
      webhook.clientConfig = {
        url: `https://127.0.0.1:${o.port}${webhook.clientConfig.service?.path ?? "/"}`,
        caBundle: o.caBundle,
      };
    }
    return config;
  };
  return { validating: point("ValidatingWebhookConfiguration"), mutating: point("MutatingWebhookConfiguration") };
}

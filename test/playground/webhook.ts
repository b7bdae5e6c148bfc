/**
 * The kerf admission webhook for the playground: served over HTTPS with a certificate signed by the
 * environment's CA, and registered with the apiserver through the webhook configurations the Helm chart
 * renders (manifests/charts/kerf) pointed at https://127.0.0.1:PORT instead of the in-cluster Service.
 */
import { readFileSync } from "node:fs";
import { AdmissionregistrationV1Api, CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { pino } from "pino";
import { eventually } from "../harness/wait.ts";
import { webhookRegistrations } from "../harness/chart.ts";
import { issueServingCertificate, type KeyPair } from "../harness/certs.ts";
import { loadWebhookConfig } from "../../webhook/config.ts";
import { startWebhook } from "../../webhook/main.ts";
import { createComponentLogger } from "../../webhook/logging.ts";

/** A started and registered webhook. */
export interface PlaygroundWebhook {
  readonly port: number;
  /** Closes the server (the registrations go with the environment). */
  stop(): Promise<void>;
}

/**
 * The apiserver picks up new webhook configurations asynchronously: a NodePool applied too early would
 * skip kerf. Waits until a server-side dry run of a NodePool with a six-field cron is denied by kerf.
 */
async function waitActive(kc: KubeConfig): Promise<void> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const probe = {
    apiVersion: "karpenter.sh/v1",
    kind: "NodePool",
    metadata: { name: "kerf-playground-probe" },
    spec: {
      template: {
        spec: { nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" }, requirements: [] },
      },
      disruption: { budgets: [{ nodes: "0", schedule: "0 0 9 * * mon-fri", duration: "8h" }] },
    },
  };
  await eventually(
    "the kerf webhook to be called by the apiserver",
    async () => {
      try {
        await custom.createClusterCustomObject({
          group: "karpenter.sh",
          version: "v1",
          plural: "nodepools",
          body: probe,
          dryRun: "All",
        });
        return false;
      } catch (error) {
        return JSON.stringify((error as { body?: unknown }).body ?? "").includes("kerf.dev");
      }
    },
    30_000,
    200,
  );
}

/**
 * Starts the webhook (logs to `logFile`) and registers both configurations. It reads the cluster's Karpenter CRDs
 * through `kubeconfigFile`, as it reads them in a pod through its ServiceAccount.
 */
export async function startPlaygroundWebhook(o: {
  kubeConfig: KubeConfig;
  kubeconfigFile: string;
  ca: KeyPair;
  dir: string;
  logFile: string;
  region: string;
}): Promise<PlaygroundWebhook> {
  const serving = await issueServingCertificate(o.ca, o.dir, "kerf-webhook");
  const args = [
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--tls-cert",
    serving.cert,
    "--tls-key",
    serving.key,
    "--kubeconfig",
    o.kubeconfigFile,
    "--region",
    o.region,
  ];
  const config = loadWebhookConfig(args, {});
  const webhook = await startWebhook(
    config,
    createComponentLogger("kerf-webhook", "info", pino.destination({ dest: o.logFile, sync: true })),
  );
  const admission = o.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  const caBundle = readFileSync(o.ca.cert).toString("base64");
  try {
    const { validating, mutating } = await webhookRegistrations({
      port: webhook.port,
      caBundle,
      labels: { "app.kubernetes.io/part-of": "kerf-playground" },
    });
    await admission.createMutatingWebhookConfiguration({ body: mutating });
    await admission.createValidatingWebhookConfiguration({ body: validating });
  } catch (error) {
    await webhook.close();
    throw new Error(`registering the kerf webhook: ${(error as Error).message}`, { cause: error });
  }
  await waitActive(o.kubeConfig).catch(async (error: unknown) => {
    await webhook.close();
    throw error;
  });
  return { port: webhook.port, stop: () => webhook.close() };
}

/**
 * kerf's webhook registered with a real kube-apiserver at https://127.0.0.1, using the webhook
 * configurations the Helm chart renders (matchConditions included) with a url + caBundle client config,
 * and Karpenter's CRDs from manifests/crds/.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { AdmissionregistrationV1Api, CustomObjectsApi, type V1CustomResourceDefinition } from "@kubernetes/client-node";
import { pino } from "pino";
import { parse, parseAllDocuments } from "yaml";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { webhookRegistrations } from "../harness/chart.ts";
import { installCrds } from "../harness/crds.ts";
import { issueServingCertificate } from "../harness/certs.ts";
import { eventually } from "../harness/wait.ts";
import { loadWebhookConfig } from "../../webhook/config.ts";
import { startWebhook, type RunningWebhook } from "../../webhook/main.ts";

const root = path.resolve(import.meta.dirname, "../..");
const suffix = `-it-${process.pid}`;
const nodePools = { group: "karpenter.sh", version: "v1", plural: "nodepools" };

function crds(): V1CustomResourceDefinition[] {
  const dir = path.join(root, "manifests/crds");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => parse(readFileSync(path.join(dir, f), "utf8")) as V1CustomResourceDefinition);
}

function exampleNodePool(
  name: string,
): Record<string, unknown> & { metadata: { name: string }; spec: Record<string, unknown> } {
  const docs = parseAllDocuments(readFileSync(path.join(root, "manifests/examples/production.yaml"), "utf8")).map(
    (d) => d.toJS() as { kind: string },
  );
  const pool = structuredClone(docs.find((d) => d.kind === "NodePool")) as unknown as Record<string, unknown> & {
    metadata: { name: string };
    spec: Record<string, unknown>;
  };
  pool.metadata = { name };
  return pool;
}

function errorBody(error: unknown): string {
  const e = error as { body?: unknown; message?: string };
  return typeof e.body === "string" ? e.body : JSON.stringify(e.body ?? e.message ?? error);
}

void describe("kerf webhook behind a real kube-apiserver", () => {
  let env: TestEnvironment;
  let webhook: RunningWebhook;
  let dir = "";
  let objects: CustomObjectsApi;
  let admission: AdmissionregistrationV1Api;

  before(async () => {
    env = await useEnvironment({ kwok: false, moto: false });
    await installCrds(env.kubeConfig, crds());
    dir = mkdtempSync(path.join(os.tmpdir(), "kerf-webhook-it-"));
    const serving = await issueServingCertificate(env.state.ca, dir, "kerf-webhook");
    const config = loadWebhookConfig(
      ["--host", "127.0.0.1", "--port", "0", "--tls-cert", serving.cert, "--tls-key", serving.key],
      {},
    );
    webhook = await startWebhook(config, pino({ level: "silent" }));
    const caBundle = readFileSync(env.state.ca.cert).toString("base64");
    admission = env.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
    objects = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const registrations = await webhookRegistrations({ port: webhook.port, caBundle, nameSuffix: suffix });
    await admission.createMutatingWebhookConfiguration({ body: registrations.mutating });
    await admission.createValidatingWebhookConfiguration({ body: registrations.validating });
    // The apiserver picks up new webhook configurations asynchronously: wait until kerf denies.
    await eventually("kerf webhook active", async () => {
      try {
        await objects.createClusterCustomObject({
          ...nodePools,
          body: { ...exampleNodePool("probe"), spec: { ...exampleNodePool("probe").spec, weight: 50, limits: {} } },
          dryRun: "All",
        });
        return false;
      } catch (error) {
        return errorBody(error).includes("kerf.dev");
      }
    });
  });

  after(async () => {
    await admission?.deleteValidatingWebhookConfiguration({ name: `kerf-validating${suffix}` }).catch(() => undefined);
    await admission?.deleteMutatingWebhookConfiguration({ name: `kerf-mutating${suffix}` }).catch(() => undefined);
    await webhook?.close();
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  void it("rejects an invalid NodePool with kerf's message naming the field", async () => {
    const pool = exampleNodePool("six-field-cron");
    (pool.spec.disruption as { budgets: Array<Record<string, string>> }).budgets = [
      { nodes: "0", schedule: "0 0 9 * * mon-fri", duration: "8h" },
    ];
    await assert.rejects(objects.createClusterCustomObject({ ...nodePools, body: pool }), (error: unknown) => {
      const body = errorBody(error);
      assert.match(body, /admission webhook \\?"validate\.kerf\.dev\\?" denied the request/);
      assert.match(body, /spec\.disruption\.budgets\[0\]\.schedule: parsing schedule/);
      return true;
    });
  });

  // The apiserver applies the CRD's own defaults before any webhook runs. A disruption block without
  // consolidateAfter, which Karpenter's v1.14 CRD rejected unless kerf's mutating webhook defaulted it, is
  // defaulted by the v1.15.1 CRDs kerf installs themselves (so kerf's mutation has nothing left to add).
  void it("stores a valid NodePool with its defaults, a disruption block without consolidateAfter included", async () => {
    const pool = exampleNodePool("valid");
    delete (pool.spec.template as { spec: Record<string, unknown> }).spec.expireAfter;
    pool.spec.disruption = { consolidationPolicy: "WhenEmptyOrUnderutilized" };
    await objects.createClusterCustomObject({ ...nodePools, body: pool });
    const stored = (await objects.getClusterCustomObject({ ...nodePools, name: "valid" })) as {
      spec: { template: { spec: { expireAfter?: string } }; disruption: { consolidateAfter?: string } };
    };
    assert.equal(stored.spec.template.spec.expireAfter, "720h");
    assert.equal(stored.spec.disruption.consolidateAfter, "0s");
    const metrics = await fetchMetrics(webhook.port);
    assert.match(
      metrics,
      new RegExp(
        'kerf_admission_requests_total\\{webhook="validate",kind="NodePool",operation="CREATE",' +
          'verdict="allowed",dry_run="false"\\} [1-9]',
      ),
    );
  });

  void it("answers server-side dry-run: denies the invalid, accepts the valid without storing it", async () => {
    const bad = exampleNodePool("dry-bad");
    bad.spec.limits = {};
    await assert.rejects(
      objects.createClusterCustomObject({ ...nodePools, body: bad, dryRun: "All" }),
      (error: unknown) => /spec\.limits/.test(errorBody(error)),
    );
    const created = (await objects.createClusterCustomObject({
      ...nodePools,
      body: exampleNodePool("dry-good"),
      dryRun: "All",
    })) as { metadata: { name: string } };
    assert.equal(created.metadata.name, "dry-good");
    await assert.rejects(
      objects.getClusterCustomObject({ ...nodePools, name: "dry-good" }),
      (error: unknown) => (error as { code?: number }).code === 404,
    );
    assert.match(await fetchMetrics(webhook.port), /verdict="denied",dry_run="true"\} [1-9]/);
  });

  void it("lets a metadata-only update through without calling kerf (matchConditions)", async () => {
    await objects.createClusterCustomObject({ ...nodePools, body: exampleNodePool("annotated") });
    const before = await fetchMetrics(webhook.port);
    const count = (text: string): number =>
      Number(
        /kerf_admission_requests_total\{webhook="validate",kind="NodePool",operation="UPDATE",[^}]*\} (\d+)/.exec(
          text,
        )?.[1] ?? 0,
      );
    await objects.patchClusterCustomObject({
      ...nodePools,
      name: "annotated",
      body: [{ op: "add", path: "/metadata/annotations", value: { "karpenter.sh/nodepool-hash": "123" } }],
    });
    assert.equal(count(await fetchMetrics(webhook.port)), count(before));
  });
});

async function fetchMetrics(port: number): Promise<string> {
  const { get } = await import("../harness/probes.ts");
  return (await get(`https://127.0.0.1:${port}/metrics`, { insecure: true })).body;
}

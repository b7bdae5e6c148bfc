/**
 * The webhook judges against the Karpenter CRDs installed in a real kube-apiserver, read on the chart's own RBAC (a
 * token of the webhook's ServiceAccount, bound by the rendered ClusterRole): an older release's CRDs give that
 * release's verdicts, an upgrade of the CRDs is followed without restart, and while the CRDs cannot be read the
 * bundled release is used and the reason logged once.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import https from "node:https";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import {
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  RbacAuthorizationV1Api,
  type V1ClusterRole,
  type V1ClusterRoleBinding,
} from "@kubernetes/client-node";
import { pino } from "pino";
import { CRD_CONTRACT_VERSION } from "../../policies/api/crds.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { component, renderChart } from "../harness/chart.ts";
import { only } from "../harness/manifests.ts";
import { installCrds } from "../harness/crds.ts";
import { generatedCrds, upstreamCrds } from "../harness/karpenter-crds.ts";
import { issueServingCertificate } from "../harness/certs.ts";
import { createTestNamespace } from "../harness/reset.ts";
import { eventually } from "../harness/wait.ts";
import { loadWebhookConfig } from "../../webhook/config.ts";
import { startWebhook, type RunningWebhook } from "../../webhook/main.ts";

type Log = Record<string, unknown>;

/** A webhook started like the chart's, with its log lines collected. */
interface Started {
  readonly webhook: RunningWebhook;
  readonly logs: Log[];
}

function logSink(logs: Log[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n")) if (line !== "") logs.push(JSON.parse(line) as Log);
      done();
    },
  });
}

function request(
  port: number,
  method: string,
  urlPath: string,
  body?: unknown,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: "127.0.0.1",
        port,
        path: urlPath,
        method,
        rejectUnauthorized: false,
        headers: { "content-type": "application/json" },
      },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => {
          text += c.toString();
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** The kerf_karpenter_api_info series with value 1, as "source/version". */
async function apiInUse(port: number): Promise<string[]> {
  const { body } = await request(port, "GET", "/metrics");
  return [...body.matchAll(/^kerf_karpenter_api_info\{source="([^"]+)",version="([^"]+)"\} 1$/gm)].map(
    (m) => `${m[1]}/${m[2]}`,
  );
}

/** Objects whose verdict differs between Karpenter releases (found by diffing the vendored release files). */
const WINDOWS_2025 = {
  apiVersion: "karpenter.k8s.aws/v1",
  kind: "EC2NodeClass",
  metadata: { name: "windows-2025" },
  spec: {
    role: "KarpenterNodeRole-demo",
    amiSelectorTerms: [{ alias: "windows2025@latest" }],
    subnetSelectorTerms: [{ tags: { "karpenter.sh/discovery": "demo" } }],
    securityGroupSelectorTerms: [{ tags: { "karpenter.sh/discovery": "demo" } }],
  },
};
/**
 * v1.0's expireAfter pattern is anchored on one alternative only, so it lets "720hx"
 * through; later releases do not.
 */
const LOOSE_EXPIRY = {
  apiVersion: "karpenter.sh/v1",
  kind: "NodePool",
  metadata: { name: "loose-expiry" },
  spec: {
    template: {
      spec: {
        nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
        expireAfter: "720hx",
        requirements: [{ key: "karpenter.k8s.aws/instance-category", operator: "In", values: ["c", "m", "r"] }],
      },
    },
    limits: { cpu: "100", memory: "400Gi" },
  },
};

/** kerf's validating verdict on creating `object`, asked over HTTPS as the apiserver asks. */
async function verdict(port: number, object: { apiVersion: string; kind: string }): Promise<"allowed" | string> {
  const [group = "", version = ""] = object.apiVersion.split("/");
  const review = {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "00000000-0000-0000-0000-000000000001",
      kind: { group, version, kind: object.kind },
      resource: { group, version, resource: `${object.kind.toLowerCase()}s` },
      operation: "CREATE",
      userInfo: { username: "alice" },
      object,
      dryRun: true,
    },
  };
  const answer = JSON.parse((await request(port, "POST", "/validate", review)).body) as {
    response: { allowed: boolean; status?: { message?: string } };
  };
  return answer.response.allowed ? "allowed" : (answer.response.status?.message ?? "denied");
}

async function verdicts(port: number): Promise<[string, string]> {
  return [await verdict(port, WINDOWS_2025), await verdict(port, LOOSE_EXPIRY)];
}

const V1_0 = [
  "spec.amiSelectorTerms[0].alias: family is not supported, must be one of the following: 'al2', 'al2023', " +
    "'bottlerocket', 'windows2019', 'windows2022'",
  "allowed",
];
const V1_14 = [
  "allowed",
  'spec.template.spec.expireAfter: Invalid value: "720hx": ' +
    "spec.template.spec.expireAfter in body should match '^(([0-9]+(s|m|h))+|Never)$'",
];

const fallbackWarnings = (logs: readonly Log[]): Log[] =>
  logs.filter((l) => l["msg"] === "cannot use the cluster's Karpenter CRDs; judging against the bundled release");

void describe("kerf webhook judging against the cluster's installed Karpenter CRDs", () => {
  let env: TestEnvironment;
  let dir = "";
  let serving: { cert: string; key: string };
  const started: RunningWebhook[] = [];
  const clusterObjects: { kind: "ClusterRole" | "ClusterRoleBinding"; name: string }[] = [];

  /** A kubeconfig file authenticating as `account` in `namespace` with a fresh token (no admin rights). */
  async function tokenKubeconfig(namespace: string, account: string): Promise<string> {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const token =
      (
        await core.createNamespacedServiceAccountToken({
          name: account,
          namespace,
          body: { spec: { audiences: [], expirationSeconds: 3600 } },
        })
      ).status?.token ?? "";
    const file = path.join(dir, `${namespace}-${account}.kubeconfig`);
    const kubeconfig = {
      apiVersion: "v1",
      kind: "Config",
      "current-context": "t",
      clusters: [
        {
          name: "t",
          cluster: {
            server: env.state.apiserverUrl,
            "certificate-authority-data": readFileSync(env.state.ca.cert).toString("base64"),
          },
        },
      ],
      users: [{ name: "t", user: { token } }],
      contexts: [{ name: "t", context: { cluster: "t", user: "t" } }],
    };
    writeFileSync(file, JSON.stringify(kubeconfig));
    return file;
  }

  async function start(args: readonly string[]): Promise<Started> {
    const logs: Log[] = [];
    const config = loadWebhookConfig(
      ["--host", "127.0.0.1", "--port", "0", "--tls-cert", serving.cert, "--tls-key", serving.key, ...args],
      {},
    );
    const webhook = await startWebhook(config, pino({ level: "info" }, logSink(logs)));
    started.push(webhook);
    return { webhook, logs };
  }

  /**
   * The chart's webhook ServiceAccount and RBAC (ClusterRole kerf-webhook and its
   * binding), applied in a fresh namespace.
   */
  async function chartAccount(): Promise<{ namespace: string; account: string }> {
    const namespace = await createTestNamespace(env.kubeConfig, "kerf-webhook-rbac");
    const objects = component(await renderChart({ namespace, release: "kerf" }), "webhook");
    const account = only(objects, "ServiceAccount").metadata.name;
    await env.kubeConfig
      .makeApiClient(CoreV1Api)
      .createNamespacedServiceAccount({ namespace, body: only(objects, "ServiceAccount") });
    const rbac = env.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const role = only<V1ClusterRole>(objects, "ClusterRole", "kerf-webhook");
    const binding = only<V1ClusterRoleBinding>(objects, "ClusterRoleBinding", "kerf-webhook");
    await rbac.createClusterRole({ body: role });
    clusterObjects.push({ kind: "ClusterRole", name: "kerf-webhook" });
    await rbac.createClusterRoleBinding({ body: binding });
    clusterObjects.push({ kind: "ClusterRoleBinding", name: "kerf-webhook" });
    return { namespace, account };
  }

  before(async () => {
    env = await useEnvironment({ kwok: false, moto: false });
    dir = mkdtempSync(path.join(os.tmpdir(), "kerf-webhook-api-"));
    serving = await issueServingCertificate(env.state.ca, dir, "kerf-webhook");
    await installCrds(env.kubeConfig, await upstreamCrds("1.0.8"));
  });

  after(async () => {
    for (const webhook of started) await webhook.close();
    const rbac = env?.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    for (const o of clusterObjects) {
      if (o.kind === "ClusterRole") await rbac?.deleteClusterRole({ name: o.name }).catch(() => undefined);
      else await rbac?.deleteClusterRoleBinding({ name: o.name }).catch(() => undefined);
    }
    // Later test files in a shared environment expect kerf's own CRDs.
    if (env !== undefined) await installCrds(env.kubeConfig, generatedCrds());
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  void it("reads the installed CRDs on the chart's RBAC alone, follows their upgrade without restart, and falls back while they are gone", async () => {
    const { namespace, account } = await chartAccount();
    const kubeconfig = await tokenKubeconfig(namespace, account);
    const direct = new KubeConfig();
    direct.loadFromFile(kubeconfig);
    await eventually("the webhook's ClusterRoleBinding to take effect", async () => {
      await direct.makeApiClient(CustomObjectsApi).listClusterCustomObject({
        group: "apiextensions.k8s.io",
        version: "v1",
        plural: "customresourcedefinitions",
        fieldSelector: "metadata.name=nodepools.karpenter.sh",
      });
      return true;
    });
    await assert.rejects(
      direct.makeApiClient(ApiextensionsV1Api).listCustomResourceDefinition(),
      (e: { code?: number }) => e.code === 403,
      "only the three CRDs, by name",
    );

    const { webhook, logs } = await start(["--kubeconfig", kubeconfig, "--karpenter-version", "1.10"]);
    // Karpenter's own CRDs do not name their release; their schemas are exactly v1.0.8's.
    assert.deepEqual(await apiInUse(webhook.port), ["cluster/1.0.8"], JSON.stringify(logs));
    assert.deepEqual(fallbackWarnings(logs), []);
    assert.deepEqual(await verdicts(webhook.port), V1_0, "v1.0.8's verdicts, not the default release's");

    // kerf's generated CRDs name theirs: the switch shows without a restart.
    await installCrds(env.kubeConfig, generatedCrds());
    await eventually(
      "the webhook to judge against the upgraded CRDs",
      async () => (await apiInUse(webhook.port)).join() === `cluster/${CRD_CONTRACT_VERSION}`,
    );
    assert.deepEqual(await verdicts(webhook.port), V1_14);

    // Gone: the pinned release (1.10 → 1.10.2), logged once with the reason, however often the watch retries.
    const api = env.kubeConfig.makeApiClient(ApiextensionsV1Api);
    await api.deleteCustomResourceDefinition({ name: "ec2nodeclasses.karpenter.k8s.aws" });
    await eventually(
      "the webhook to fall back",
      async () => (await apiInUse(webhook.port)).join() === "bundled/1.10.2",
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const warnings = fallbackWarnings(logs);
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.equal(warnings[0]?.["reason"], "CRDs not installed: ec2nodeclasses.karpenter.k8s.aws");
    assert.deepEqual(warnings[0]?.["karpenterApi"], { source: "bundled", version: "1.10.2" });
    assert.deepEqual(await verdicts(webhook.port), V1_14, "v1.10.2 knows windows2025 and anchors expireAfter");

    // Back: the cluster's API again.
    await installCrds(env.kubeConfig, await upstreamCrds("1.15.1"));
    await eventually(
      "the webhook to return to the cluster's CRDs",
      async () => (await apiInUse(webhook.port)).join() === "cluster/1.15.1",
    );
    assert.deepEqual(await verdicts(webhook.port), V1_14);
    // Each CRD's change is followed as it comes (while the three are applied one by one, the API mixes them).
    const used = logs
      .filter((l) => l["msg"] === "judging Karpenter objects against this API")
      .map((l) => {
        const a = l["karpenterApi"] as { source: string; version: string };
        return `${a.source}/${a.version}`;
      })
      .filter((a, i, all) => a !== all[i - 1]);
    assert.deepEqual(
      used.slice(0, 3),
      ["cluster/1.0.8", `cluster/${CRD_CONTRACT_VERSION}`, "bundled/1.10.2"],
      used.join(" → "),
    );
    assert.equal(used.at(-1), "cluster/1.15.1");
  });

  void it("uses the bundled release, logging `forbidden` once, when its ServiceAccount may not read CRDs", async () => {
    const namespace = await createTestNamespace(env.kubeConfig, "kerf-webhook-norbac");
    await env.kubeConfig
      .makeApiClient(CoreV1Api)
      .createNamespacedServiceAccount({ namespace, body: { metadata: { name: "kerf-webhook" } } });
    const { webhook, logs } = await start([
      "--kubeconfig",
      await tokenKubeconfig(namespace, "kerf-webhook"),
      "--karpenter-version",
      "1.0.8",
    ]);
    assert.deepEqual(await apiInUse(webhook.port), ["bundled/1.0.8"]);
    assert.deepEqual(await verdicts(webhook.port), V1_0, "the pinned release's verdicts");
    // The watches retry (1 s, 2 s, …); the reason is logged once.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const warnings = fallbackWarnings(logs);
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.match(
      String(warnings[0]?.["reason"]),
      new RegExp(
        "^reading CRDs nodepools\\.karpenter\\.sh, nodeclaims\\.karpenter\\.sh, " +
          "ec2nodeclasses\\.karpenter\\.k8s\\.aws: forbidden \\(",
      ),
    );
    assert.equal((await request(webhook.port, "GET", "/readyz")).status, 200, "the webhook serves");
  });
});

/**
 * `helm upgrade --install` of manifests/charts/kerf against the real kube-apiserver, as a user installs it: the
 * webhook's chart-generated certificate survives upgrades (the chart reads the previous Secret with `lookup`),
 * and is replaced once it nears expiry, with the old and the new CA both in caBundle during the switch. The
 * webhook configurations carry the test label (reset deletes them) and fail open, so no other test depends on
 * this release; it is uninstalled at the end.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { AdmissionregistrationV1Api, CoreV1Api, type V1Secret } from "@kubernetes/client-node";
import { CI_VALUES, installChart, runHelm } from "../harness/chart.ts";
import { createTestNamespace, testLabel } from "../harness/reset.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";

const RELEASE = `kerf-install-${process.pid}`;
const NOT_AFTER = "kerf.dev/certificate-not-after";

/** Every PEM certificate in a (base64) bundle, in order. */
function certificates(base64: string): X509Certificate[] {
  const pem = Buffer.from(base64, "base64").toString("utf8");
  return [...pem.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)].map((m) => new X509Certificate(m[0]));
}

void describe("helm upgrade --install of the kerf chart against a real apiserver", () => {
  let env: TestEnvironment;
  let namespace: string;
  let helmHome: string;

  before(async () => {
    env = await useEnvironment({ kwok: false, moto: false });
    namespace = await createTestNamespace(env.kubeConfig, "kerf-helm");
    helmHome = mkdtempSync(path.join(os.tmpdir(), "kerf-helm-home-"));
  });
  after(async () => {
    await runHelm(["uninstall", RELEASE, "--namespace", namespace, "--kubeconfig", env.state.kubeconfig], helmEnv()).catch(() => undefined);
    rmSync(helmHome, { recursive: true, force: true });
  });

  /** helm's own state (registry config, caches) in a throwaway directory. */
  function helmEnv(): Record<string, string> {
    return { HELM_CONFIG_HOME: path.join(helmHome, "config"), HELM_CACHE_HOME: path.join(helmHome, "cache"), HELM_DATA_HOME: path.join(helmHome, "data") };
  }

  async function upgrade(set: Record<string, string> = {}): Promise<void> {
    await installChart(env.state.kubeconfig, {
      release: RELEASE, namespace, values: [CI_VALUES],
      setString: { [`additionalLabels.${testLabel.replaceAll(".", "\\.")}`]: "true" },
      set: { "webhook.validating.failurePolicy": "Ignore", ...set },
    }, helmEnv());
  }

  async function state(): Promise<{ secret: V1Secret; caBundles: string[] }> {
    const secret = await env.kubeConfig.makeApiClient(CoreV1Api).readNamespacedSecret({ name: `${RELEASE}-webhook-tls`, namespace });
    const admission = env.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
    const validating = await admission.readValidatingWebhookConfiguration({ name: `${RELEASE}-validating` });
    const mutating = await admission.readMutatingWebhookConfiguration({ name: `${RELEASE}-mutating` });
    return { secret, caBundles: [validating, mutating].map((c) => c.webhooks?.[0]?.clientConfig.caBundle ?? "") };
  }

  void it("should keep the generated certificate across upgrades, and renew it near expiry with both CAs trusted meanwhile", async () => {
    await upgrade();
    const first = await state();
    const firstCA = first.secret.data?.["ca.crt"] ?? "";
    assert.notEqual(firstCA, "");
    assert.deepEqual(first.caBundles, [firstCA, firstCA], "both configurations trust the Secret's CA");

    // An ordinary upgrade (a changed value) renders the same certificate: lookup found the Secret.
    await upgrade({ logLevel: "warn" });
    const second = await state();
    assert.deepEqual(second.secret.data, first.secret.data, "the certificate survived the upgrade");
    assert.deepEqual(second.caBundles, first.caBundles);
    const history = JSON.parse((await runHelm(["history", RELEASE, "--namespace", namespace, "--kubeconfig", env.state.kubeconfig, "--output", "json"], helmEnv())).stdout) as unknown[];
    assert.equal(history.length, 2, "two revisions");

    // Inside the renewal window (renewBeforeDays above the year the certificate has left: as a year later), the
    // next upgrade issues a new CA and certificate.
    await upgrade({ logLevel: "warn", "webhook.certificates.generated.renewBeforeDays": "400" });
    const renewed = await state();
    const newCA = renewed.secret.data?.["ca.crt"] ?? "";
    assert.notEqual(newCA, firstCA, "a new CA");
    assert.notEqual(renewed.secret.data?.["tls.crt"], first.secret.data?.["tls.crt"], "a new serving certificate");
    const cert = certificates(renewed.secret.data?.["tls.crt"] ?? "")[0];
    assert.ok(cert?.verify(certificates(newCA)[0]?.publicKey ?? cert.publicKey), "signed by the new CA");
    for (const bundle of renewed.caBundles) {
      assert.deepEqual(certificates(bundle).map((c) => c.fingerprint256), [...certificates(newCA), ...certificates(firstCA)].map((c) => c.fingerprint256), "new and old CA during the switch");
    }
    const notAfter = Date.parse(renewed.secret.metadata?.annotations?.[NOT_AFTER] ?? "");
    assert.ok(notAfter - Date.now() > 360 * 86_400_000, "the recorded expiry moved a year ahead");

    // The next upgrade keeps the new certificate and drops the old CA.
    await upgrade({ logLevel: "info" });
    const settled = await state();
    assert.deepEqual(settled.secret.data, renewed.secret.data);
    assert.deepEqual(settled.caBundles, [newCA, newCA]);
  });
});

/**
 * `helm upgrade --install` of manifests/charts/kerf against the real kube-apiserver, as a user installs it: the
 * webhook's chart-generated certificate survives upgrades (the chart reads the previous Secret with `lookup`),
 * and is replaced once it nears expiry, with the old and the new CA both in caBundle during the switch. The
 * webhook configurations carry the test label (reset deletes them) and fail open, so no other test depends on
 * this release; it is uninstalled at the end. CRDs applied without Helm are adopted into a kerf-crd release as
 * docs/install.md documents; then the release is forgotten (CRDs kept) and kerf's CRDs restored as the harness
 * stores them.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  AdmissionregistrationV1Api,
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type V1Secret,
} from "@kubernetes/client-node";
import { CI_VALUES, KERF_CRD_CHART, installChart, runHelm } from "../harness/chart.ts";
import { installCrds } from "../harness/crds.ts";
import { generatedCrds, upstreamCrds } from "../harness/karpenter-crds.ts";
import { createTestNamespace, testLabel } from "../harness/reset.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";

const RELEASE = `kerf-install-${process.pid}`;
const NOT_AFTER = "kerf.dev/certificate-not-after";

/** Every PEM certificate in a (base64) bundle, in order. */
function certificates(base64: string): X509Certificate[] {
  const pem = Buffer.from(base64, "base64").toString("utf8");
  return [...pem.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)].map(
    (m) => new X509Certificate(m[0]),
  );
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
    await runHelm(
      ["uninstall", RELEASE, "--namespace", namespace, "--kubeconfig", env.state.kubeconfig],
      helmEnv(),
    ).catch(() => undefined);
    rmSync(helmHome, { recursive: true, force: true });
  });

  /** helm's own state (registry config, caches) in a throwaway directory. */
  function helmEnv(): Record<string, string> {
    return {
      HELM_CONFIG_HOME: path.join(helmHome, "config"),
      HELM_CACHE_HOME: path.join(helmHome, "cache"),
      HELM_DATA_HOME: path.join(helmHome, "data"),
    };
  }

  async function upgrade(set: Record<string, string> = {}): Promise<void> {
    await installChart(
      env.state.kubeconfig,
      {
        release: RELEASE,
        namespace,
        values: [CI_VALUES],
        setString: { [`additionalLabels.${testLabel.replaceAll(".", "\\.")}`]: "true" },
        set: { "webhook.validating.failurePolicy": "Ignore", ...set },
      },
      helmEnv(),
    );
  }

  async function state(): Promise<{ secret: V1Secret; caBundles: string[] }> {
    const secret = await env.kubeConfig
      .makeApiClient(CoreV1Api)
      .readNamespacedSecret({ name: `${RELEASE}-webhook-tls`, namespace });
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
    const history = JSON.parse(
      (
        await runHelm(
          ["history", RELEASE, "--namespace", namespace, "--kubeconfig", env.state.kubeconfig, "--output", "json"],
          helmEnv(),
        )
      ).stdout,
    ) as unknown[];
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
      assert.deepEqual(
        certificates(bundle).map((c) => c.fingerprint256),
        [...certificates(newCA), ...certificates(firstCA)].map((c) => c.fingerprint256),
        "new and old CA during the switch",
      );
    }
    const notAfter = Date.parse(renewed.secret.metadata?.annotations?.[NOT_AFTER] ?? "");
    assert.ok(notAfter - Date.now() > 360 * 86_400_000, "the recorded expiry moved a year ahead");

    // The next upgrade keeps the new certificate and drops the old CA.
    await upgrade({ logLevel: "info" });
    const settled = await state();
    assert.deepEqual(settled.secret.data, renewed.secret.data);
    assert.deepEqual(settled.caBundles, [newCA, newCA]);
  });

  void it("should adopt CRDs applied without Helm into the kerf-crd release as docs/install.md says, keeping the stored objects", async () => {
    const release = `kerf-crd-adopt-${process.pid}`;
    const kubeconfig = env.state.kubeconfig;
    const crdNames = [
      "nodepools.karpenter.sh",
      "nodeclaims.karpenter.sh",
      "nodeoverlays.karpenter.sh",
      "ec2nodeclasses.karpenter.k8s.aws",
    ];
    const extensions = env.kubeConfig.makeApiClient(ApiextensionsV1Api);
    const objects = env.kubeConfig.makeApiClient(CustomObjectsApi);
    // Karpenter's own CRDs as `kubectl apply` leaves them (no Helm metadata), with a NodePool stored under them; a
    // Karpenter v1.7+ also has the NodeOverlay CRD (kerf's is the same schema).
    const overlay = generatedCrds().filter((c) => c.metadata?.name === "nodeoverlays.karpenter.sh");
    assert.equal(overlay.length, 1, "kerf's CRDs include NodeOverlay");
    await installCrds(env.kubeConfig, [...(await upstreamCrds("1.14.1")), ...overlay]);
    const pool = { group: "karpenter.sh", version: "v1", plural: "nodepools", name: `adopted-${process.pid}` };
    await objects.createClusterCustomObject({
      ...pool,
      body: {
        apiVersion: "karpenter.sh/v1",
        kind: "NodePool",
        metadata: { name: pool.name },
        spec: {
          template: {
            spec: {
              nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
              requirements: [{ key: "kubernetes.io/arch", operator: "In", values: ["amd64"] }],
            },
          },
        },
      },
    });
    const install = (...flags: string[]): Promise<unknown> =>
      runHelm(
        [
          "upgrade",
          "--install",
          release,
          KERF_CRD_CHART,
          "--namespace",
          namespace,
          "--kubeconfig",
          kubeconfig,
          ...flags,
        ],
        helmEnv(),
      );
    try {
      await assert.rejects(
        install(),
        new RegExp(
          'CustomResourceDefinition "[a-z0-9.]+" in namespace "" exists and cannot be imported ' +
            "into the current release: invalid ownership metadata",
        ),
      );
      // docs/install.md, "Adopting existing CRDs": kubectl label … app.kubernetes.io/managed-by=Helm;
      // kubectl annotate … meta.helm.sh/*.
      for (const name of crdNames) {
        await extensions.patchCustomResourceDefinition(
          {
            name,
            body: {
              metadata: {
                labels: { "app.kubernetes.io/managed-by": "Helm" },
                annotations: { "meta.helm.sh/release-name": release, "meta.helm.sh/release-namespace": namespace },
              },
            },
          },
          setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
        );
      }
      // Helm 4 applies server-side: the fields still belong to the manager that applied the CRDs, hence the
      // documented --force-conflicts on this first install; an upgrade after it needs none.
      await assert.rejects(
        install(),
        /Apply failed with 1 conflict: conflict with "[^"]+" using apiextensions\.k8s\.io\/v1: \.spec\.versions/,
      );
      await install("--force-conflicts");
      await install();
      const manifest = (
        await runHelm(["get", "manifest", release, "--namespace", namespace, "--kubeconfig", kubeconfig], helmEnv())
      ).stdout;
      assert.deepEqual(
        [...manifest.matchAll(/^kind: CustomResourceDefinition\n(?:.*\n)*?  name: (\S+)$/gm)].map((m) => m[1]).sort(),
        [...crdNames].sort(),
        "the release owns the four CRDs",
      );
      for (const name of crdNames) {
        const crd = await extensions.readCustomResourceDefinition({ name });
        assert.match(
          crd.metadata?.annotations?.["kerf.dev/generated-from"] ?? "",
          /policies\/api/,
          `${name} was updated in place to kerf-crd's`,
        );
      }
      assert.equal(
        ((await objects.getClusterCustomObject(pool)) as { metadata: { name: string } }).metadata.name,
        pool.name,
        "the stored NodePool survived the adoption",
      );
      // Forgetting a release without deleting its objects (docs/install.md, for karpenter-crd): delete its records.
      await env.kubeConfig
        .makeApiClient(CoreV1Api)
        .deleteCollectionNamespacedSecret({ namespace, labelSelector: `owner=helm,name=${release}` });
      const listed = (
        await runHelm(["list", "--namespace", namespace, "--kubeconfig", kubeconfig, "--output", "json"], helmEnv())
      ).stdout;
      assert.equal(
        (JSON.parse(listed) as { name: string }[]).some((r) => r.name === release),
        false,
        "helm forgot the release",
      );
      for (const name of crdNames)
        assert.equal((await extensions.readCustomResourceDefinition({ name })).metadata?.name, name, `${name} kept`);
    } finally {
      await objects.deleteClusterCustomObject(pool).catch(() => undefined);
      await env.kubeConfig
        .makeApiClient(CoreV1Api)
        .deleteCollectionNamespacedSecret({ namespace, labelSelector: `owner=helm,name=${release}` })
        .catch(() => undefined);
      // The environment's CRDs as other tests expect them: kerf's generated ones, stored as given.
      await installCrds(env.kubeConfig, generatedCrds());
    }
  });
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { ClusterDiscoveryError } from "../../core/launch-template/cluster-info.ts";
import { kubeconfigCABundle } from "./ca-bundle.ts";

const PEM = "-----BEGIN CERTIFICATE-----\nTUlJQg==\n-----END CERTIFICATE-----\n";

function kubeConfig(cluster: { caData?: string; caFile?: string }): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server: "https://10.100.0.1:443", skipTLSVerify: false, ...cluster }],
    users: [{ name: "u", token: "t" }],
    contexts: [{ name: "ctx", cluster: "c", user: "u" }],
    currentContext: "ctx",
  });
  return kc;
}

void describe("the kubeconfig's CA bundle", () => {
  void it("should return certificate-authority-data as it is (already base64)", () => {
    assert.equal(
      kubeconfigCABundle(kubeConfig({ caData: Buffer.from(PEM).toString("base64") })),
      Buffer.from(PEM).toString("base64"),
    );
  });

  void it("should read and encode the certificate-authority file, as a pod's ServiceAccount ca.crt", () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "kerf-ca-")), "ca.crt");
    writeFileSync(file, PEM);
    assert.equal(kubeconfigCABundle(kubeConfig({ caFile: file })), Buffer.from(PEM).toString("base64"));
  });

  void it("should have none when the kubeconfig names no CA", () => {
    assert.equal(kubeconfigCABundle(kubeConfig({})), undefined);
  });

  void it("should fail naming the file when the CA file cannot be read", () => {
    assert.throws(
      () => kubeconfigCABundle(kubeConfig({ caFile: "/nonexistent/ca.crt" })),
      (e: unknown) => e instanceof ClusterDiscoveryError && /\/nonexistent\/ca\.crt/.test(e.message),
    );
  });
});

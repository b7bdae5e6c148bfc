import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import tls from "node:tls";
import { X509Certificate } from "node:crypto";
import { pino } from "pino";
import { createPki, issueServingCertificate, type Pki } from "../test/harness/certs.ts";
import { loadWebhookConfig } from "./config.ts";
import { startWebhook, type RunningWebhook } from "./main.ts";
import { loadTlsMaterial } from "./tls.ts";
import { isKerfError } from "./errors.ts";

function servedFingerprint(port: number, ca: string, options: tls.ConnectionOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect(
      { host: "127.0.0.1", port, ca: readFileSync(ca), servername: "localhost", ...options },
      () => {
        const fingerprint = socket.getPeerCertificate().fingerprint256;
        socket.end();
        resolve(fingerprint);
      },
    );
    socket.on("error", reject);
  });
}

function fingerprintOf(certFile: string): string {
  return new X509Certificate(readFileSync(certFile)).fingerprint256;
}

void describe("webhook TLS", () => {
  let dir = "";
  let pki: Pki;
  let webhook: RunningWebhook | undefined;
  const certFile = (): string => path.join(dir, "serving.crt");
  const keyFile = (): string => path.join(dir, "serving.key");

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "kerf-tls-"));
    pki = await createPki(dir);
    copyFileSync(pki.apiserver.cert, certFile());
    copyFileSync(pki.apiserver.key, keyFile());
    const config = loadWebhookConfig(
      [
        "--port",
        "0",
        "--host",
        "127.0.0.1",
        "--tls-cert",
        certFile(),
        "--tls-key",
        keyFile(),
        "--tls-reload-interval",
        "100",
      ],
      {},
    );
    webhook = await startWebhook(config, pino({ level: "silent" }));
  });
  after(async () => {
    await webhook?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  void it("serves HTTPS with the configured certificate", async () => {
    assert.equal(await servedFingerprint(webhook!.port, pki.ca.cert), fingerprintOf(pki.apiserver.cert));
  });

  void it("refuses TLS 1.1 clients", async () => {
    await assert.rejects(servedFingerprint(webhook!.port, pki.ca.cert, { maxVersion: "TLSv1.1", minVersion: "TLSv1" }));
  });

  void it("serves a new certificate after the files change, without a restart", async () => {
    const next = await issueServingCertificate(pki.ca, dir, "rotated");
    copyFileSync(next.key, keyFile());
    copyFileSync(next.cert, certFile());
    const want = fingerprintOf(next.cert);
    let served = "";
    for (let i = 0; i < 50 && served !== want; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      served = await servedFingerprint(webhook!.port, pki.ca.cert);
    }
    assert.equal(served, want);
  });

  void it("keeps the current certificate when a rotation writes garbage", async () => {
    const before = await servedFingerprint(webhook!.port, pki.ca.cert);
    writeFileSync(certFile(), "not a certificate");
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.equal(await servedFingerprint(webhook!.port, pki.ca.cert), before);
  });

  void it("names the file when the certificate cannot be read", () => {
    assert.throws(
      () => loadTlsMaterial(path.join(dir, "missing.crt"), keyFile()),
      (error: unknown) =>
        isKerfError(error) && error.message.startsWith(`reading TLS certificate ${path.join(dir, "missing.crt")}: `),
    );
  });
});

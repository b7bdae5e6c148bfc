/** The admin kubeconfig of a test environment, as a file other processes (kwok, scheduler) read. */
import { readFileSync, writeFileSync } from "node:fs";
import type { Pki } from "./certs.ts";

/** Writes a kubeconfig for `server` authenticating with the admin client certificate. */
export function writeKubeconfig(file: string, server: string, pki: Pki): void {
  const b64 = (f: string): string => readFileSync(f).toString("base64");
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "kerf-test", cluster: { server, "certificate-authority-data": b64(pki.ca.cert) } }],
    users: [
      {
        name: "kerf-admin",
        user: { "client-certificate-data": b64(pki.admin.cert), "client-key-data": b64(pki.admin.key) },
      },
    ],
    contexts: [{ name: "kerf-test", context: { cluster: "kerf-test", user: "kerf-admin" } }],
    "current-context": "kerf-test",
  };
  // JSON is valid YAML, and every kubeconfig reader accepts it.
  writeFileSync(file, JSON.stringify(config, null, 2), { mode: 0o600 });
}

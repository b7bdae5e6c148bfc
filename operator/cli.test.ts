import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const kerf = path.resolve(import.meta.dirname, "../webhook/cli/kerf.mjs");

void describe("kerf operator", () => {
  void it("exits 2 with one line naming what is missing when it finds no Kubernetes API to talk to", () => {
    const home = mkdtempSync(path.join(os.tmpdir(), "kerf-no-kubeconfig-"));
    try {
      // No KUBECONFIG, an empty HOME (no ~/.kube/config) and, outside a pod, no ServiceAccount token.
      const run = spawnSync(process.execPath, [kerf, "operator"], {
        encoding: "utf8",
        timeout: 60_000,
        env: {
          PATH: process.env["PATH"] ?? "",
          HOME: home,
          CLUSTER_NAME: "prod",
          AWS_REGION: "us-east-1",
          CLUSTER_ENDPOINT: "https://prod.example:443",
        },
      });
      assert.equal(run.status, 2, run.stderr);
      assert.match(
        run.stderr,
        new RegExp(
          "^finding the Kubernetes API: no --kubeconfig \\(KUBECONFIG\\), " +
            "no ~\\/\\.kube\\/config and no in-cluster ServiceAccount",
        ),
      );
      assert.equal(run.stderr.trim().split("\n").length, 1, "one line, no stack trace");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

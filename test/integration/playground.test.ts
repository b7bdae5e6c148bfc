/**
 * `npm start` end to end: the playground run non-interactively with short steps and feature gates. While it runs, the
 * test reads the cluster through the kubeconfig the playground prints (NodeClaims initialized, Nodes
 * ready, inflate pods running) and the operator's `/metrics` at the address it prints (Karpenter's node and pod
 * series with samples, every series Karpenter's own dashboards query); afterwards it checks the exit code, the
 * summary and that every process the playground started is gone and its environment directory removed.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { CoreV1Api, CustomObjectsApi, KubeConfig } from "@kubernetes/client-node";
import { exportedSeries, karpenterDashboardGaps } from "../harness/observability.ts";
import { eventually } from "../harness/wait.ts";

const root = path.resolve(import.meta.dirname, "..", "..");

/** Pids whose parent is `pid` (from /proc). */
function children(pid: number): number[] {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid ? [Number(d)] : [];
      } catch {
        return [];
      }
    });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

interface Claim {
  status?: { conditions?: { type: string; status: string }[] };
}

void describe("npm start (the playground)", () => {
  void it("scales inflate to 3 and back to 0 with the gates given: NodeClaims launch and initialize, Nodes join, pods run, the operator's /metrics serves Karpenter's series, then everything stops with exit code 0", async () => {
    const timeline = path.join(mkdtempSync(path.join(os.tmpdir(), "kerf-timeline-")), "timeline.svg");
    const child = spawn(
      process.execPath,
      [
        path.join(root, "test/playground/main.ts"),
        "--steps",
        "3,0",
        "--hold",
        "15s",
        "--interval",
        "500ms",
        "--timeline",
        timeline,
        "--feature-gates",
        "NodeRepair=true,StaticCapacity=true",
      ],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout.on("data", (c: Buffer) => {
      output += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      output += c.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      const kubeconfig = await eventually(
        "the playground to print its kubeconfig",
        () => /^kubeconfig: (\S+)/m.exec(output)?.[1],
        90_000,
        200,
      );
      const metricsUrl = /^kerf operator metrics: (http:\/\/127\.0\.0\.1:\d+\/metrics)$/m.exec(output)?.[1];
      assert.ok(metricsUrl !== undefined, `the playground prints the operator's /metrics address; output:\n${output}`);
      const gates = /^kerf operator feature gates: (.+)$/m.exec(output)?.[1] ?? "";
      for (const gate of ["NodeRepair=true", "StaticCapacity=true", "SpotToSpotConsolidation=false"])
        assert.ok(gates.split(", ").includes(gate), `${gate} in force: ${gates}`);
      const started = children(child.pid ?? 0);
      assert.ok(
        started.length >= 6,
        `etcd, apiserver, scheduler, controller-manager, kwok and moto run as children (found ${started.length})`,
      );
      const kc = new KubeConfig();
      kc.loadFromFile(kubeconfig);
      const custom = kc.makeApiClient(CustomObjectsApi);
      const core = kc.makeApiClient(CoreV1Api);
      await eventually(
        "an initialized NodeClaim, a ready Node and 3 running inflate pods",
        async () => {
          const claims = (await custom.listClusterCustomObject({
            group: "karpenter.sh",
            version: "v1",
            plural: "nodeclaims",
          })) as { items: Claim[] };
          const initialized = claims.items.filter((c) =>
            c.status?.conditions?.some((x) => x.type === "Initialized" && x.status === "True"),
          );
          const ready = (await core.listNode()).items.filter((n) =>
            n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
          );
          const running = (
            await core.listNamespacedPod({ namespace: "default", labelSelector: "app=inflate" })
          ).items.filter((p) => p.status?.phase === "Running");
          return initialized.length >= 1 && ready.length >= 1 && running.length === 3;
        },
        15_000,
        250,
      );
      // The node gauges (every 5 s) and the pod series have samples for what runs now.
      const page = await eventually(
        "the operator's /metrics with the node's allocatable and the running pods",
        async () => {
          const text = await (await fetch(metricsUrl)).text();
          const allocatable = new RegExp(
            '^karpenter_nodes_allocatable\\{[^}]*nodepool="default"[^}]*resource_type="cpu"[^}]*\\} ' +
              "(0\\.\\d+|[1-9][\\d.]*)$",
            "m",
          ).test(text);
          const pods = (text.match(/^karpenter_pods_state\{[^}]*phase="Running"[^}]*\} 1$/gm) ?? []).length >= 3;
          return allocatable && pods ? text : undefined;
        },
        30_000,
        500,
      );
      assert.match(
        page,
        new RegExp(
          '^karpenter_nodeclaims_created_total\\{reason="provisioned",nodepool="default",' +
            'min_values_relaxed="(true|false)"\\} [1-9]',
          "m",
        ),
      );
      assert.match(page, /^karpenter_build_info\{[^}]*goversion="v\d+/m);
      assert.deepEqual(karpenterDashboardGaps(exportedSeries(page)), [], "every series Karpenter's dashboards query");
      const code = await Promise.race([exited, sleep(120_000, "timeout", { ref: false })]);
      assert.equal(code, 0, `exit code; output:\n${output}`);
      assert.match(output, /step 1\/2: inflate → 3 replicas/);
      assert.match(output, /step 2\/2: inflate → 0 replicas/);
      assert.match(
        output,
        new RegExp(
          "^\\[\\s*[\\d.]+s\\] pods 3 running \\| nodes [1-9]\\d* \\([1-9]\\d* ready\\) \\| " +
            "nodeclaims [1-9]\\d* \\| \\$\\d+\\.\\d{4}\\/h$",
          "m",
        ),
      );
      assert.match(
        output,
        /^\s+default-\w+\s+\S+\.\S+\s+(spot|on-demand)\s+us-east-1[ab]\s+Initialized\s+node i-[0-9a-f]+$/m,
      );
      assert.match(
        output,
        /^consolidation: every empty node removed [\d.]+ s after scaling to 0$/m,
        "the empty node goes after the step to 0",
      );
      assert.match(
        output,
        /^\s+default-\w+\s+.*\s(consolidatable|disrupting: Empty)$/m,
        "the live view shows the disruption state",
      );
      assert.match(
        readFileSync(timeline, "utf8"),
        /^<svg [^>]*>[\s\S]*→ 3[\s\S]*<\/svg>\n$/,
        "the timeline picture is written",
      );
      assert.match(
        output,
        new RegExp(
          "^summary: peak [1-9]\\d* NodeClaims \\(\\S+\\), [1-9]\\d* Nodes ready, " +
            "3 inflate pods running; everything stopped$",
          "m",
        ),
      );
      assert.deepEqual(started.filter(alive), [], "no process the playground started is left");
      assert.equal(existsSync(path.dirname(kubeconfig)), false, "the environment directory is removed");
    } finally {
      // On a failure, stop it the way Ctrl-C does, so its environment is torn down too.
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await Promise.race([exited, sleep(30_000, undefined, { ref: false })]);
      }
    }
  });
});
